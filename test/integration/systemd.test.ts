/**
 * deploy/systemd/ checked with systemd's own tools: `systemd-analyze verify`
 * prints nothing, `systemd-analyze security --offline=true` scores the unit at
 * or below EXPOSURE_AT_MOST (docs/operations.md states the score), and
 * `systemd-sysusers` makes the user the unit runs as. This machine does not
 * boot systemd, so the unit is checked, not run; what can break node under it
 * is run here instead: the service under the unit's system call filter, made
 * with libseccomp as systemd makes it, against a real nats-server.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { eventually } from "../helpers/eventually.js";
import { stopBound } from "../../src/stop.js";
import { parseDuration } from "../../src/duration.js";
import { SERVE_DEFAULTS } from "../../src/defaults.js";
import { httpGet } from "../helpers/http-get.js";

// dist/test/integration/ -> the repository
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const UNIT = `${ROOT}deploy/systemd/mesh-provisioner.service`;
const SYSUSERS = `${ROOT}deploy/systemd/mesh-provisioner.sysusers`;
const BIN = `${ROOT}bin/mesh-provisioner`;

/** The most `systemd-analyze security` may score the unit ("OK" is below 2.0 on its scale). */
const EXPOSURE_AT_MOST = 1.5;
/** The longest the service's own stop takes after SIGTERM with the defaults (src/stop.ts; docs/operations.md, "Stopping and upgrading"). */
const STOP_BOUND_S = stopBound(parseDuration(SERVE_DEFAULTS.maxWait)).totalMs / 1000;
/** What TimeoutStopSec= gives beyond that bound at least: a stop slowed by a loaded host is still never cut by SIGKILL. */
const STOP_MARGIN_S = 10;

const works = (cmd: string, args: string[]): boolean => spawnSync(cmd, args, { stdio: "ignore" }).status === 0;
/** Where a tool is missing: skipped on a developer's machine, a failure in CI (.ci/run installs it). */
const missing = (what: string, present: boolean): string | false => {
  if (present) return false;
  if (process.env["CI"] === "true") throw new Error(`${what} is missing; .ci/run installs it`);
  return `${what} is not installed`;
};

const NO_SYSTEMD = missing("systemd-analyze (Debian's systemd package)", works("systemd-analyze", ["--version"]));
const NO_SECCOMP = missing("python3 with libseccomp.so.2", works("python3", ["-c", "import ctypes; ctypes.CDLL('libseccomp.so.2')"]));

function analyze(args: string[], cwd: string): { status: number | null; out: string } {
  const r = spawnSync("systemd-analyze", args, { cwd, encoding: "utf8" });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The unit's settings, key to values in order (a key may be given several times). */
function unitSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) settings.set(m[1] as string, [...(settings.get(m[1] as string) ?? []), m[2] as string]);
  }
  return settings;
}

const unitText = (): string => readFileSync(UNIT, "utf8");
/**
 * The unit as verify can check it here: verify checks that ExecStart's program
 * exists, so where /usr/bin/node is missing the path of the node running this
 * test takes its place (the only change).
 */
function verifiable(): string {
  try {
    accessSync("/usr/bin/node", constants.X_OK);
    return unitText();
  } catch {
    return unitText().replace(/^ExecStart=\/usr\/bin\/node /m, `ExecStart=${process.execPath} `);
  }
}

const one = (key: string): string | undefined => unitSettings(unitText()).get(key)?.at(-1);

describe("the systemd unit", { skip: NO_SYSTEMD }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "systemd-unit-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("systemd-analyze verify prints nothing", () => {
    let unit = UNIT;
    if (verifiable() !== unitText()) writeFileSync((unit = join(dir, "mesh-provisioner.service")), verifiable());
    const r = analyze(["verify", unit], dir);
    assert.equal(r.out, "", "verify's complaints");
    assert.equal(r.status, 0);
  });

  test("with the LoadCredential= drop-in, systemd-analyze verify prints nothing", () => {
    const units = join(dir, "units");
    mkdirSync(join(units, "mesh-provisioner.service.d"), { recursive: true });
    writeFileSync(join(units, "mesh-provisioner.service"), verifiable());
    const dropIn = readFileSync(`${ROOT}deploy/systemd/load-credential.conf`, "utf8");
    writeFileSync(join(units, "mesh-provisioner.service.d", "load-credential.conf"), `${dropIn}\nNoSuchKey=1\n`);
    const seen = spawnSync("systemd-analyze", ["verify", join(units, "mesh-provisioner.service")], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, SYSTEMD_UNIT_PATH: `${units}:` },
    });
    assert.match(seen.stderr, /load-credential\.conf:\d+: Unknown key 'NoSuchKey'/, "the drop-in is read");
    writeFileSync(join(units, "mesh-provisioner.service.d", "load-credential.conf"), dropIn);
    const r = spawnSync("systemd-analyze", ["verify", join(units, "mesh-provisioner.service")], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, SYSTEMD_UNIT_PATH: `${units}:` },
    });
    assert.equal(`${r.stdout}${r.stderr}`, "");
    assert.equal(r.status, 0);
  });

  test("systemd-analyze verify does complain about a unit it finds wrong (so its silence above means something)", () => {
    const broken = join(dir, "broken.service");
    writeFileSync(broken, unitText().replace("[Service]\n", "[Service]\nKillSignall=SIGTERM\n"));
    const r = analyze(["verify", broken], dir);
    assert.match(r.out, /Unknown key 'KillSignall'/);
  });

  test(`systemd-analyze security --offline=true scores it at most ${EXPOSURE_AT_MOST}, and docs/operations.md states the score`, () => {
    const r = analyze(["security", "--offline=true", `--threshold=${EXPOSURE_AT_MOST * 10}`, UNIT], dir);
    const m = /Overall exposure level for mesh-provisioner\.service: (\d+\.\d) (\S+)/.exec(r.out);
    assert.ok(m, r.out.slice(-500));
    const score = Number(m[1]);
    assert.ok(score <= EXPOSURE_AT_MOST, `exposure ${score}`);
    assert.equal(m[2], "OK");
    assert.equal(r.status, 0, "--threshold passes");
    const ops = readFileSync(`${ROOT}docs/operations.md`, "utf8");
    assert.ok(ops.includes(`exposure level ${m[1]} (${m[2]})`), `docs/operations.md states "exposure level ${m[1]} (${m[2]})"`);
  });

  test("it keeps V8 working, stops gracefully, reloads with SIGHUP and reads the environment file", () => {
    const s = unitSettings(unitText());
    assert.equal(s.get("MemoryDenyWriteExecute"), undefined, "V8 writes the code it then executes");
    assert.equal(one("KillSignal"), "SIGTERM");
    assert.ok(
      Number(one("TimeoutStopSec")) >= STOP_BOUND_S + STOP_MARGIN_S,
      `TimeoutStopSec=${one("TimeoutStopSec")} leaves ${STOP_MARGIN_S} s beyond the stop's bound of ${STOP_BOUND_S} s`,
    );
    assert.equal(one("ExecReload"), "/bin/kill -HUP $MAINPID");
    assert.equal(one("EnvironmentFile"), "-/etc/mesh-provisioner/mesh-provisioner.env");
    assert.match(one("ExecStart") ?? "", /^\/usr\/bin\/node \/opt\/mesh-provisioner\/bin\/mesh-provisioner serve$/);
    assert.equal(one("Restart"), "on-failure");
    assert.equal(one("RestartPreventExitStatus"), "2", "exit 2 (a bad setting) is not restarted");
    assert.equal(one("CapabilityBoundingSet"), "");
    assert.equal(one("ProtectSystem"), "strict");
    assert.equal(one("NoNewPrivileges"), "true");
  });

  test("systemd-sysusers makes the user and group the unit runs as", () => {
    const root = join(dir, "sysusers-root");
    mkdirSync(join(root, "etc"), { recursive: true });
    const r = spawnSync("systemd-sysusers", [`--root=${root}`, SYSUSERS], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const user = one("User");
    const passwd = readFileSync(join(root, "etc/passwd"), "utf8");
    const entry = passwd.split("\n").find((l) => l.startsWith(`${user}:`));
    assert.ok(entry, `${user} in passwd: ${passwd}`);
    assert.match(entry, /:\/usr\/sbin\/nologin$/, "no login shell");
    assert.ok(Number(entry.split(":")[2]) < 1000, "a system uid");
    assert.ok(readFileSync(join(root, "etc/group"), "utf8").includes(`${one("Group")}:`));
  });
});

/**
 * Runs a command under an allow-list seccomp filter, as SystemCallFilter=
 * with SystemCallErrorNumber=EPERM makes one: the named system calls are
 * allowed, every other fails with EPERM. argv: the file of names, then the
 * command.
 */
const SECCOMP_RUN = `
import ctypes, os, sys
lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
lib.seccomp_init.restype = ctypes.c_void_p
lib.seccomp_init.argtypes = [ctypes.c_uint32]
lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
lib.seccomp_load.argtypes = [ctypes.c_void_p]
ctx = lib.seccomp_init(0x00050000 | 1)  # SCMP_ACT_ERRNO(EPERM)
allowed = 0
for name in open(sys.argv[1]).read().split():
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    if nr >= 0 and lib.seccomp_rule_add(ctx, 0x7FFF0000, nr, 0) == 0:  # SCMP_ACT_ALLOW
        allowed += 1
if allowed < 100 or lib.seccomp_load(ctx) != 0:
    sys.exit("the filter could not be loaded (%d system calls)" % allowed)
os.execv(sys.argv[2], sys.argv[2:])
`;

/** The system calls SystemCallFilter= lines allow: the first line's list, less each "~" line's, groups expanded by systemd-analyze. */
function allowedSyscalls(filters: readonly string[]): Set<string> {
  const groups = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of (spawnSync("systemd-analyze", ["syscall-filter"], { encoding: "utf8" }).stdout ?? "").split("\n")) {
    if (line.startsWith("@")) groups.set(line.trim(), (current = []));
    else if (/^\s+[@a-z_0-9-]+$/.test(line)) current?.push(line.trim());
    else if (!line.startsWith(" ")) current = undefined;
  }
  const expand = (item: string): string[] => (item.startsWith("@") ? (groups.get(item) ?? assert.fail(`no group ${item}`)).flatMap(expand) : [item]);
  const [first, ...rest] = filters;
  assert.ok(first !== undefined && !first.startsWith("~"), "the first SystemCallFilter= is an allow list");
  const allowed = new Set(first.split(/\s+/).flatMap(expand));
  for (const deny of rest) {
    assert.ok(deny.startsWith("~"), `a later SystemCallFilter= takes away: ${deny}`);
    for (const name of deny.slice(1).trim().split(/\s+/).flatMap(expand)) allowed.delete(name);
  }
  return allowed;
}

describe("the service under the unit's system call filter", { skip: NO_SYSTEMD || NO_SECCOMP }, () => {
  let dir: string;
  let server: RunningNatsServer;
  let allowedFile: string;
  const children = new Set<ChildProcess>();

  const underFilter = (
    file: string,
    args: string[],
    env: NodeJS.ProcessEnv,
  ): { child: ChildProcess; exited: Promise<{ code: number | null; output: string }> } => {
    const child = spawn("python3", ["-c", SECCOMP_RUN, file, process.execPath, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (output += c));
    const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
      child.once("close", (code) => {
        children.delete(child);
        resolve({ code, output });
      }),
    );
    return { child, exited };
  };

  before(async () => {
    assert.equal(one("SystemCallErrorNumber"), "EPERM", "a call outside the filter fails, as here, rather than killing the process");
    dir = mkdtempSync(join(tmpdir(), "systemd-seccomp-"));
    allowedFile = join(dir, "allowed");
    writeFileSync(allowedFile, [...allowedSyscalls(unitSettings(unitText()).get("SystemCallFilter") ?? [])].join("\n"));
    server = await startNatsServer();
  });
  after(async () => {
    for (const c of children) c.kill("SIGKILL");
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the filter is in force: node without mprotect cannot even load", async () => {
    const less = join(dir, "less");
    writeFileSync(less, readFileSync(allowedFile, "utf8").replace(/^mprotect$/m, ""));
    const r = await underFilter(less, ["-e", "0"], process.env).exited;
    assert.notEqual(r.code, 0, r.output);
    assert.match(r.output, /Operation not permitted/);
  });

  test("serve becomes ready, answers HTTP and stops with 0 on SIGTERM", async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, NATS_URL: server.url, MESH_PROVISIONER_HTTP: `127.0.0.1:${port}` };
    const run = underFilter(allowedFile, [BIN, "serve"], env);
    await eventually(
      async () => {
        const r = await httpGet(`http://127.0.0.1:${port}/readyz`);
        assert.equal(r.status, 200);
      },
      { timeoutMs: 30_000, intervalMs: 200, message: "serve ready under the filter" },
    );
    assert.equal((await httpGet(`http://127.0.0.1:${port}/metrics`)).status, 200);
    run.child.kill("SIGTERM");
    const r = await run.exited;
    assert.equal(r.code, 0, r.output.slice(-2000));
    assert.match(r.output, /stopped cleanly/);
  });
});
