/**
 * A page, once its reply is sent, must be garbage for the young collector.
 * When the page was an object literal with a getter, V8 allocated the
 * getter's accessor pair in the old generation, and that kept every page's
 * closures (scans, cursors, texts) alive through each scavenge: ~0.8 MB
 * copied per scavenge at 1k answers a second, scavenges of 5-12 ms.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { setFlagsFromString, getHeapSpaceStatistics } from "node:v8";
import { runInNewContext } from "node:vm";
import { buildPage } from "../../src/verb/answer.js";
import { ProjectionStore } from "../../src/projections/store/store.js";
import { needsSpec } from "../../src/projections/bucket-specs.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as (options?: { type: "major" | "minor" }) => void;

const PAGES = 20_000;

/** Bytes used by the young and old generations together (what a scavenge keeps). */
function heapUsed(): number {
  let used = 0;
  for (const s of getHeapSpaceStatistics()) if (s.space_name === "new_space" || s.space_name === "old_space") used += s.space_used_size;
  return used;
}

test("pages built and dropped leave nothing behind after a young collection", () => {
  const store = new ProjectionStore(needsSpec);
  const enc = new TextEncoder();
  let rev = 0;
  for (let n = 0; n < 100; n++) {
    for (let k = 0; k < 10; k++) store.apply("PUT", `n${n}.m0.config.k${k}`, ++rev, enc.encode(JSON.stringify({ v: `value ${n} ${k}` })));
  }
  store.markSynced(rev);
  const ask = (i: number): number =>
    buildPage({ what: "needs", filters: { node: `n${i % 100}` } }, { store, isAnswered: () => true, maxBytes: 1 << 20 }).bytes.length;
  // Warm the code paths up, then start from a clean heap.
  for (let i = 0; i < 2000; i++) ask(i);
  gc({ type: "major" });
  gc({ type: "major" });
  const before = heapUsed();

  let bytes = 0;
  for (let i = 0; i < PAGES; i++) bytes += ask(i);
  assert.equal(bytes > PAGES * 100, true, "the pages were built");
  // Twice: whatever survives the first is promoted by the second.
  gc({ type: "minor" });
  gc({ type: "minor" });
  const kept = heapUsed() - before;

  // A page's build allocates ~1-2 KB; 20,000 of them kept would be 20+ MB.
  assert.ok(kept < 1024 * 1024, `young collections kept ${(kept / 1024).toFixed(0)} KB of ${PAGES} dropped pages (at most 1 MB allowed)`);
});
