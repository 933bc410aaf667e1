/**
 * The registry's two ways of writing (src/reconcile/apply.ts), each against
 * the server the suite runs on: compare-and-sets on the revision the diff saw
 * (what 2.12.0 and later get), and plain writes fenced by the seat alone (what
 * older servers get). Which one a server gets is `write-mode.ts`'s, tested in
 * test/unit/write-mode.test.ts; seat.test.ts checks the service uses it.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { connectTo } from "../helpers/stack.js";
import { startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { applyOperations, isMovedOn, kvRegistryWriter, WRITER_HEADER, type RegistryWriter } from "../../src/reconcile/apply.js";
import { memoryLogger } from "../../src/log.js";

const BUCKET = "registry-writes-test";
const EXPECTED_HEADER = "Nats-Expected-Last-Subject-Sequence";
const value = (domain: string) => ({ kind: "config", module: domain, verb: `${domain}.config` });

describe("registry writes", () => {
  let server: RunningNatsServer;
  let nc: NatsConnection;
  let kv: KV;
  before(async () => {
    server = await startNatsServer();
    nc = await connectTo(server);
    kv = await new Kvm(nc).create(BUCKET, { history: 1 });
  });
  after(async () => {
    await nc?.close();
    await server?.stop();
  });

  const writer = (conditional: boolean): RegistryWriter => kvRegistryWriter(jetstream(nc), BUCKET, "inst-1", { conditional: () => conditional, kv });
  /** The headers of the last message of a key. */
  const lastHeaders = async (key: string) =>
    (await (await jetstreamManager(nc)).streams.getMessage(`KV_${BUCKET}`, { last_by_subj: `$KV.${BUCKET}.${key}` }))?.header;

  test("as compare-and-sets: an update on a revision the key has left is refused, and the key keeps the newer write", async () => {
    const w = writer(true);
    const seen = await w.put("a", value("one"), undefined);
    const newer = await kv.put("a", JSON.stringify(value("operator")));
    await assert.rejects(w.put("a", value("two"), seen), (err: unknown) => isMovedOn(err));
    assert.equal((await kv.get("a"))?.revision, newer);
    const rev = await w.put("a", value("two"), newer);
    assert.deepEqual((await kv.get("a"))?.json(), value("two"));
    const h = await lastHeaders("a");
    assert.equal(h?.get(EXPECTED_HEADER), String(newer));
    assert.equal(h?.get(WRITER_HEADER), "inst-1");
    assert.ok(rev > newer);
  });

  test("as compare-and-sets: a create is refused over a key someone put, and lands over a deleted one", async () => {
    const w = writer(true);
    await kv.put("b", JSON.stringify(value("operator")));
    await assert.rejects(w.put("b", value("mine"), undefined), (err: unknown) => isMovedOn(err));
    assert.deepEqual((await kv.get("b"))?.json(), value("operator"));
    await kv.delete("b");
    await w.put("b", value("mine"), undefined);
    assert.deepEqual((await kv.get("b"))?.json(), value("mine"));
  });

  test("as compare-and-sets: a delete on a revision the key has left is refused", async () => {
    const w = writer(true);
    const seen = await w.put("c", value("one"), undefined);
    await kv.put("c", JSON.stringify(value("operator")));
    await assert.rejects(w.delete("c", seen), (err: unknown) => isMovedOn(err));
    assert.equal((await kv.get("c"))?.operation, "PUT");
    await w.delete("c", (await kv.get("c"))!.revision);
    assert.equal((await kv.get("c"))?.operation, "DEL");
  });

  test("plain: a write from a stale view lands, and carries no expected sequence", async () => {
    const w = writer(false);
    const seen = await w.put("d", value("one"), undefined);
    await kv.put("d", JSON.stringify(value("operator")));
    await w.put("d", value("two"), seen);
    assert.deepEqual((await kv.get("d"))?.json(), value("two"));
    const h = await lastHeaders("d");
    assert.equal(h?.get(EXPECTED_HEADER), "");
    assert.equal(h?.get(WRITER_HEADER), "inst-1");
    await w.delete("d", seen);
    assert.equal((await kv.get("d"))?.operation, "DEL");
  });

  test("a refused compare-and-set is reported failed (so the loop reconciles again) and logged as a key that moved on, not as an error", async () => {
    const w = writer(true);
    const seen = await w.put("e", value("one"), undefined);
    await kv.put("e", JSON.stringify(value("operator")));
    const { log, lines } = memoryLogger("debug");
    const report = await applyOperations(w, [{ type: "update", kind: "e", value: value("two"), revision: seen }], [], log);
    assert.deepEqual(
      report.failed.map((f) => f.kind),
      ["e"],
    );
    assert.deepEqual(report.updated, []);
    const line = lines().find((l) => l.kind === "e");
    assert.equal(line?.level, "info");
    assert.match(String(line?.msg), /changed after the reconcile read it/);
  });
});
