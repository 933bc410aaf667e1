import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { progressText } from "../../src/projections/sync-progress.js";
import { CreationTally } from "../../src/streams/creation-tally.js";
import { isPassing } from "../../src/streams/retry.js";

describe("the first sync's progress line", () => {
  test("says how far each projection has come, in words a person reads", () => {
    const text = progressText({
      registry: { expected: 13, received: 13, done: true },
      needs: { expected: 1_000_000, received: 420_000, done: false },
      applied: { expected: 0, received: 0, done: false },
    });
    assert.equal(text, "registry synced; needs 420,000 of 1,000,000 (42%); applied waiting for its consumer");
  });

  test("says a checkpoint is loading, and how many newer writes wait for it, rather than a share of the catch-up", () => {
    const text = progressText({ needs: { expected: 58, received: 1921, done: false, loadingCheckpoint: true } });
    assert.equal(text, "needs loading its checkpoint (1,921 newer writes held)");
  });

  test("never says more than 100% when writes arrive during the sync", () => {
    assert.match(progressText({ needs: { expected: 10, received: 12, done: false } }), /\(100%\)/);
  });
});

describe("the consumer creation tally", () => {
  test("counts what was asked, what asked again for a timed-out creation, and how each ended", () => {
    const t = new CreationTally();
    const e = { bucket: "b", messages: 1, deliver: "all" as const };
    t.record({ ...e, outcome: "timed-out", retry: false, ms: 10_000 });
    t.record({ ...e, outcome: "created", retry: true, ms: 400 });
    t.record({ ...e, bucket: "c", outcome: "failed", retry: false, ms: 1 });
    assert.deepEqual(t.snapshot(), {
      b: { asked: 2, retried: 1, created: 1, timedOut: 1, failed: 0, lastMs: 400 },
      c: { asked: 1, retried: 0, created: 0, timedOut: 0, failed: 1, lastMs: 0 },
    });
  });
});

describe("which start-up failures are waited out", () => {
  test("a slow or leaderless JetStream", () => {
    for (const m of [
      "timeout",
      "TimeoutError: timeout",
      "JetStream system temporarily unavailable",
      "no stream leader",
      "cannot create or open the bucket x: timeout",
    ]) {
      assert.ok(isPassing(new Error(m)), m);
    }
  });

  test("not what a person must fix", () => {
    for (const m of [
      "jetstream is not enabled",
      'Permissions Violation for Publish to "$JS.API.INFO"',
      "connection closed",
      "insufficient resources",
      "Authorization Violation",
    ]) {
      assert.ok(!isPassing(new Error(m)), m);
    }
  });
});
