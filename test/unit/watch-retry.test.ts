import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { attemptTimeoutMs, isTimeout, warnsAt, RESUME_TIMEOUT_MS, USUAL_TIMEOUT_MS, WARN_EVERY } from "../../src/streams/retry.js";

describe("how a watch retries", () => {
  test("the first try at start keeps the client's usual timeout: a large stream's consumer takes seconds", () => {
    assert.equal(attemptTimeoutMs({ reason: "start", failures: 0 }), USUAL_TIMEOUT_MS);
  });

  test("a resume starts with a short timeout and lengthens it only while tries keep failing", () => {
    const timeouts = [0, 1, 2, 3, 10].map((failures) => attemptTimeoutMs({ reason: "the connection came back", failures }));
    assert.deepEqual(timeouts, [RESUME_TIMEOUT_MS, 2 * RESUME_TIMEOUT_MS, USUAL_TIMEOUT_MS, USUAL_TIMEOUT_MS, USUAL_TIMEOUT_MS]);
    assert.ok(RESUME_TIMEOUT_MS < USUAL_TIMEOUT_MS);
  });

  test("a start that failed retries like a resume", () => {
    assert.equal(attemptTimeoutMs({ reason: "start", failures: 1 }), 2 * RESUME_TIMEOUT_MS);
  });

  test("a long outage's count keeps a try's timeout at the usual one", () => {
    assert.equal(attemptTimeoutMs({ reason: "retry after: timeout", failures: 10_000 }), USUAL_TIMEOUT_MS);
  });

  test("a long outage warns on the first failure and then once every WARN_EVERY, not on every try", () => {
    const warned = Array.from({ length: 3 * WARN_EVERY }, (_, i) => i + 1).filter(warnsAt);
    assert.deepEqual(warned, [1, WARN_EVERY, 2 * WARN_EVERY, 3 * WARN_EVERY]);
  });

  test("timeouts are told apart from other failures by the client's message", () => {
    assert.equal(isTimeout(new Error("timeout")), true);
    assert.equal(isTimeout(new Error("TIMEOUT")), true);
    assert.equal(isTimeout(new Error("no responders")), false);
    assert.equal(isTimeout("jetstream is not enabled"), false);
  });
});
