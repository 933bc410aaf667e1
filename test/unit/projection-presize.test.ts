import { test } from "node:test";
import assert from "node:assert/strict";
import { Subject } from "rxjs";
import { Projection } from "../../src/projections/projection.js";
import { needsSpec } from "../../src/projections/bucket-specs.js";
import { memoryLogger } from "../../src/log.js";
import type { WatchEvent } from "../../src/streams/kv-watch.js";
import { writableStore } from "../helpers/writable-store.js";

const enc = new TextEncoder();
const put = (key: string, revision: number): WatchEvent => ({ type: "entry", entry: { operation: "PUT", key, revision, value: enc.encode("1") } });

test("a first snapshot's size takes room in the store before its first entry; a resume's count takes none", () => {
  const watch = new Subject<WatchEvent>();
  const p = new Projection(needsSpec, memoryLogger("error").log);
  p.connect(watch);
  const store = writableStore(p.store);
  const before = store.capacity;
  watch.next({ type: "pending", count: 50_000 });
  assert.ok(store.capacity >= 50_000, `room for the snapshot (capacity ${store.capacity}, was ${before})`);
  const room = store.capacity;
  watch.next(put("n1.web.config.a", 1));
  watch.next({ type: "synced", lastSeq: 1 });
  assert.equal(p.store.size, 1);

  // After the first sync a resume's pending count is mostly updates of keys it holds: no room is taken for it.
  watch.next({ type: "resuming", reason: "cut", fromRevision: 1 });
  watch.next({ type: "pending", count: 200_000 });
  assert.equal(store.capacity, room);
});
