/**
 * `npm start -- --demo` as a newcomer runs it: the embedded command as a child
 * process, its banner read from stdout, the dashboard's /healthz and the verb
 * asked at the addresses it prints, SIGUSR2 writes its dump as under `serve`,
 * then Ctrl-C (SIGINT) stops it and its private nats-server.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { fileURLToPath } from "node:url";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { eventually } from "../helpers/eventually.js";
import { ProvisionerClient } from "mesh-provisioner-client";
import { DEMO_MESH } from "../../src/cli/demo.js";

// dist/test/integration/ -> the repository's root and dist/src/cli/embedded.js
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const EMBEDDED = fileURLToPath(new URL("../../src/cli/embedded.js", import.meta.url));

interface Embedded {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startEmbedded(args: string[]): Embedded {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("NATS_") && k !== "NATS_SERVER_BIN") delete env[k];
  const child = spawn(process.execPath, [EMBEDDED, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Wait up to `ms` for the exit; undefined if it did not come. */
async function exitWithin(e: Embedded, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined> {
  if (e.child.exitCode !== null || e.child.signalCode !== null) return { code: e.child.exitCode, signal: e.child.signalCode };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
  try {
    return await Promise.race([e.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Pids of processes whose command line names `configFile` (the private nats-server started with `-c <it>`). */
function pidsRunning(configFile: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").includes(configFile)) pids.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function tcpAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host: "127.0.0.1", port }, () => (sock.destroy(), resolve(true)));
    sock.once("error", () => resolve(false));
    sock.setTimeout(1000, () => (sock.destroy(), resolve(false)));
  });
}

describe("npm start -- --demo", () => {
  let embedded: Embedded;
  let client: NatsConnection | undefined;
  let dashboard: string;
  let natsUrl: string;
  let storeDir: string;

  before(async () => {
    embedded = startEmbedded(["--demo"]);
    await eventually(
      () => {
        if (embedded.child.exitCode !== null) throw new Error(`it exited with ${embedded.child.exitCode}: ${embedded.stderr().slice(-2000)}`);
        assert.match(embedded.stdout(), /Press Ctrl-C/);
      },
      { timeoutMs: 30_000, intervalMs: 50, message: "npm start -- --demo printed no banner" },
    );
    const out = embedded.stdout();
    dashboard = /^The dashboard: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out)?.[1] ?? assert.fail(`no dashboard address in:\n${out}`);
    const served = /private nats-server at (nats:\/\/\S+) \(store (\S+)\)\./.exec(out) ?? assert.fail(`no NATS URL in:\n${out}`);
    natsUrl = served[1] as string;
    storeDir = served[2] as string;
    client = await connect({ servers: natsUrl });
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    if (!embedded) return;
    // Ctrl-C as a terminal sends it; if it does not stop, kill it and the nats-server it started.
    embedded.child.kill("SIGINT");
    if ((await exitWithin(embedded, 10_000)) === undefined) {
      embedded.child.kill("SIGKILL");
      await exitWithin(embedded, 5_000);
    }
    if (storeDir !== undefined) {
      for (const pid of pidsRunning(storeDir.replace(/\/store$/, "/nats-server.conf"))) process.kill(pid, "SIGKILL");
    }
  });

  test("the banner says the demo mesh was loaded", () => {
    assert.match(embedded.stdout(), /demo mesh is loaded: 4 nodes/);
  });

  test("the dashboard's address it prints answers /healthz with 200", async () => {
    const res = await fetch(`${dashboard}healthz`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });

  test("the verb at the NATS URL it prints answers with the demo's needs and its key out of shape", async () => {
    const nc = client!;
    await eventually(
      async () => {
        const needs = await new ProvisionerClient(nc).page({ what: "needs" });
        assert.equal(needs.entries.length, Object.keys(DEMO_MESH.needs).length);
        assert.deepEqual(
          needs.outOfShape.map((o) => o.key),
          Object.keys(DEMO_MESH.outOfShape),
        );
        assert.equal((await new ProvisionerClient(nc).page({ what: "applied" })).entries.length, Object.keys(DEMO_MESH.applied).length);
        assert.equal((await new ProvisionerClient(nc).page({ what: "collect" })).entries.length, Object.keys(DEMO_MESH.collect).length);
      },
      { timeoutMs: 10_000, message: "the service did not answer with the demo mesh" },
    );
    const needs = await new ProvisionerClient(nc).page({ what: "needs" });
    const kinds = new Set(needs.entries.map((e) => String(e["kind"])));
    assert.ok(kinds.has("tracing"), "the unanswered kind is among the needs");
    assert.ok(kinds.size >= 5, `needs of several kinds, got ${[...kinds].join(", ")}`);
    const collections = new Set((await new ProvisionerClient(nc).page({ what: "collect" })).entries.map((e) => String(e["collection"])));
    assert.deepEqual([...collections].sort(), ["shell", "ssh keys"]);
  });

  test("SIGUSR2 writes the instance's own dump, as serve does, and it keeps running", async () => {
    const wrote = (): { path?: string } | undefined =>
      embedded
        .stderr()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { msg?: string; path?: string })
        .find((l) => l.msg === "SIGUSR2: wrote this instance's dump");
    assert.equal(wrote(), undefined, "no dump before the signal");
    embedded.child.kill("SIGUSR2");
    await eventually(() => assert.ok(wrote()?.path), { timeoutMs: 10_000, message: 'no "SIGUSR2: wrote this instance\'s dump" line' });
    const path = String(wrote()?.path);
    try {
      const doc = JSON.parse(readFileSync(path, "utf8")) as { source: string; buckets: Record<string, { entries: unknown[]; outOfShape: { key: string }[] }> };
      assert.match(doc.source, /^instance /);
      assert.equal(doc.buckets["needs"]?.entries.length, Object.keys(DEMO_MESH.needs).length);
      assert.deepEqual(
        doc.buckets["needs"]?.outOfShape.map((o) => o.key),
        Object.keys(DEMO_MESH.outOfShape),
      );
    } finally {
      rmSync(path, { force: true });
    }
    assert.equal(await exitWithin(embedded, 500), undefined, "npm start's process is still running after SIGUSR2");
    const res = await fetch(`${dashboard}healthz`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });

  test("Ctrl-C stops it with status 0, and its nats-server with it", async () => {
    await client?.close();
    client = undefined;
    const port = Number(new URL(natsUrl.replace(/^nats:/, "http:")).port);
    embedded.child.kill("SIGINT");
    const exit = await exitWithin(embedded, 10_000);
    assert.deepEqual(exit, { code: 0, signal: null }, `it did not stop cleanly; stderr:\n${embedded.stderr().slice(-2000)}`);
    assert.equal(await tcpAccepts(port), false, "the private nats-server still accepts connections");
    assert.equal(existsSync(storeDir), false, "the private store was not removed");
  });
});

describe("npm start with an argument it does not know", () => {
  test("says so on stderr and exits 2 without starting anything", async () => {
    const e = startEmbedded(["--bogus"]);
    const exit = await exitWithin(e, 10_000);
    if (exit === undefined) e.child.kill("SIGKILL");
    assert.deepEqual(exit, { code: 2, signal: null });
    assert.match(e.stderr(), /unknown option '--bogus'/);
    assert.equal(e.stdout(), "");
  });
});
