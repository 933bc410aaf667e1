import { test } from "node:test";
import assert from "node:assert/strict";
import { summarizeBurst } from "../../bench/burst-summary.js";
import type { Ask } from "../../bench/asker.js";

const ask = (at: number, ms: number, outcome: Ask["outcome"] = 200): Ask => ({ at, ms, outcome }) as Ask;
// 20 idle asks: median 1.2 ms, the slowest two 2.9 and 4 ms (p95: 2.9).
const idle = [...Array.from({ length: 18 }, (_, i) => ask(-2000 + i * 100, [1.1, 1.2, 1.3][i % 3] as number)), ask(-200, 2.9), ask(-100, 4)];
/** `n` asks every 100 ms from `from`, each `msOf(i)` ms. */
const asksFrom = (from: number, n: number, msOf: (i: number) => number): Ask[] => Array.from({ length: n }, (_, i) => ask(from + i * 100, msOf(i)));

test("the idle bars: the rule before's (twice the idle median, or the idle p95 when slower), a window's p50 (1.5x the idle median) and p80 (twice the idle p80)", () => {
  const s = summarizeBurst(idle, [ask(100, 1)], 50);
  assert.equal(s.idleMedianMs, 1.2);
  assert.equal(s.idleMaxMs, 4);
  assert.equal(s.idleBarMs, 2.9);
  assert.ok(Math.abs(s.windowMedianBarMs - 1.8) < 1e-9);
  // The idle p80 (the 16th of 20: the four slowest left out) is 1.3 ms.
  assert.ok(Math.abs(s.windowSpreadBarMs - 2.6) < 1e-9);
});

test("slow asks now and then after the burst, as slow as idle ones, are back at idle at once; the rule before read them as not idle", () => {
  // Every tenth ask 9 ms (over the idle p95 of 2.9, over twice the slowest idle ask), one in each window, as the idle asks' own slow ones recur.
  const asks = asksFrom(100, 50, (i) => (i % 10 === 9 ? 9 : 1.2));
  const s = summarizeBurst(idle, asks, 50);
  assert.equal(s.backToIdleMs, 50);
  assert.equal(s.everyAskWithinBarMs, Number.NaN, "the last slow ask is the 50th");
});

test("a service still catching up (slow for 2 s) is back at idle when its windows' p50 and p80 come down", () => {
  const asks = asksFrom(0, 70, (i) => (i < 20 ? 40 : i < 40 ? 3 : 1.2));
  const s = summarizeBurst(idle, asks, 1000);
  // Windows from ask 35 on have a median of 1.2 ms (at most 5 asks of 3 ms; the nearest-rank median of 10 is the 5th),
  // but a p80 within 2.6 ms (the 8th of 10) only from ask 38 on, with two asks of 3 ms left.
  assert.equal(s.backToIdleMs, 3800 - 1000);
  assert.equal(s.duringBurst, 11);
  assert.equal(s.longestDuringBurstMs, 40);
});

test("three slow asks in one second after the burst (the window's p80 over twice the idle p80) put back to idle after them; two alone do not", () => {
  const three = asksFrom(100, 50, (i) => (i === 30 || i === 32 || i === 34 ? 20 : 1.2));
  // The windows holding all three start at asks 25 to 30; the first window after them starts at ask 31 (3200).
  assert.equal(summarizeBurst(idle, three, 50).backToIdleMs, 3200 - 50);
  const two = asksFrom(100, 50, (i) => (i === 30 || i === 33 ? 20 : 1.2));
  const s = summarizeBurst(idle, two, 50);
  assert.equal(s.backToIdleMs, 50);
  assert.equal(s.latencyAfterMs.max, 20, "reported as the longest ask after the burst");
});

test("a slow ask every 500 ms, the beat this machine gives any process asked every 100 ms, is idle even when the idle asks caught it only once a second", () => {
  // The idle asks hold two slow ones in 2 s (2.9 and 4 ms); after the burst every fifth ask takes 4 ms, two in each window.
  const asks = asksFrom(100, 50, (i) => (i % 5 === 4 ? 4 : 1.2));
  assert.equal(summarizeBurst(idle, asks, 50).backToIdleMs, 50);
  // The same asks three in a window (every third ask slow) are not: a service that is slow that often is not back.
  assert.ok(
    Number.isNaN(
      summarizeBurst(
        idle,
        asksFrom(100, 50, (i) => (i % 3 === 2 ? 4 : 1.2)),
        50,
      ).backToIdleMs,
    ),
  );
});

test("an error or a 503 after the burst is not idle", () => {
  const asks = asksFrom(100, 30, () => 1);
  asks[12] = ask(1300, 1, 503);
  assert.equal(summarizeBurst(idle, asks, 50).backToIdleMs, 1400 - 50);
  assert.equal(summarizeBurst(idle, asks, 50).everyAskWithinBarMs, 1400 - 50);
});

test("not idle within the asks: the last window slow, or fewer asks than a window", () => {
  assert.ok(
    Number.isNaN(
      summarizeBurst(
        idle,
        asksFrom(100, 30, (i) => (i >= 24 ? 3 : 1)),
        50,
      ).backToIdleMs,
    ),
  );
  assert.ok(
    Number.isNaN(
      summarizeBurst(
        idle,
        asksFrom(100, 9, () => 1),
        50,
      ).backToIdleMs,
    ),
  );
});

test("idle before the last ack: 0", () => {
  assert.equal(
    summarizeBurst(
      idle,
      asksFrom(100, 30, () => 1),
      2000,
    ).backToIdleMs,
    0,
  );
});

test("the rule before: the first ask of the unbroken run within the idle bar, after the last ack", () => {
  const asks = [ask(0, 40), ask(100, 30), ask(200, 1.3), ask(300, 5), ask(400, 1.2), ask(500, 2.8), ask(600, 1.1)];
  const s = summarizeBurst(idle, asks, 250);
  // 5 ms at 300 is over the bar (2.9); from 400 on every ask is within it: 150 ms after the ack at 250.
  assert.equal(s.everyAskWithinBarMs, 150);
  // 2.8 ms is over twice the median (2.4) but within the bar: counted in the context row, not against being idle.
  assert.equal(s.afterAsksOverFactor, 2);
  assert.equal(s.duringBurst, 3);
  assert.equal(s.longestDuringBurstMs, 40);
  assert.ok(Number.isNaN(summarizeBurst(idle, [ask(100, 1), ask(200, 9)], 50).everyAskWithinBarMs));
  assert.equal(summarizeBurst(idle, [ask(100, 1), ask(200, 1)], 500).everyAskWithinBarMs, 0);
});
