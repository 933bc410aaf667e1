import { test } from "node:test";
import assert from "node:assert/strict";
import { summarizeBurst } from "../../bench/burst-summary.js";
import type { Ask } from "../../bench/asker.js";

const ask = (at: number, ms: number, outcome: Ask["outcome"] = 200): Ask => ({ at, ms, outcome }) as Ask;
// 20 idle asks: median 1.2 ms, the slowest two 2.9 and 4 ms (p95: 2.9).
const idle = [...Array.from({ length: 18 }, (_, i) => ask(-2000 + i * 100, [1.1, 1.2, 1.3][i % 3] as number)), ask(-200, 2.9), ask(-100, 4)];

test("the idle bar is twice the idle median, or the idle asks' p95 when that is slower", () => {
  const s = summarizeBurst(idle, [ask(100, 1)], 50);
  assert.equal(s.idleMedianMs, 1.2);
  assert.equal(s.idleBarMs, 2.9);
});

test("back to idle is when the unbroken run of asks within the idle bar began, after the last ack", () => {
  const asks = [ask(0, 40), ask(100, 30), ask(200, 1.3), ask(300, 5), ask(400, 1.2), ask(500, 2.8), ask(600, 1.1)];
  const s = summarizeBurst(idle, asks, 250);
  // 5 ms at 300 is over the bar (2.9); from 400 on every ask is within it: 150 ms after the ack at 250.
  assert.equal(s.backToIdleMs, 150);
  // 2.8 ms is over twice the median (2.4) but within the bar: counted in the context row, not against being idle.
  assert.equal(s.afterAsksOverFactor, 2);
  assert.equal(s.duringBurst, 3);
  assert.equal(s.longestDuringBurstMs, 40);
});

test("an error or a 503 after the burst is not idle; the last ask slow means not idle within the window", () => {
  assert.equal(summarizeBurst(idle, [ask(100, 1), ask(200, 1, 503), ask(300, 1)], 50).backToIdleMs, 250);
  assert.ok(Number.isNaN(summarizeBurst(idle, [ask(100, 1), ask(200, 9)], 50).backToIdleMs));
  assert.equal(summarizeBurst(idle, [ask(100, 1), ask(200, 1)], 500).backToIdleMs, 0);
});
