import { test } from "node:test";
import assert from "node:assert/strict";
import { Subject } from "rxjs";
import { Projection } from "../../src/projections/projection.js";
import { needsSpec } from "../../src/projections/bucket-specs.js";
import { memoryLogger } from "../../src/log.js";
import type { WatchEvent } from "../../src/streams/kv-watch.js";

const enc = new TextEncoder();
const put = (key: string, revision: number, v: string): WatchEvent => ({
  type: "entry",
  entry: { operation: "PUT", key, revision, value: enc.encode(JSON.stringify(v)) },
});
const valueOf = (p: Projection, key: string): unknown => (JSON.parse(p.store.get(key)?.json ?? "null") as { value?: unknown } | null)?.value;

test("a resumed watch's entries are held until it has caught up, so the projection never shows a state the bucket never had", () => {
  const watch = new Subject<WatchEvent>();
  const p = new Projection(needsSpec, memoryLogger("error").log);
  p.connect(watch);
  watch.next(put("n3.db.secret.b", 10, "old"));
  watch.next(put("n3.db.config.a", 11, "a1"));
  watch.next({ type: "synced", lastSeq: 11 });
  assert.equal(p.revision, 11);

  // Meanwhile in the bucket: 12 wrote secret.b, 13 wrote config.a, 14 wrote secret.b again (12 is gone from the stream).
  // Resumed from 11, the consumer delivers 13, then 14.
  watch.next({ type: "resuming", reason: "the connection came back", fromRevision: 11 });
  watch.next(put("n3.db.config.a", 13, "a2"));
  // Applied now, the projection would stand at 13 with secret.b still "old": the bucket at 13 held secret.b's write of 12.
  assert.equal(p.revision, 11, "the revision stays where the bucket's state is known");
  assert.equal(valueOf(p, "n3.db.config.a"), "a1");
  assert.equal(p.received, 13, "the stall check sees the watch moving");
  watch.next(put("n3.db.secret.b", 14, "new"));
  watch.next({ type: "synced", lastSeq: 14 });
  assert.equal(p.revision, 14);
  assert.equal(valueOf(p, "n3.db.secret.b"), "new");
  assert.equal(valueOf(p, "n3.db.config.a"), "a2");
});

/** A projection synced at 5 whose watch resumed and delivered a write of 7 it now holds. */
function holdingAfterResume(): { watch: Subject<WatchEvent>; p: Projection } {
  const watch = new Subject<WatchEvent>();
  const p = new Projection(needsSpec, memoryLogger("error").log);
  p.connect(watch);
  watch.next(put("n1.web.config.a", 5, "x"));
  watch.next({ type: "synced", lastSeq: 5 });
  watch.next({ type: "resuming", reason: "cut", fromRevision: 5 });
  watch.next(put("n1.web.config.a", 7, "y"));
  return { watch, p };
}

test("a second resume while holding keeps what it holds and goes on after it, so a slow catch-up still finishes", () => {
  const { watch, p } = holdingAfterResume();
  watch.next({ type: "resuming", reason: "the watch stalled", fromRevision: 7 });
  assert.equal(p.received, 7, "the next consumer starts after what is held");
  assert.equal(p.revision, 5);
  watch.next(put("n1.web.config.b", 8, "z"));
  watch.next({ type: "synced", lastSeq: 8 });
  assert.equal(p.revision, 8);
  assert.deepEqual(p.store.entryKeys(), ["n1.web.config.a", "n1.web.config.b"]);
  assert.equal(valueOf(p, "n1.web.config.a"), "y");
});

test("a rebuild from a fresh snapshot drops what was held: the snapshot has every key's last write", () => {
  const { watch, p } = holdingAfterResume();
  watch.next({ type: "rebuilding", fromRevision: 7, firstSeq: 20 });
  watch.next(put("n1.web.config.a", 21, "w"));
  watch.next({ type: "synced", lastSeq: 21 });
  assert.equal(p.revision, 21);
  assert.equal(valueOf(p, "n1.web.config.a"), "w");
});

test("before the first sync, entries are applied as they come (nothing is answered yet)", () => {
  const watch = new Subject<WatchEvent>();
  const p = new Projection(needsSpec, memoryLogger("error").log);
  p.connect(watch);
  watch.next({ type: "resuming", reason: "retry after: timeout", fromRevision: 0 });
  watch.next(put("n1.web.config.a", 3, "x"));
  assert.equal(p.revision, 3);
});
