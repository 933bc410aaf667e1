import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm, type KV } from "@nats-io/kv";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { connectTo } from "../helpers/stack.js";
import { eventually } from "../helpers/eventually.js";
import { asAnswered } from "../helpers/verb-pages.js";
import { BIN, Fleet, type ServiceProcess } from "../helpers/processes.js";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
import { WHATS, encodeName, type What } from "mesh-provisioner-client/keys";
import { ProvisionerClient } from "mesh-provisioner-client";

interface Ran {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run `bin/mesh-provisioner <args>` to its end (SIGKILL after `ms`). */
function run(args: string[], ms = 15_000): Promise<Ran> {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("NATS_")) delete env[k];
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill("SIGKILL"), ms);
  return new Promise((resolve) => {
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

interface DumpBucket {
  bucket: string;
  revision: number;
  entries: Record<string, any>[];
  outOfShape: { key: string; reason: string }[];
}

interface Dump {
  dumpedAt: string;
  source: string;
  seat: { holder: { instance: string; host: string; pid: number; since: string } | null };
  buckets: Record<What, DumpBucket>;
}

interface Truth {
  /** Keys and values of the bucket's live entries (values as the verb answers them). */
  readonly values: Map<string, unknown>;
  readonly revisions: Map<string, number>;
  readonly lastSeq: number;
}

/** What a bucket holds, read straight from it (no service involved). */
async function readBucket(kv: KV, jsm: JetStreamManager, bucket: string): Promise<Truth> {
  const values = new Map<string, unknown>();
  const revisions = new Map<string, number>();
  for await (const k of await kv.keys()) {
    const e = await kv.get(k);
    if (e?.operation !== "PUT") continue;
    values.set(k, asAnswered(e.string()));
    revisions.set(k, e.revision);
  }
  return { values, revisions, lastSeq: (await jsm.streams.info(streamName(bucket))).state.last_seq };
}

/** An entry's key in the bucket (a registry entry is named by its kind). */
const keyOf = (w: What, e: Record<string, any>): string => (w === "registry" ? e["kind"] : e["key"]);

/** Check a dump document against the buckets as they are now. */
function checkAgainstBuckets(doc: Dump, truth: Record<What, Truth>): void {
  assert.deepEqual(Object.keys(doc.buckets).sort(), [...WHATS].sort(), "the four buckets");
  for (const w of WHATS) {
    const b = doc.buckets[w];
    const t = truth[w];
    assert.equal(b.bucket, BUCKETS[w], `bucket name of ${w}`);
    assert.equal(b.revision, t.lastSeq, `revision of ${w} is its stream's last sequence`);
    const inDump = [...b.entries.map((e) => keyOf(w, e)), ...b.outOfShape.map((o) => o.key)].sort();
    assert.deepEqual(inDump, [...t.values.keys()].sort(), `every key of ${w}, once, as an entry or out of shape`);
    for (const e of b.entries) {
      const k = keyOf(w, e);
      assert.deepEqual(e["value"], t.values.get(k), `value of ${w} ${k}`);
      assert.equal(e["revision"], t.revisions.get(k), `revision of ${w} ${k}`);
    }
  }
}

describe("dump: one JSON document of what a running instance holds", () => {
  let server: RunningNatsServer;
  let client: NatsConnection;
  let jsm: JetStreamManager;
  let fleet: Fleet;
  let serve: ServiceProcess;
  let dir: string;
  const written: string[] = [];
  const kvs = {} as Record<What, KV>;
  const truth = {} as Record<What, Truth>;
  const ESCAPED = encodeName("ssh keys/v2"); // "ssh=20keys/v2"

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "mesh-provisioner-dump-test-"));
    server = await startNatsServer();
    client = await connectTo(server);
    jsm = await jetstreamManager(client);
    fleet = new Fleet({ server: server.url });
    serve = fleet.spawn({ name: "serve-dump" });
    await serve.waitForLine((l) => l.msg.startsWith("all projections synced"), 15_000, "all projections synced");
    const kvm = new Kvm(client);
    for (const w of WHATS) kvs[w] = await kvm.open(BUCKETS[w]);

    await kvs.needs.put("n1.web.config.port", JSON.stringify({ default: 8080 }));
    await kvs.needs.put("n1.web.secret.db", JSON.stringify({ length: 32 }));
    await kvs.needs.put("n2.api.shell.path", "plain text value");
    await kvs.needs.put("n2.api.config.gone", "{}");
    await kvs.needs.delete("n2.api.config.gone"); // the revision counts the delete too
    await kvs.needs.put("n1.web.config", "three tokens: out of shape");
    await kvs.applied.put("n1.web", JSON.stringify({ at: "2024-05-01T12:00:00Z" }));
    await kvs.collect.put(`n1.${ESCAPED}.web`, "ssh-ed25519 AAAA… web@n1");
    await kvs.collect.put("n2.shell.api", "export PATH=$PATH:/opt/api/bin");
    await kvs.collect.put("n2.shell", "two tokens: out of shape");

    // The holder writes the 13 registry entries of the compiled table right after it starts.
    await eventually(async () => assert.equal((await readBucket(kvs.registry, jsm, BUCKETS.registry)).values.size, 13), {
      message: "the service did not create the registry",
    });
    for (const w of WHATS) truth[w] = await readBucket(kvs[w], jsm, BUCKETS[w]);
    // Wait until the service has applied everything (bounded): its answers reach each stream's last sequence.
    await eventually(
      async () => {
        for (const w of WHATS) assert.equal((await new ProvisionerClient(client).page({ what: w, limit: 1 })).revision, truth[w].lastSeq, w);
      },
      { timeoutMs: 10_000, message: "the service did not catch up with the buckets" },
    );
  });

  after(async () => {
    await fleet?.killAll();
    await client?.close().catch(() => undefined);
    await server?.stop();
    for (const f of written) rmSync(f, { force: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("dump --out FILE writes each bucket's name, revision (its stream's last sequence), entries and out-of-shape keys, and the seat's holder", async () => {
    const out = join(dir, "dump.json");
    const r = await run(["dump", "--server", server.url, "--out", out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "", "nothing on stdout with --out");
    assert.match(r.stderr, new RegExp(`dump written to ${out.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    const doc = JSON.parse(readFileSync(out, "utf8")) as Dump;

    checkAgainstBuckets(doc, truth);
    assert.deepEqual(
      doc.buckets.needs.outOfShape.map((o) => o.key),
      ["n1.web.config"],
    );
    assert.match(doc.buckets.needs.outOfShape[0]!.reason, /needs keys have 4 tokens/);
    assert.deepEqual(
      doc.buckets.collect.outOfShape.map((o) => o.key),
      ["n2.shell"],
    );
    assert.match(doc.buckets.collect.outOfShape[0]!.reason, /collect keys have 3 tokens/);
    assert.deepEqual(doc.buckets.registry.outOfShape, []);
    assert.deepEqual(doc.buckets.applied.outOfShape, []);

    const escaped = doc.buckets.collect.entries.find((e) => e["key"] === `n1.${ESCAPED}.web`);
    assert.ok(escaped, "the escaped collection's entry is there under its key as stored");
    assert.equal(escaped["collection"], "ssh keys/v2", "and carries the collection's decoded name");
    assert.equal(escaped["node"], "n1");
    assert.equal(escaped["contributor"], "web");
    const shell = doc.buckets.needs.entries.find((e) => e["key"] === "n2.api.shell.path");
    assert.equal(shell?.["value"], "plain text value", "a value that is not JSON is kept as a string");

    assert.ok(serve.instance, "the service logged its instance");
    assert.equal(doc.seat.holder?.instance, serve.instance, "seat.holder names the holder's instance");
    assert.equal(doc.seat.holder?.pid, serve.pid);
    assert.ok(!Number.isNaN(Date.parse(doc.dumpedAt)));
    assert.match(doc.source, /^verb at /);
  });

  test("dump without --out prints the same document as JSON on stdout", async () => {
    const r = await run(["dump", "--server", server.url]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as Dump;
    checkAgainstBuckets(doc, truth);
    assert.equal(doc.seat.holder?.instance, serve.instance);
  });

  test("SIGUSR2 makes a running serve write its own dump, logs the path, and the file holds the same four buckets", async () => {
    const from = serve.lines.length;
    serve.signal("SIGUSR2");
    const line = await serve.waitForLine((l) => l.msg.startsWith("SIGUSR2: wrote"), 10_000, "SIGUSR2: wrote …", from);
    const path = String(line.fields["path"]);
    written.push(path);
    assert.ok(path.endsWith(".json"), path);
    const doc = JSON.parse(readFileSync(path, "utf8")) as Dump;
    checkAgainstBuckets(doc, truth);
    assert.equal(doc.source, `instance ${serve.instance}`);
    assert.equal(doc.seat.holder?.instance, serve.instance);
    assert.deepEqual(
      doc.buckets.needs.outOfShape.map((o) => o.key),
      ["n1.web.config"],
    );
    assert.equal(serve.exit, undefined, "the service keeps running after the signal");

    // A second signal writes a second file: the dump is taken again, not cached.
    await kvs.applied.put("n2.api", "{}");
    truth.applied = await readBucket(kvs.applied, jsm, BUCKETS.applied);
    await eventually(async () => assert.equal((await new ProvisionerClient(client).page({ what: "applied", limit: 1 })).revision, truth.applied.lastSeq));
    const again = serve.lines.length;
    serve.signal("SIGUSR2");
    const line2 = await serve.waitForLine((l) => l.msg.startsWith("SIGUSR2: wrote"), 10_000, "the second SIGUSR2: wrote …", again);
    const path2 = String(line2.fields["path"]);
    written.push(path2);
    checkAgainstBuckets(JSON.parse(readFileSync(path2, "utf8")) as Dump, truth);
  });
});
