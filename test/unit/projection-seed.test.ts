import { test } from "node:test";
import assert from "node:assert/strict";
import { Subject } from "rxjs";
import { Projection, type SeedOutcome } from "../../src/projections/projection.js";
import { needsSpec } from "../../src/projections/bucket-specs.js";
import type { ProjectionStore } from "../../src/projections/store/store.js";
import { memoryLogger } from "../../src/log.js";
import type { WatchEvent } from "../../src/streams/kv-watch.js";

const enc = new TextEncoder();
const put = (key: string, revision: number, v: string): WatchEvent => ({
  type: "entry",
  entry: { operation: "PUT", key, revision, value: enc.encode(JSON.stringify(v)) },
});
const valueOf = (p: Projection, key: string): unknown => (JSON.parse(p.store.get(key)?.json ?? "null") as { value?: unknown } | null)?.value;

/** A checkpoint at revision 3 whose load ends when `finish` is called. */
function slowCheckpoint(): { fill: (store: ProjectionStore) => Promise<void>; finish: () => void } {
  let finish = (): void => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    finish,
    fill: async (store) => {
      await done;
      store.apply("PUT", "n1.web.config.a", 1, enc.encode(JSON.stringify("a1")));
      store.apply("PUT", "n1.web.config.b", 2, enc.encode(JSON.stringify("b1")));
      store.apply("DEL", "n1.web.config.gone", 3, new Uint8Array());
    },
  };
}

test("a watch begun at a checkpoint's revision is held while the checkpoint loads, then applied over it", async () => {
  const watch = new Subject<WatchEvent>();
  const p = new Projection(needsSpec, memoryLogger("error").log);
  const caughtUp: number[] = [];
  p.caughtUp$.subscribe((r) => caughtUp.push(r));
  p.beginSeed(3);
  assert.equal(p.received, 3, "the watch starts after the checkpoint's revision");
  p.connect(watch);
  const slow = slowCheckpoint();
  const loading = p.seedFrom(slow.fill);
  watch.next({ type: "pending", count: 2 });
  watch.next(put("n1.web.config.b", 4, "b2"));
  watch.next(put("n2.web.config.c", 5, "c1"));
  watch.next({ type: "synced", lastSeq: 5 });
  assert.equal(p.store.size, 0, "nothing is applied before the checkpoint is in");
  assert.equal(p.received, 5, "the stall check sees the watch moving");
  assert.deepEqual(caughtUp, [], "not caught up before the checkpoint is in");
  assert.deepEqual(p.syncProgress, { expected: 2, received: 2, done: false, loadingCheckpoint: true }, "the progress line says it loads");

  slow.finish();
  assert.equal(await loading, "taken");
  assert.deepEqual(p.store.entryKeys(), ["n1.web.config.a", "n1.web.config.b", "n2.web.config.c"]);
  assert.equal(valueOf(p, "n1.web.config.b"), "b2");
  assert.equal(p.revision, 5);
  assert.deepEqual(caughtUp, [5], "caught up once the checkpoint and what was held are in");
  assert.equal(p.syncProgress.loadingCheckpoint, false);
  assert.equal(p.isSynced, false, "answered only once the seed is proven");
  assert.equal(p.countAt(5), 4, "three entries and a delete marker");
  p.confirmSeed();
  assert.equal(p.isSynced, true);
});

/** A projection begun from a checkpoint at revision 3, its watch connected, the checkpoint loading until `slow.finish()`. */
function loadingSeed(): { watch: Subject<WatchEvent>; p: Projection; slow: ReturnType<typeof slowCheckpoint>; loading: Promise<SeedOutcome> } {
  const watch = new Subject<WatchEvent>();
  const p = new Projection(needsSpec, memoryLogger("error").log);
  p.beginSeed(3);
  p.connect(watch);
  const slow = slowCheckpoint();
  return { watch, p, slow, loading: p.seedFrom(slow.fill) };
}

test("a checkpoint that loads before the watch catches up applies what was held and the rest as it comes", async () => {
  const { watch, p, slow, loading } = loadingSeed();
  watch.next(put("n1.web.config.a", 4, "a2"));
  slow.finish();
  assert.equal(await loading, "taken");
  assert.equal(valueOf(p, "n1.web.config.a"), "a2");
  watch.next(put("n1.web.config.b", 5, "b2"));
  watch.next({ type: "synced", lastSeq: 5 });
  assert.equal(valueOf(p, "n1.web.config.b"), "b2");
  assert.equal(p.countAt(5), 3);
});

test("a watch that must rebuild while the checkpoint loads drops the checkpoint for its fresh snapshot", async () => {
  const { watch, p, slow, loading } = loadingSeed();
  watch.next({ type: "rebuilding", fromRevision: 3, firstSeq: 9 });
  watch.next(put("n3.web.config.z", 9, "z"));
  watch.next({ type: "synced", lastSeq: 9 });
  slow.finish();
  assert.equal(await loading, "rebuilding");
  assert.deepEqual(p.store.entryKeys(), ["n3.web.config.z"], "the bucket as the snapshot read it, and nothing of the checkpoint");
  assert.equal(p.isSynced, true);
  assert.equal(p.seededAt, undefined);
});

test("a seed dropped while its checkpoint loads starts the watch again from nothing", async () => {
  const { watch, p, slow, loading } = loadingSeed();
  const restarts: string[] = [];
  p.restart$.subscribe((why) => restarts.push(why));
  watch.next(put("n1.web.config.a", 4, "a2"));
  p.dropSeed("the stream was recreated");
  assert.deepEqual(restarts, ["the stream was recreated"]);
  assert.equal(p.received, 0, "the bucket is read from its start");
  slow.finish();
  assert.equal(await loading, "dropped", "what was loaded is let go");
  assert.equal(p.store.size, 0);
});

test("a projection begins a seed only before its watch starts", () => {
  const p = new Projection(needsSpec, memoryLogger("error").log);
  p.connect(new Subject<WatchEvent>());
  assert.throws(() => p.beginSeed(3), /only before its watch starts/);
});
