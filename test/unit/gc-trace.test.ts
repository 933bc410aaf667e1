import { test } from "node:test";
import assert from "node:assert/strict";
import { addGcLine, emptyGcWindow, mergeGc, parseGcLine } from "../../bench/gc-trace.js";
import { gcContextRows, gcPauseRow } from "../../bench/rows-gc.js";
import type { GcRound } from "../../bench/put-phase.js";

const scavenge = (ms: number): string =>
  `[123:0x55d0]    4021 ms: Scavenge 45.2 (50.1) -> 44.8 (51.1) MB, ${ms} / 0.00 ms  (average mu = 0.991, current mu = 0.990) allocation failure;`;
const markCompact = (ms: number): string =>
  `[123:0x55d0]    9050 ms: Mark-Compact 60.1 (70.2) -> 40.3 (71.0) MB, ${ms} / 0.00 ms  (+ 5.2 ms in 30 steps since start of marking, biggest step 1.2 ms, walltime since start of marking 310 ms) (average mu = 0.98) finalize incremental marking via task; GC in old space requested`;

test("a --trace-gc line gives its kind, its pause and its biggest marking step; other lines give nothing", () => {
  assert.deepEqual(parseGcLine(scavenge(2.5)), { kind: "scavenge", pauseMs: 2.5, stepMs: 0 });
  assert.deepEqual(parseGcLine(markCompact(12.25)), { kind: "markCompact", pauseMs: 12.25, stepMs: 1.2 });
  assert.equal(parseGcLine('{"level":30,"msg":"all projections synced"}'), undefined);
});

test("pauses over 10 ms are counted apart, and windows merge by adding counts and keeping the longest", () => {
  const a = emptyGcWindow();
  for (const line of [scavenge(2), scavenge(10), scavenge(10.5), markCompact(31), "not a gc line"]) addGcLine(a, line);
  assert.equal(a.scavenge, 3);
  assert.equal(a.markCompact, 1);
  assert.equal(a.overLong, 2, "10.5 and 31 ms are over 10 ms; 10 ms itself is not");
  assert.equal(a.longestScavengeMs, 10.5);
  const b = emptyGcWindow();
  addGcLine(b, scavenge(12));
  const m = mergeGc([a, b]);
  assert.equal(m.overLong, 3);
  assert.equal(m.scavenge, 4);
  assert.equal(m.longestMs, 31);
});

const round = (who: "service" | "bare", service: number[], anchor: number[]): GcRound => {
  const w = emptyGcWindow();
  for (const ms of service) addGcLine(w, scavenge(ms));
  const a = emptyGcWindow();
  for (const ms of anchor) addGcLine(a, scavenge(ms));
  return { round: who, ...w, anchor: a };
};

test("the gc target is the service's longest pause in its own rounds, against the anchor's longest in its own", () => {
  // The service's 25 ms pause came in the anchor's round, while the anchor answered beside it: context, not the target.
  const rounds = [round("service", [1, 2, 9.5], [3, 11, 30]), round("bare", [1, 25], [2, 12]), round("service", [4], [1])];
  const r = gcPauseRow(rounds);
  assert.equal(r.service, 9.5);
  assert.equal(r.baseline, 12, "the anchor's 30 ms came in the service's round");
  assert.equal(r.ok, true);
  assert.equal(gcPauseRow([round("service", [10.5], [1]), round("bare", [1], [2])]).ok, false, "10.5 ms in its own round misses");
  assert.ok(Number.isNaN(gcPauseRow(undefined).service), "no figure without --trace-gc");
});

test("the context rows: the service's longest in the anchor's rounds, and its pauses over 10 ms of all its collections in every round, beside the anchor's", () => {
  const [inBare, count] = gcContextRows([round("service", [1, 2, 14], [3, 11, 12]), round("bare", [1, 25], [2])]);
  assert.ok(inBare !== undefined && count !== undefined);
  assert.equal(inBare.service, 25);
  assert.equal(inBare.baseline, 2);
  assert.equal(count.service, 2);
  assert.equal(count.baseline, 2);
  assert.match(count.metric, /\(of 5 the service ran; baseline: the bare watch\+reply's own, of 4\)/);
  assert.deepEqual(gcContextRows(undefined), [], "no rows without --trace-gc");
});
