import { afterEach, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Objm } from "@nats-io/obj";
import { jetstream } from "@nats-io/jetstream";
import { connectTo, FAST, startStack, type Stack } from "../helpers/stack.js";
import { startProvisioner } from "../../src/main.js";
import { allPages, put, until } from "../helpers/verb-pages.js";
import { BUCKETS, CHECKPOINT_BUCKET, streamName } from "mesh-provisioner-client/keys";
import type { CheckpointCounts } from "mesh-provisioner-client/protocol/stats.js";

/**
 * Starts from a checkpoint on a real server: a checkpoint that describes the
 * bucket seeds the projection, which then reads only what came after it;
 * every way a checkpoint can fail to describe the bucket makes the start
 * read the bucket whole, and the answers are those of a full read.
 */
const NEEDS_STREAM = streamName(BUCKETS.needs);
/** A schedule no test lives to see: checkpoints are written at a graceful stop only. */
const SCHEDULE_NEVER_DUE = 3_600_000;
const run = promisify(execFile);
const BIN = new URL("../../../bin/mesh-provisioner", import.meta.url).pathname;
const key = (i: number): string => `n${i % 4}.web.config.k${i}`;

async function needsKeys(stack: Stack): Promise<string[]> {
  const pages = await allPages(stack, { what: "needs", limit: 1000 });
  return pages.flatMap((p) => p.body.entries.map((e: { key: string }) => e.key)).sort();
}

function startOf(stack: Stack): CheckpointCounts | undefined {
  return stack.provisioner.checkpoints.snapshot()["needs"];
}

/** Stop the service (as the holder: its graceful stop writes the checkpoints), and say at which revision the needs' was written. */
async function stopWritingCheckpoint(stack: Stack): Promise<number> {
  const before = await stack.lastSeq("needs");
  await stack.stopService();
  const written = stack.provisioner.checkpoints.snapshot()["needs"];
  assert.equal(written?.lastRevision, before, "the holder's graceful stop wrote the needs' checkpoint at the bucket's last revision");
  return before;
}

describe("starting from a checkpoint", () => {
  let stack: Stack;
  beforeEach(async () => {
    stack = await startStack({ checkpointEveryMs: SCHEDULE_NEVER_DUE });
    const kv = await stack.kv("needs");
    for (let i = 0; i < 40; i++) await put(kv, key(i), JSON.stringify({ i }));
  });
  afterEach(async () => {
    await stack?.stop();
  });

  test("a first start finds no checkpoint and reads the bucket whole", () => {
    assert.equal(startOf(stack)?.start, "full");
    assert.equal(startOf(stack)?.reason, "missing");
  });

  test("a restart loads the checkpoint, reads only the writes after it, and answers as a full read would", async () => {
    const revision = await stopWritingCheckpoint(stack);
    const kv = await stack.kv("needs");
    // Writes while no instance runs: a put, an overwrite, deletes (a node bucket refuses a purge, a roll-up).
    await put(kv, key(100), JSON.stringify({ late: true }));
    await put(kv, key(1), JSON.stringify({ overwritten: true }));
    await kv.delete(key(2));
    await kv.delete(key(3));
    await stack.restartService({ checkpointEveryMs: SCHEDULE_NEVER_DUE });
    const c = startOf(stack);
    assert.equal(c?.start, "checkpoint", JSON.stringify(c));
    assert.equal(c?.loadedRevision, revision);
    const expected = [...Array.from({ length: 40 }, (_, i) => key(i)).filter((k) => k !== key(2) && k !== key(3)), key(100)].sort();
    assert.deepEqual(await needsKeys(stack), expected);
    const r = await stack.ask({ what: "needs", node: "n1" });
    assert.deepEqual(r.body.entries.find((e: { key: string }) => e.key === key(1))?.value, { overwritten: true });
    // The operator's check of the projections against the buckets finds nothing to say.
    const { stdout } = await run("node", [BIN, "verify", "--json", "--attempts", "1", "--server", stack.server.url], { timeout: 30_000 });
    assert.deepEqual(JSON.parse(stdout).differences, []);
  });

  test("a key deleted after the checkpoint whose delete marker was then purged does not survive: the count sends the start to a full read", async () => {
    await stopWritingCheckpoint(stack);
    const kv = await stack.kv("needs");
    await kv.delete(key(5));
    await stack.jsm.streams.purge(NEEDS_STREAM, { filter: `$KV.${BUCKETS.needs}.${key(5)}` });
    await stack.restartService({ checkpointEveryMs: SCHEDULE_NEVER_DUE });
    assert.equal(startOf(stack)?.start, "full");
    assert.equal(startOf(stack)?.reason, "count");
    assert.ok(!(await needsKeys(stack)).includes(key(5)), "the purged key is gone");
    assert.equal((await needsKeys(stack)).length, 39);
  });

  test("a checkpoint of a stream that was deleted and made again is not used", async () => {
    await stopWritingCheckpoint(stack);
    await stack.jsm.streams.delete(NEEDS_STREAM);
    // The service makes the missing bucket again at its start: a new stream, empty.
    await stack.restartService({ checkpointEveryMs: SCHEDULE_NEVER_DUE });
    assert.equal(startOf(stack)?.reason, "recreated");
    assert.deepEqual(await needsKeys(stack), []);
  });

  test("a corrupt checkpoint is refused and the bucket read whole", async () => {
    await stopWritingCheckpoint(stack);
    const os = await new Objm(jetstream(stack.client)).open(CHECKPOINT_BUCKET);
    const good = (await os.getBlob("needs")) as Uint8Array;
    const bad = Uint8Array.from(good);
    const at = Math.floor(bad.length / 2);
    bad[at] = (bad[at] as number) ^ 0xff;
    await os.putBlob({ name: "needs" }, bad);
    await stack.restartService({ checkpointEveryMs: SCHEDULE_NEVER_DUE });
    assert.equal(startOf(stack)?.start, "full");
    assert.equal(startOf(stack)?.reason, "corrupt");
    assert.equal((await needsKeys(stack)).length, 40);
  });

  test("a truncated checkpoint is refused", async () => {
    await stopWritingCheckpoint(stack);
    const os = await new Objm(jetstream(stack.client)).open(CHECKPOINT_BUCKET);
    const good = (await os.getBlob("needs")) as Uint8Array;
    await os.putBlob({ name: "needs" }, good.subarray(0, good.length - 7));
    await stack.restartService({ checkpointEveryMs: SCHEDULE_NEVER_DUE });
    assert.equal(startOf(stack)?.reason, "corrupt");
    assert.equal((await needsKeys(stack)).length, 40);
  });

  test("a checkpoint taken under other retention settings is refused", async () => {
    await stopWritingCheckpoint(stack);
    const si = await stack.jsm.streams.info(NEEDS_STREAM);
    await stack.jsm.streams.update(NEEDS_STREAM, { ...si.config, max_age: 3_600_000_000_000 });
    await stack.restartService({ checkpointEveryMs: SCHEDULE_NEVER_DUE });
    assert.equal(startOf(stack)?.reason, "settings");
    assert.equal((await needsKeys(stack)).length, 40);
  });

  test("a checkpoint whose every key was written twice since is not replayed: the stream starts past its revision + 1", async () => {
    await stopWritingCheckpoint(stack);
    const kv = await stack.kv("needs");
    for (const round of [1, 2]) for (let i = 0; i < 40; i++) await put(kv, key(i), JSON.stringify({ again: i, round }));
    await stack.restartService({ checkpointEveryMs: SCHEDULE_NEVER_DUE });
    assert.equal(startOf(stack)?.reason, "history-gone");
    const r = await stack.ask({ what: "needs", node: "n0" });
    assert.deepEqual(r.body.entries[0].value, { again: 0, round: 2 });
  });

  test("the holder writes checkpoints on its schedule, and a standby never does", async () => {
    await stack.stopService();
    await stack.restartService({ checkpointEveryMs: 100 });
    const standbyNc = await connectTo(stack.server);
    const standby = await startProvisioner(standbyNc, { ...FAST, checkpointEveryMs: 100 }, stack.log);
    try {
      await standby.synced;
      const kv = await stack.kv("needs");
      await put(kv, key(200), "{}");
      const last = await stack.lastSeq("needs");
      await until(() => ((startOf(stack)?.lastRevision ?? 0) >= last ? true : undefined), 10_000, "the holder's scheduled checkpoint");
      assert.ok(stack.provisioner.seat.isHolder);
      assert.ok(!standby.seat.isHolder);
      assert.equal(standby.checkpoints.snapshot()["needs"]?.written ?? 0, 0, "the standby wrote a checkpoint");
    } finally {
      await standby.stop();
      await standbyNc.close();
    }
  });
});
