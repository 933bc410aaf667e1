import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_TIMING, initialState, lost, mayWrite, observed, renewEvery, takeAt, won, type HolderValue } from "../../src/seat/state.js";

const T = DEFAULT_TIMING(10_000);
const me: HolderValue = { instance: "me", host: "h", pid: 1, since: "2026-01-01T00:00:00Z" };
const other: HolderValue = { instance: "other", host: "h2", pid: 2, since: "2026-01-01T00:00:00Z" };

describe("the seat's state machine", () => {
  test("a standby that sees an absent key may take the seat at once", () => {
    const s = initialState(100);
    assert.equal(takeAt(s, T), 100);
    assert.equal(mayWrite(s, 100, T), false);
  });

  test("a standby waits a whole ttl from the last change it saw before taking over", () => {
    let s = observed(initialState(0), 5, other, 1_000, "me");
    assert.equal(takeAt(s, T), 11_000);
    s = observed(s, 6, other, 4_000, "me"); // a renewal pushes the takeover back
    assert.equal(takeAt(s, T), 14_000);
    s = observed(s, 6, other, 9_000, "me"); // the same revision again is not a renewal
    assert.equal(takeAt(s, T), 14_000);
  });

  test("a holder writes only until 60% of the ttl after its last renewal was sent", () => {
    const s = won(initialState(0), 7, me, 1_000, 1_010);
    assert.equal(mayWrite(s, 1_010, T), true);
    assert.equal(mayWrite(s, 6_999, T), true);
    assert.equal(mayWrite(s, 7_000, T), false);
    // It stops writing well before any standby, which saw the renewal no earlier than it was sent, may take over.
    assert.ok(1_000 + T.ttlMs * T.writeFraction < takeAt(observed(initialState(0), 7, me, 1_000, "x"), T));
  });

  test("a holder that sees another instance in the key is a standby at once", () => {
    const s = observed(won(initialState(0), 7, me, 0, 0), 9, other, 500, "me");
    assert.equal(s.role, "standby");
    assert.equal(mayWrite(s, 500, T), false);
  });

  test("a holder seeing its own renewal stays holder", () => {
    const s = observed(won(initialState(0), 7, me, 0, 0), 8, me, 500, "me");
    assert.equal(s.role, "holder");
  });

  test("a failed renewal drops the hold and every write", () => {
    const s = lost(won(initialState(0), 7, me, 0, 0), 100);
    assert.equal(s.role, "standby");
    assert.equal(mayWrite(s, 100, T), false);
  });

  test("a released seat (delete) may be taken at once", () => {
    const s = observed(observed(initialState(0), 5, other, 0, "me"), 0, undefined, 3_000, "me");
    assert.equal(s.revision, 0);
    assert.equal(takeAt(s, T), 3_000);
  });

  test("renewals come several times per ttl", () => {
    assert.equal(renewEvery(T), 2_500);
    assert.ok(renewEvery(T) < T.ttlMs * T.writeFraction);
  });
});
