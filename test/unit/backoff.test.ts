import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Backoff, BACKOFF, ceilingMs, type BackoffPolicy } from "mesh-provisioner-client/backoff";
import { mulberry32 } from "../../chaos/rng.js";

const policy: BackoffPolicy = { baseMs: 100, capMs: 1_000 };
/** The waits of `n` failures in a row. */
const waits = (b: Backoff, n: number): number[] => Array.from({ length: n }, () => b.next());

describe("the retry policy", () => {
  test("the wait grows, doubling per failure, and is capped", () => {
    assert.deepEqual(waits(new Backoff(policy, () => 1), 7), [100, 200, 400, 800, 1_000, 1_000, 1_000]);
  });

  test("jitter spreads each wait over the ceiling's upper half: the lowest draw waits half the ceiling, the highest all of it", () => {
    assert.deepEqual(waits(new Backoff(policy, () => 0), 6), [50, 100, 200, 400, 500, 500]);
    assert.deepEqual(waits(new Backoff(policy, () => 1), 6), [100, 200, 400, 800, 1_000, 1_000]);
    assert.deepEqual(waits(new Backoff(policy, () => 0.5), 6), [75, 150, 300, 600, 750, 750]);
  });

  test("draws outside [0, 1] stay within the range", () => {
    assert.equal(new Backoff(policy, () => -3).next(), 50);
    assert.equal(new Backoff(policy, () => 7).next(), 100);
  });

  test("a reset after a success returns the wait to the base", () => {
    const b = new Backoff(policy, () => 1);
    waits(b, 5);
    assert.equal(b.failures, 5);
    b.reset();
    assert.equal(b.failures, 0);
    assert.equal(b.next(), policy.baseMs);
    assert.equal(b.failures, 1);
  });

  test("a try that timed out is retried soon, from the base's range however many failed before, and still counts", () => {
    const b = new Backoff(policy, () => 1);
    waits(b, 8);
    assert.equal(b.soon(), policy.baseMs);
    assert.equal(b.failures, 9, "a timeout counts: the try's own timeout grows with it");
    assert.equal(b.next(), policy.capMs, "a fast failure after it backs off as far as before");
    assert.equal(new Backoff(policy, () => 0).soon(), policy.baseMs / 2, "soon is jittered too");
  });

  test("two instances with different random draws do not retry in lockstep", () => {
    // Both fail at the same moment (a server restarting) and every try after it fails too.
    const moments = (seed: number): number[] => {
      const b = new Backoff(BACKOFF.watch, mulberry32(seed));
      let t = 0;
      return Array.from({ length: 10 }, () => (t += b.next()));
    };
    const a = moments(1);
    const b = moments(2);
    assert.deepEqual(moments(1), a, "the same draws give the same waits: the difference below is the draws'");
    a.forEach((at, i) => assert.notEqual(at, b[i], `their try ${i + 1} comes at different moments`));
  });

  test("a hundred instances' first retries spread over the whole upper half of the base", () => {
    const firsts = new Set(Array.from({ length: 100 }, (_, seed) => new Backoff(BACKOFF.startup, mulberry32(seed)).next()));
    const { baseMs } = BACKOFF.startup;
    assert.ok(Math.min(...firsts) >= baseMs / 2 && Math.max(...firsts) <= baseMs, "all within [base/2, base]");
    assert.ok(firsts.size > 50, `spread, not bunched: ${firsts.size} distinct waits`);
    assert.ok(Math.min(...firsts) < baseMs * 0.6 && Math.max(...firsts) > baseMs * 0.9, "the spread reaches both ends");
  });

  test("Math.random is the source when none is given", (t) => {
    const random = t.mock.method(Math, "random", () => 0);
    assert.equal(new Backoff(policy).next(), 50);
    random.mock.mockImplementation(() => 0.999_999);
    assert.equal(new Backoff(policy).next(), 99);
  });

  test("a long outage keeps waiting the cap: the count never makes the wait Infinity or NaN", () => {
    const b = new Backoff(policy, () => 1);
    waits(b, 5_000);
    assert.equal(b.next(), policy.capMs);
    assert.equal(ceilingMs({ baseMs: 0, capMs: 10 }, 5_000), 0);
  });

  test("every user's policy starts above zero and at or below its cap", () => {
    for (const [name, p] of Object.entries(BACKOFF)) assert.ok(p.baseMs > 0 && p.baseMs <= p.capMs, name);
  });
});
