import { test } from "node:test";
import assert from "node:assert/strict";
import { floorVerdict, heldSamples, MIN_WINDOWS, type MinuteMemory, type RssSample } from "../../bench/soak-verdict.js";
import { fixedSizeValue, MIN_VALUE_BYTES } from "../../bench/soak-values.js";

const MIB = 1024 * 1024;
const MIN = 60_000;
const opts = { windowMs: 10 * MIN, toleranceMiBPerHour: 2 };

/** A sample every 5 s for `minutes`, RSS `mibAt(ms)` MiB. */
const series = (minutes: number, mibAt: (ms: number, i: number) => number): RssSample[] =>
  Array.from({ length: (minutes * MIN) / 5000 + 1 }, (_, i) => ({ atMs: i * 5000, rssBytes: mibAt(i * 5000, i) * MIB }));

/** A gc sawtooth: climbs `height` MiB over `periodMs`, then drops back. */
const sawtooth = (ms: number, periodMs: number, height: number): number => ((ms % periodMs) / periodMs) * height;

/** Deterministic noise in [-1, 1) (a linear congruential generator), so a failure can be replayed. */
function noise(seed: number): (i: number) => number {
  const values: number[] = [];
  let s = seed >>> 0;
  return (i) => {
    while (values.length <= i) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      values.push(s / 2 ** 31 - 1);
    }
    return values[i]!;
  };
}

test("a flat series levels off, with a slope of zero", () => {
  const v = floorVerdict(
    series(120, () => 190),
    opts,
  );
  assert.equal(v.state, "levels off");
  assert.equal(v.slopeMiBPerHour, 0);
  assert.equal(v.floors.length, 6, "the second hour in six 10-minute windows");
  assert.match(v.text, /^levels off: the RSS floor moved \+0\.0 MiB\/h/);
});

test("a floor rising under the sawtooth is reported as still rising, by about its rate", () => {
  // The earlier soak's rise (about half a MiB a minute) under a 3-minute, 15 MiB sawtooth.
  const v = floorVerdict(
    series(120, (ms) => 185 + (ms / MIN) * 0.5 + sawtooth(ms, 3 * MIN, 15)),
    opts,
  );
  assert.equal(v.state, "still rising");
  assert.ok(Math.abs(v.slopeMiBPerHour - 30) < 2, `slope ${v.slopeMiBPerHour}`);
  assert.match(v.text, /^still rising by 3\d\.\d MiB\/h/);
});

test("a noisy but flat series levels off: sawtooth peaks, jitter and spikes do not read as a rise", () => {
  const jitter = noise(20261203);
  const spikes = noise(7);
  const v = floorVerdict(
    series(120, (ms, i) => 190 + sawtooth(ms, 170_000, 20) + 1.5 * jitter(i) + (spikes(i) > 0.95 ? 40 : 0)),
    opts,
  );
  assert.equal(v.state, "levels off", v.text);
  assert.ok(Math.abs(v.slopeMiBPerHour) < 2, `slope ${v.slopeMiBPerHour}`);
});

test("a rise in the first half alone (the warm-up) levels off", () => {
  const v = floorVerdict(
    series(120, (ms) => (ms < 30 * MIN ? 150 + (ms / MIN) * 1.5 : 195) + sawtooth(ms, 2 * MIN, 10)),
    opts,
  );
  assert.equal(v.state, "levels off", v.text);
});

test("a short run gets shorter windows, as many as it needs; too few samples to fill them is said so", () => {
  const v = floorVerdict(
    series(3, () => 100),
    opts,
  );
  assert.equal(v.state, "levels off");
  assert.equal(v.floors.length, MIN_WINDOWS);
  assert.equal(v.windowMs, (1.5 * MIN) / MIN_WINDOWS);
  // Half a minute read every 5 s: four windows of 3.75 s, most holding one read or none.
  const sparse = floorVerdict(
    series(0.5, () => 100),
    opts,
  );
  assert.equal(sparse.state, "too few samples");
  assert.ok(Number.isNaN(sparse.slopeMiBPerHour));
  assert.equal(floorVerdict([{ atMs: 0, rssBytes: 100 * MIB }], opts).state, "too few samples");
});

test("soak values are exactly the size asked for, whatever the key and the put count", () => {
  for (const bytes of [MIN_VALUE_BYTES, 128, 1000]) {
    for (const [i, salt] of [
      [0, 0],
      [99_999, 1],
      [4_999_999, 123_456_789_012_345],
    ] as const) {
      const v = fixedSizeValue(i, salt, bytes);
      assert.equal(Buffer.byteLength(v), bytes);
      assert.doesNotThrow(() => JSON.parse(v));
    }
  }
  assert.throws(() => fixedSizeValue(0, 0, MIN_VALUE_BYTES - 1), RangeError);
});

/** One row a minute: RSS, and the heap V8 reserved and used (MiB). */
const minutesOf = (n: number, at: (minute: number) => { rss: number; used: number; total: number }): MinuteMemory[] =>
  Array.from({ length: n }, (_, i) => {
    const m = at(i + 1);
    return { minute: i + 1, rssMiB: m.rss, heapUsedMiB: m.used, heapTotalMiB: m.total };
  });

test("what is held apart from V8's free heap levels off when only V8's reserve moves RSS's floor", () => {
  // V8 reserves up to 40 MiB more heap than it uses and hands it back every 35 minutes; the rest holds at 150 MiB.
  const rows = minutesOf(120, (m) => {
    const free = m % 35 < 5 ? 0 : 40;
    return { rss: 150 + 20 + free, used: 20, total: 20 + free };
  });
  const held = heldSamples(rows);
  assert.ok(
    held.every((s) => s.rssBytes === 170 * MIB),
    "RSS less the free heap is RSS less what V8 reserved and does not use",
  );
  const v = floorVerdict(held, { windowMs: 15 * MIN, toleranceMiBPerHour: 2 }, "RSS less V8's free heap");
  assert.equal(v.state, "levels off");
  assert.match(v.text, /^levels off: RSS less V8's free heap moved \+0\.0 MiB\/h/);
});

test("a leak outside the heap shows in what is held apart from V8's free heap", () => {
  // 10 MiB an hour of memory outside the heap, under the same swings of V8's reserve.
  const rows = minutesOf(120, (m) => {
    const free = m % 35 < 5 ? 0 : 40;
    return { rss: 150 + m / 6 + 20 + free, used: 20, total: 20 + free };
  });
  const v = floorVerdict(heldSamples(rows), { windowMs: 15 * MIN, toleranceMiBPerHour: 2 });
  assert.equal(v.state, "still rising");
  assert.ok(Math.abs(v.slopeMiBPerHour - 10) < 0.5, `slope ${v.slopeMiBPerHour}`);
});

test("a minute without a heap reading is left out of what is held, not read as zero", () => {
  const rows = minutesOf(3, () => ({ rss: 200, used: 20, total: 60 }));
  const gap = [rows[0]!, { ...rows[1]!, heapTotalMiB: Number.NaN }, rows[2]!];
  assert.deepEqual(
    heldSamples(gap).map((s) => s.atMs / MIN),
    [1, 3],
  );
});
