/**
 * `npm start` stopped as a supervisor stops it (`timeout`, systemd, a
 * container runtime): a signal to the `npm start` process alone, not to its
 * process group. npm forwards SIGINT and SIGTERM to its child; the `start`
 * script execs the service, so the child is the service itself, which stops
 * gracefully, stops its private nats-server and removes the store. A service
 * killed outright (SIGKILL) leaves its nats-server to the watchdog
 * (src/embedded/watchdog.ts); an npm killed outright leaves the service to
 * notice its parent is gone.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { ROOT } from "../helpers/processes.js";
import { until } from "../helpers/verb-pages.js";
import { stopBound } from "../../src/stop.js";
import { parseDuration } from "../../src/duration.js";
import { SERVE_DEFAULTS } from "../../src/defaults.js";

/** The service's bound, then its nats-server's own stop (SIGTERM, SIGKILL after 5 s). */
const STOP_MS = stopBound(parseDuration(SERVE_DEFAULTS.maxWait)).totalMs + 11_000;
/** The watchdog: SIGTERM, SIGKILL after 5 s, the directory removed after 6 s at the latest. */
const WATCHDOG_MS = 6_000;
const START_MS = 30_000;

interface NpmStart {
  readonly npm: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** The service's pid (its log lines carry it), the private server's pid and its temporary directory. */
  readonly service: number;
  readonly server: number;
  readonly dir: string;
  readonly output: () => string;
}

const started = new Set<ChildProcess>();
const pidsToKill = new Set<number>();

/** Running and not a zombie (a zombie has exited; only its parent has not read its status yet). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Pids of processes whose command line names `configFile` (the private nats-server started with `-c <it>`). */
function serversOf(configFile: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").includes(configFile) && running(Number(d))) pids.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function npmStart(): Promise<NpmStart> {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("NATS_") && k !== "NATS_SERVER_BIN") delete env[k];
  // Its own process group, as a supervisor's child is: a signal reaches the npm process alone.
  const npm = spawn("npm", ["start"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  started.add(npm);
  let out = "";
  let err = "";
  npm.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  npm.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    npm.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const output = (): string => `stdout:\n${out.slice(-2000)}\nstderr:\n${err.slice(-3000)}`;
  const store = await until(() => /\(store (\S+)\)\./.exec(out)?.[1], START_MS, `npm start's banner\n${output()}`);
  const service = Number(/"pid":(\d+)/.exec(err)?.[1]);
  const dir = dirname(store);
  const server = serversOf(`${dir}/nats-server.conf`)[0];
  assert.ok(server !== undefined && running(service), `the service (${service}) and its nats-server run\n${output()}`);
  pidsToKill.add(service).add(server);
  return { npm, exited, service, server, dir, output };
}

/** Wait until none of `pids` runs and `dir` is gone; how long that took since `t0`. */
async function allGone(pids: number[], dir: string, t0: number, ms: number, what: string): Promise<number> {
  await until(() => (pids.every((p) => !running(p)) && !existsSync(dir) ? true : undefined), ms, what);
  return Date.now() - t0;
}

describe("npm start stopped as a supervisor stops it", { timeout: 180_000 }, () => {
  after(() => {
    for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    for (const p of pidsToKill) if (running(p)) process.kill(p, "SIGKILL");
  });

  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    test(`${sig} to the npm start process stops npm, the service and its nats-server, and removes the store`, async () => {
      const s = await npmStart();
      const t0 = Date.now();
      s.npm.kill(sig);
      const tookMs = await allGone([s.npm.pid!, s.service, s.server], s.dir, t0, STOP_MS, `everything stopped after ${sig}\n${s.output()}`);
      const exit = await s.exited;
      console.log(`MEASURED npm_start signal=${sig} all_gone_ms=${tookMs} npm_exit_ms=${exit.at - t0}`);
      assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, `npm's own exit\n${s.output()}`);
      assert.match(s.output(), /"msg":"stopped cleanly"/, "the service stopped gracefully");
    });
  }

  test("SIGKILL of the service: its nats-server stops and the store is removed all the same", async () => {
    const s = await npmStart();
    const t0 = Date.now();
    process.kill(s.service, "SIGKILL");
    const tookMs = await allGone([s.service, s.server], s.dir, t0, WATCHDOG_MS + 2000, `the watchdog stopped the server\n${s.output()}`);
    await s.exited;
    console.log(`MEASURED npm_start service_sigkill server_gone_ms=${tookMs}`);
  });

  test("SIGKILL of npm: the service notices, stops gracefully and stops its nats-server", async () => {
    const s = await npmStart();
    const t0 = Date.now();
    s.npm.kill("SIGKILL");
    const tookMs = await allGone([s.service, s.server], s.dir, t0, STOP_MS, `the service stopped by itself\n${s.output()}`);
    console.log(`MEASURED npm_start npm_sigkill all_gone_ms=${tookMs}`);
    assert.match(s.output(), /"reason":"the process that started it exited"/, "it stopped because its parent was gone");
  });
});
