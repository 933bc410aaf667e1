import { test } from "node:test";
import assert from "node:assert/strict";
import type { StreamInfo } from "@nats-io/jetstream";
import { CheckpointWriter, SLICE_ENTRIES } from "../../src/checkpoints/writer.js";
import { CheckpointTally } from "../../src/checkpoints/tally.js";
import type { CheckpointObjects } from "../../src/checkpoints/objects.js";
import { encodeStore } from "../../src/projections/store/checkpoint/encode.js";
import { ProjectionStore } from "../../src/projections/store/store.js";
import { specFor } from "../../src/projections/bucket-specs.js";
import { KNOWN_KINDS } from "../../src/reconcile/registry.js";
import type { Projection } from "../../src/projections/projection.js";
import { memoryLogger } from "../../src/log.js";

const STREAM_INFO = {
  created: "2026-12-03T00:00:00Z",
  config: { name: "KV_mesh-provisioner_needs", max_msgs_per_subject: 1 },
  state: { first_seq: 1, last_seq: 0 },
} as unknown as StreamInfo;

/** A synced needs projection of `n` entries, as the writer reads it. */
function syncedNeeds(n: number): Projection {
  const store = new ProjectionStore(specFor("needs", KNOWN_KINDS));
  for (let i = 0; i < n; i++) store.apply("PUT", `n${i % 50}.web.config.k${i}`, i + 1, new TextEncoder().encode("{}"));
  return { isSynced: true, revision: store.revision, store } as unknown as Projection;
}

/** An object store that reads every chunk it is given, as the real one does. */
function readingObjects(): CheckpointObjects & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    async write(name, _description, chunks) {
      let bytes = 0;
      const reader = chunks.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
      }
      reads.push(name);
      return bytes;
    },
    read: async () => undefined,
    describe: async () => undefined,
  };
}

/** A writer of `entries` synced needs, over an object store that reads what it is given, and what it reports to. */
function writerOf(entries: number, opts: { isHolder?: () => boolean; everyMs?: number } = {}) {
  const tally = new CheckpointTally();
  const logger = memoryLogger();
  const objects = readingObjects();
  const writer = new CheckpointWriter({
    objects,
    projections: { needs: syncedNeeds(entries) },
    isHolder: opts.isHolder ?? (() => true),
    streamInfo: async () => STREAM_INFO,
    encode: encodeStore,
    now: Date.now,
    log: logger.log,
    tally,
    everyMs: opts.everyMs ?? 60_000,
  });
  return { writer, objects, tally, lines: logger.lines };
}

test("a seat lost while a checkpoint is written abandons that write, counted and logged, and the process goes on", async () => {
  let asks = 0;
  // Holder for the round's check and the first slices, then not.
  const { writer, objects, tally, lines } = writerOf(4 * SLICE_ENTRIES, { isHolder: () => ++asks <= 3 });
  await writer.round(true);
  assert.deepEqual(objects.reads, [], "the abandoned checkpoint was not stored");
  assert.equal(tally.snapshot()["needs"]?.failed, 1);
  assert.equal(tally.snapshot()["needs"]?.written, 0);
  const warned = lines().find((l) => String(l["msg"]).startsWith("could not write a checkpoint"));
  assert.match(String(warned?.["err"]), /seat was lost/, JSON.stringify(lines()));
});

test("with --checkpoint-every 0 a holder's graceful stop writes no checkpoint", async () => {
  const { writer, objects, tally } = writerOf(10, { everyMs: 0 });
  writer.start();
  await writer.stop(true);
  assert.deepEqual(objects.reads, []);
  assert.deepEqual(tally.snapshot(), {});
});

test("a holder's checkpoint is read whole by the object store and counted as written", async () => {
  const { writer, objects, tally } = writerOf(3 * SLICE_ENTRIES);
  await writer.round(true);
  assert.deepEqual(objects.reads, ["needs"]);
  assert.equal(tally.snapshot()["needs"]?.written, 1);
  assert.ok((tally.snapshot()["needs"]?.bytesWritten ?? 0) > 0);
});
