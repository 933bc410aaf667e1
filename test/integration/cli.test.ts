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
