import { test } from "node:test";
import assert from "node:assert/strict";
import type { StreamInfo } from "@nats-io/jetstream";
import { refuseCheckpoint, streamIdentity } from "../../src/checkpoints/stream-identity.js";
import { compareCounts } from "../../src/checkpoints/prove.js";
import { isDue, QUIET_PERIODS } from "../../src/checkpoints/writer.js";
import { CountTally } from "../../src/projections/count-tally.js";

function info(over: { created?: string; first?: number; last?: number; perKey?: number; maxAge?: number } = {}): StreamInfo {
  return {
    created: over.created ?? "2026-12-03T10:00:00.123456789Z",
    config: { name: "KV_x", subjects: ["$KV.x.>"], max_msgs_per_subject: over.perKey ?? 1, max_age: over.maxAge ?? 0, discard: "new", retention: "limits" },
    state: { first_seq: over.first ?? 1, last_seq: over.last ?? 100, messages: 50 },
  } as unknown as StreamInfo;
}

test("a checkpoint of the same stream, at or below its last sequence, with the history to replay, may be used", () => {
  assert.equal(refuseCheckpoint(streamIdentity(info()), 100, info()), undefined);
  assert.equal(refuseCheckpoint(streamIdentity(info()), 60, info({ first: 61 })), undefined);
});

test("each way a checkpoint does not describe the stream is refused with its reason", () => {
  const id = streamIdentity(info());
  assert.equal(refuseCheckpoint(id, 50, info({ created: "2026-12-03T11:00:00Z" }))?.reason, "recreated");
  assert.equal(refuseCheckpoint(id, 50, info({ maxAge: 1e9 }))?.reason, "settings");
  assert.equal(refuseCheckpoint(id, 101, info())?.reason, "ahead");
  assert.equal(refuseCheckpoint(id, 50, info({ first: 52 }))?.reason, "history-gone");
  const kept = streamIdentity(info({ perKey: 5 }));
  assert.equal(refuseCheckpoint(kept, 50, info({ perKey: 5 }))?.reason, "history-kept");
});

test("a projection holding more keys than the stream has messages saw a removal; fewer is a race a later count settles", () => {
  assert.equal(compareCounts(10, 10), "equal");
  assert.equal(compareCounts(11, 10), "more");
  assert.equal(compareCounts(9, 10), "fewer");
});

test("the count tally answers the count after the last revision at or below the one asked", () => {
  const t = new CountTally(100, 7);
  t.record(103, 8);
  t.record(103, 9);
  t.record(110, 10);
  assert.equal(t.at(99), undefined);
  assert.equal(t.at(100), 7);
  assert.equal(t.at(102), 7);
  assert.equal(t.at(103), 9);
  assert.equal(t.at(109), 9);
  assert.equal(t.at(1e9), 10);
  for (let r = 111; r < 2000; r++) t.record(r, r);
  assert.equal(t.at(1500), 1500);
});

test("a checkpoint is due when enough changed, or when a little changed for long enough, never when nothing did", () => {
  const every = 60_000;
  assert.equal(isDue(0, 0, undefined, 0, every), false);
  assert.equal(isDue(5, 5, undefined, 0, every), true);
  const last = { revision: 1000, at: 0 };
  assert.equal(isDue(1000, 10_000, last, 10 * every, every), false, "unchanged");
  assert.equal(isDue(1100, 10_000, last, every, every), true, "1 % of the entries changed");
  assert.equal(isDue(1010, 10_000, last, every, every), false, "little changed, recently written");
  assert.equal(isDue(1010, 10_000, last, QUIET_PERIODS * every, every), true, "little changed, long ago");
});
