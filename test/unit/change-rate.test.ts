import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChangeRate } from "../../src/overview/change-rate.js";

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

describe("the change rate's ring", () => {
  test("changes are counted in the step of their time, per bucket, the newest step last", () => {
    const r = new ChangeRate(10_000, 6);
    r.add("needs", 100_000);
    r.add("needs", 105_000);
    r.add("needs", 112_000);
    r.add("collect", 112_000);
    const s = r.series(115_000);
    assert.equal(s.newest, 110_000);
    assert.deepEqual(s.counts.needs, [0, 0, 0, 0, 2, 1]);
    assert.deepEqual(s.counts.collect, [0, 0, 0, 0, 0, 1]);
    assert.deepEqual(s.counts.registry, [0, 0, 0, 0, 0, 0]);
  });

  test("a step older than the window reads as zero, and its slot is zeroed before it is used again", () => {
    const r = new ChangeRate(10_000, 6);
    for (let i = 0; i < 7; i++) r.add("applied", 100_000);
    assert.equal(sum(r.series(150_000).counts.applied), 7, "still in the window");
    assert.equal(sum(r.series(160_000).counts.applied), 0, "an hour later (6 steps here) it is gone");
    // 160 s uses the slot 100 s used: it starts from zero.
    r.add("applied", 160_000);
    assert.deepEqual(r.series(160_000).counts.applied, [0, 0, 0, 0, 0, 1]);
  });

  test("its size is fixed whatever the rate: the series is always the window's length", () => {
    const r = new ChangeRate();
    for (let t = 0; t < 7_200_000; t += 1_000) r.add("needs", t);
    const s = r.series(7_200_000);
    assert.equal(s.counts.needs.length, 360);
    assert.equal(sum(s.counts.needs), 3_590, "one a second from the oldest step in the window (361st) to now");
  });
});
