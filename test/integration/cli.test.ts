import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm } from "@nats-io/kv";
import { connectTo } from "../helpers/stack.js";
import { until } from "../helpers/verb-pages.js";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { BUCKETS } from "mesh-provisioner-client/keys";
import { killAll, run, start, type Running } from "../helpers/cli-run.js";
import { CONNECTION_SETTINGS, SERVE_SETTINGS } from "../../src/defaults.js";
import { ExitCodes } from "../../src/cli/exit-codes.js";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const KINDS = ["access", "bound", "collected", "config", "consumers", "contribution", "dir", "environment", "machine", "port", "seat", "secret", "shell"];

const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`a stderr line is not JSON: ${l}`);
      }
    });

describe("the command line, as a user runs it", () => {
  let server: RunningNatsServer;
  let env: NodeJS.ProcessEnv;
  let serve: Running;
  let client: NatsConnection;
  let lastNeeds = 0;

  before(async () => {
    server = await startNatsServer();
    // NATS_URL points at the private server so that nothing can reach a server on 4222.
    env = { ...process.env, NATS_URL: server.url };
    delete env["LOG_LEVEL"];
    delete env["NATS_CREDS"];
    serve = start(["serve", "--server", server.url], env);
    await until(
      () => (jsonLines(serve.stderr()).some((l) => l["msg"] === "all projections synced: answering from them") ? true : undefined),
      15_000,
      `serve syncing (stderr so far: ${serve.stderr().slice(-2000)})`,
    );
    client = await connectTo(server);
    const kv = await new Kvm(client).open(BUCKETS.needs);
    await kv.put("n1.web.config.port", '{"default":8080}');
    await kv.put("n1.web.weird.x", "not json");
    lastNeeds = await kv.put("n2.web.config.port", "9090");
  });
  after(async () => {
    killAll();
    await client?.close();
    await server?.stop();
  });

  test("serve logs JSON lines on stderr, from the very process that was started", () => {
    const lines = jsonLines(serve.stderr());
    assert.ok(lines.length >= 2);
    for (const l of lines) {
      assert.equal(typeof l["level"], "string");
      assert.equal(typeof l["msg"], "string");
      assert.equal(typeof l["time"], "string");
    }
    const starting = lines.find((l) => l["msg"] === "starting mesh-provisioner");
    assert.ok(starting, "a start line");
    assert.equal(starting["pid"], serve.child.pid, "no forked child: the pid logged is the pid started");
    assert.equal(serve.stdout(), "");
  });

  test("query registry prints a table of the 13 kinds", async () => {
    const r = await run(["query", "registry"], env);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split("\n");
    const header = lines.findIndex((l) => /^KIND\s+MODULE/.test(l));
    assert.ok(header >= 0, r.stdout);
    const rows: string[] = [];
    for (const l of lines.slice(header + 1)) {
      if (l.trim() === "") break;
      rows.push(l.split(/\s+/)[0] as string);
    }
    assert.deepEqual(rows, KINDS);
    assert.match(r.stdout, /mesh-vault\.secret/);
  });

  test("query needs --node n1 --json prints the merged answer of n1 only", async () => {
    const r = await run(["query", "needs", "--node", "n1", "--json", "--min-revision", String(lastNeeds)], env);
    assert.equal(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout) as { what: string; revision: number; entries: Record<string, unknown>[]; outOfShape: unknown[]; next?: string };
    assert.equal(answer.what, "needs");
    assert.ok(answer.revision >= lastNeeds);
    assert.deepEqual(answer.outOfShape, []);
    assert.equal(answer.next, undefined);
    assert.deepEqual(
      answer.entries.map((e) => [e["key"], e["value"], e["answered"]]),
      [
        ["n1.web.config.port", { default: 8080 }, undefined],
        ["n1.web.weird.x", "not json", false],
      ],
    );
  });

  test("query with a small --limit follows next to the end", async () => {
    const r = await run(["query", "registry", "--limit", "2", "--json"], env);
    assert.equal(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout) as { entries: { kind: string }[] };
    assert.deepEqual(
      answer.entries.map((e) => e.kind),
      KINDS,
    );
  });

  test("query bogus exits non-zero naming what it was given", async () => {
    const r = await run(["query", "bogus"], env);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /bogus/);
    assert.equal(r.stdout, "");
  });

  test("serve --server nats://127.0.0.1:1 (unreachable) exits non-zero with a clear message", async () => {
    const r = await run(["serve", "--server", "nats://127.0.0.1:1"], env, 20_000);
    assert.equal(r.signal, null, "it exits by itself");
    assert.notEqual(r.code, 0);
    assert.equal(r.code, 3, "3: the server cannot be reached");
    assert.match(r.stderr, /cannot connect to NATS at nats:\/\/127\.0\.0\.1:1/);
  });

  test("serve --registry-interval nonsense exits non-zero naming the flag", async () => {
    const r = await run(["serve", "--registry-interval", "nonsense"], env);
    assert.notEqual(r.code, 0);
    assert.equal(r.code, 2, "2: a bad flag");
    assert.match(r.stderr, /--registry-interval/);
    assert.match(r.stderr, /nonsense/);
  });

  test("query --timeout takes a duration, and a bare number still as milliseconds", async () => {
    for (const timeout of ["2s", "1500ms", "2000"]) {
      const r = await run(["query", "registry", "--timeout", timeout, "--json"], env);
      assert.equal(r.code, 0, `--timeout ${timeout}: ${r.stderr}`);
      assert.equal((JSON.parse(r.stdout) as { what: string }).what, "registry");
    }
  });

  test("query needs --node a.b, where an instance answers: exit 2 naming the flag, not the verb's 400", async () => {
    const r = await run(["query", "needs", "--node", "a.b"], env);
    assert.equal(r.code, ExitCodes.CONFIG, r.stderr);
    assert.deepEqual(r.stderr.split("\n"), [
      'mesh-provisioner: --node "a.b": node must be a plain token: only A-Z a-z 0-9 - _ / = (no "*", ">", ".", spaces, and not empty) [E_CONFIG]',
      "",
    ]);
  });

  test("dump --out a path that cannot be written: exit 2, one line naming the path and why, before asking", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dump-out-"));
    try {
      for (const [out, why] of [
        [join(dir, "missing", "dump.json"), `its directory ${join(dir, "missing")} does not exist`],
        [dir, "it is a directory"],
      ] as const) {
        const r = await run(["dump", "--out", out], env);
        assert.equal(r.code, ExitCodes.CONFIG, r.stderr);
        assert.deepEqual(r.stderr.split("\n"), [`mesh-provisioner: --out ${JSON.stringify(out)} cannot be written: ${why} [E_CONFIG]`, ""]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("SIGTERM makes serve stop cleanly and exit 0 within a few seconds", async () => {
    const t0 = Date.now();
    serve.child.kill("SIGTERM");
    const timer = setTimeout(() => serve.child.kill("SIGKILL"), 10_000);
    const r = await serve.exited;
    clearTimeout(timer);
    const took = Date.now() - t0;
    assert.equal(r.signal, null, "it exits by itself, not by the signal's default action");
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    assert.ok(took < 5000, `took ${took} ms`);
    assert.ok(jsonLines(r.stderr).some((l) => l["msg"] === "stopped cleanly"));
  });
});

describe("configuration from the environment, as an operator hands it in", () => {
  /** The test's own environment without any setting of the service's, and NATS_URL at a port nobody listens on. */
  const clean = (extra: Record<string, string>): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(NATS_|MESH_PROVISIONER_|LOG_LEVEL$)/.test(k)) env[k] = v;
    return { ...env, NATS_URL: "nats://127.0.0.1:1", ...extra };
  };
  /** stderr's lines that are not the logger's JSON lines. */
  const plainLines = (stderr: string): string[] =>
    stderr.split("\n").filter((l) => {
      if (l.trim() === "") return false;
      try {
        JSON.parse(l);
        return false;
      } catch {
        return true;
      }
    });

  after(() => killAll());

  test("serve --help lists every flag with its environment variable", async () => {
    const r = await run(["serve", "--help"], clean({}));
    assert.equal(r.code, 0, r.stderr);
    const help = r.stdout.replace(/\s+/g, " ");
    for (const s of [...CONNECTION_SETTINGS, ...SERVE_SETTINGS]) {
      assert.ok(help.includes(`${s.flag} ${s.value}`), `${s.flag} in the help`);
      assert.ok(help.includes(`env ${s.env}`), `${s.env} in the help`);
    }
    assert.match(help, /env MESH_PROVISIONER_LOG_LEVEL, then LOG_LEVEL/);
  });

  test("the environment's values reach serve, and a flag wins over its variable", async () => {
    const r = await run(
      ["serve", "--seat-ttl", "3s"],
      clean({ MESH_PROVISIONER_SEAT_TTL: "7s", MESH_PROVISIONER_REGISTRY_INTERVAL: "90m", MESH_PROVISIONER_REPLICAS: "3" }),
    );
    assert.equal(r.code, 3, `the server at port 1 cannot be reached: ${r.stderr}`);
    const starting = jsonLines(
      r.stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .join("\n"),
    ).find((l) => l["msg"] === "starting mesh-provisioner");
    assert.ok(starting, r.stderr);
    assert.equal(starting["seatTtl"], "3s", "the flag wins");
    assert.equal(starting["registryInterval"], "90m", "MESH_PROVISIONER_REGISTRY_INTERVAL");
    assert.equal(starting["replicas"], 3, "MESH_PROVISIONER_REPLICAS");
  });

  test("a bad MESH_PROVISIONER_SEAT_TTL: exit 2, one line on stderr naming the variable, no stack trace", async () => {
    const r = await run(["serve"], clean({ MESH_PROVISIONER_SEAT_TTL: "abc" }));
    assert.equal(r.code, ExitCodes.CONFIG, r.stderr);
    assert.equal(r.stdout, "");
    assert.deepEqual(r.stderr.split("\n"), [
      'mesh-provisioner: MESH_PROVISIONER_SEAT_TTL "abc" is not a duration: write a positive number with a unit, such as 500ms, 3s, 2m or 1h [E_CONFIG]',
      "",
    ]);
  });

  test("a missing NATS_PASSWORD_FILE: exit 2, one line naming the variable and the path", async () => {
    const r = await run(["serve"], clean({ NATS_USER: "u", NATS_PASSWORD_FILE: "/nonexistent/password" }));
    assert.equal(r.code, ExitCodes.CONFIG, r.stderr);
    assert.deepEqual(r.stderr.split("\n"), [
      "mesh-provisioner: NATS_PASSWORD_FILE \"/nonexistent/password\" cannot be read: ENOENT: no such file or directory, open '/nonexistent/password' [E_CONFIG]",
      "",
    ]);
  });

  for (const [how, args, extra] of [
    ["--creds /nonexistent", ["--creds", "/nonexistent"], {}],
    ["NATS_CREDS=/nonexistent", [], { NATS_CREDS: "/nonexistent" }],
  ] as const) {
    test(`a missing credentials file (${how}): exit 2, one line naming the file, no stack trace`, async () => {
      const r = await run(["serve", ...args], clean(extra));
      assert.equal(r.signal, null, "it exits by itself");
      assert.equal(r.code, ExitCodes.CONFIG, r.stderr);
      const lines = plainLines(r.stderr);
      assert.equal(lines.length, 1, `one line besides the log's JSON lines: ${r.stderr}`);
      assert.match(lines[0] as string, /^mesh-provisioner: .*\/nonexistent.* \[E_CONFIG\]$/);
      assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
      assert.equal(r.stdout, "");
    });
  }
});

describe("the command line, tried as a careless user would: each mistake is one line and exit 2, before connecting", () => {
  /** NATS_URL at a port nobody listens on: a command that got as far as connecting would exit 3. */
  const env = (): NodeJS.ProcessEnv => {
    const e: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(NATS_|MESH_PROVISIONER_|LOG_LEVEL$)/.test(k)) e[k] = v;
    return { ...e, NATS_URL: "nats://127.0.0.1:1" };
  };
  /** stderr's lines that are not the logger's JSON lines. */
  const plain = (stderr: string): string[] => stderr.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("{"));

  after(() => killAll());

  for (const [args, line] of [
    [["serve", "--bogus"], "error: unknown option '--bogus' (see mesh-provisioner serve --help)"],
    [["query", "needs", "--bogus"], "error: unknown option '--bogus' (see mesh-provisioner query --help)"],
    [["bogus"], "error: unknown command 'bogus' (see mesh-provisioner --help)"],
  ] as const) {
    test(`${args.join(" ")}: one line and a pointer to --help, not the whole help`, async () => {
      const r = await run([...args], env());
      assert.equal(r.code, ExitCodes.CONFIG, r.stderr);
      assert.deepEqual(r.stderr.split("\n"), [line, ""]);
      assert.equal(r.stdout, "");
    });
  }

  for (const [args, said] of [
    [["query", "needs", "--node", "a.b"], /^--node "a\.b": node must be a plain token/],
    [["query", "needs", "--module", "web*"], /^--module "web\*": module must be a plain token/],
    [["query", "collect", "--contributor", ""], /^--contributor "": contributor must be a plain token/],
    [["query", "collect", "--collection", ""], /^--collection "": collection must not be empty/],
    [["query", "registry", "--module", "web"], /^--module "web": the filter "module" does not apply to registry/],
    [["query", "needs", "--limit", "0"], /^--limit "0": limit must be at least 1/],
    [["query", "needs", "--limit", "100001"], /^--limit "100001": limit must be at most 100000/],
    [["query", "applied", "--scope", "needs"], /^--scope needs: .* answers the registry and the needs only, not applied/],
    [["query", "needs", "--scope", "node:n1", "--node", "n2"], /^--scope node:n1: .* answers node n1's entries only, not node n2's/],
    [["query", "needs", "--timeout", "0"], /^--timeout "0" \(a bare number is milliseconds\) is out of range: write a duration from 100ms to 10m/],
    [["query", "needs", "--timeout", "99999h"], /^--timeout "99999h" is out of range/],
    [["verify", "--attempts", "0"], /^--attempts "0" must be a whole number from 1 to 100/],
    [["verify", "--attempts", "1000000"], /^--attempts "1000000" must be a whole number from 1 to 100/],
    [["serve", "--max-wait", "99999h"], /^--max-wait "99999h" is out of range: write a duration from 1ms to 30s/],
    [["serve", "--seat-ttl", "100ms"], /^--seat-ttl "100ms" is out of range: write a duration from 1s to 5m/],
    [["serve", "--drift-delay", "2h"], /^--drift-delay "2h" is out of range/],
    [["serve", "--registry-interval", "10ms"], /^--registry-interval "10ms" is out of range/],
    [["serve", "--checkpoint-every", "100d"], /^--checkpoint-every "100d" is out of range/],
    [["serve", "--http", "127.0.0.1:99999"], /^--http "127\.0\.0\.1:99999": port 99999 is out of range/],
    [["dump", "--out", "/nonexistent/dump.json"], /^--out "\/nonexistent\/dump\.json" cannot be written: its directory \/nonexistent does not exist/],
  ] as const) {
    test(`${args.map((a) => (a === "" ? '""' : a)).join(" ")}: exit 2, one line naming the flag`, async () => {
      const r = await run([...args], env());
      assert.equal(r.code, ExitCodes.CONFIG, r.stderr);
      const lines = plain(r.stderr);
      assert.equal(lines.length, 1, r.stderr);
      const m = /^mesh-provisioner: (.*) \[E_CONFIG\]$/.exec(lines[0] as string);
      assert.ok(m, lines[0]);
      assert.match(m[1] as string, said);
    });
  }

  test("serve --http on a port in use: exit 2 before connecting, one line naming the flag and why", async () => {
    const taken: Server = await new Promise((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => resolve(s));
    });
    try {
      const { port } = taken.address() as { port: number };
      const r = await run(["serve", "--http", `127.0.0.1:${port}`], env());
      assert.equal(r.code, ExitCodes.CONFIG, `2, not 3 from the unreachable server: ${r.stderr}`);
      assert.deepEqual(plain(r.stderr), [
        `mesh-provisioner: --http 127.0.0.1:${port}: cannot listen there: the port is in use by another process: stop it or choose another port [E_CONFIG]`,
      ]);
      assert.doesNotMatch(r.stderr, /connect/i, "it never tried to connect");
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
