/**
 * Tell an observer of everything a store holds, as if each entry were put
 * (pure): a store built aside and swapped in whole, or loaded from a
 * checkpoint. In key order, keys that share the leading tokens their bucket
 * is counted by (`BucketSpec.countedTokens`) follow each other, and each
 * such run is told as one `entriesIn`, with one key read: ten thousand
 * nodes' million needs are tens of thousands of calls, not a million.
 */
import type { StoreObserver } from "./entry.js";
import type { ByteRange, StoreView } from "./view.js";
import { sameBytes, tokensLength } from "./key-bytes.js";

const SLOTS = 1024;

export function replayTo(store: StoreView, observer: StoreObserver): void {
  const tokens = store.spec.countedTokens ?? Number.POSITIVE_INFINITY;
  const scan = store.scan({}, undefined);
  const slots = new Int32Array(SLOTS);
  let key: ByteRange = { buf: Buffer.alloc(0), start: 0, end: 0 };
  let group: ByteRange = { buf: Buffer.alloc(0), start: 0, end: 0 };
  let groupLen = 0;
  let first = -1;
  let count = 0;
  let bytes = 0;
  let revision = 0;
  const tell = (): void => {
    if (count === 0) return;
    observer.entriesIn(store.spec.fieldsOf(store.keyOf(first)), count, revision, bytes);
  };
  for (let n = scan.fill(slots); n > 0; n = scan.fill(slots)) {
    for (let i = 0; i < n; i++) {
      const slot = slots[i] as number;
      store.keyRange(slot, key);
      const len = tokensLength(key.buf, key.start, key.end - key.start, tokens);
      if (first < 0 || len !== groupLen || !sameBytes(key.buf, key.start, group.buf, group.start, len)) {
        tell();
        // The ranges swap: `group` keeps the run's first key while `key` is read again.
        [group, key] = [key, group];
        groupLen = len;
        first = slot;
        count = 0;
        bytes = 0;
        revision = 0;
      }
      count++;
      bytes += store.jsonBytes(slot);
      const r = store.revisionOf(slot);
      if (r > revision) revision = r;
    }
  }
  tell();
  for (const rec of store.allOutOfShape()) observer.outOfShapeIn(rec, true);
}
