import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  DEFAULT_TIMING,
  initialState,
  lost,
  mayWrite,
  observed,
  renewEvery,
  renewed,
  takeAt,
  vacantSince,
  won,
  type HolderValue,
} from "../../src/seat/state.js";

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

  test("a renewal that lands while the write window is open continues the same hold", () => {
    const s = renewed(won(initialState(0), 7, me, 1_000, 1_010), 8, 3_500, 6_999, T);
    assert.equal(s.role, "holder");
    assert.equal(s.revision, 8);
    assert.equal(s.renewedAt, 3_500);
    assert.equal(s.holder, me);
  });

  test("a renewal that lands after the write window closed starts no hold: the instance takes the seat anew later", () => {
    // Closed at 7 000 (60% of the ttl after the renewal sent at 1 000): the feed published nothing from then on.
    const late = renewed(won(initialState(0), 7, me, 1_000, 1_010), 8, 6_500, 7_000, T);
    assert.equal(late.role, "standby");
    assert.equal(mayWrite(late, 7_000, T), false);
    assert.equal(late.revision, 8, "it saw its own value land, so a take compares and sets from there");
    assert.equal(takeAt(late, T), 17_000, "a standby waits a whole ttl, as for any holder it sees");
    // The window closed first and the hold was given up: the renewal landing after it changes nothing of that.
    const afterLoss = renewed(lost(won(initialState(0), 7, me, 1_000, 1_010), 7_001), 8, 6_500, 7_050, T);
    assert.equal(afterLoss.role, "standby");
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

describe("the seat's vacancy as an instance sees it", () => {
  test("a key that keeps being renewed is never vacant; one not renewed for a write window is vacant from the window's end until it is taken", () => {
    let s = observed(initialState(0), 5, other, 1_000, "me");
    assert.equal(vacantSince(s, 6_999, T), undefined, "within the holder's write window");
    s = observed(s, 6, other, 3_500, "me"); // a renewal
    assert.equal(vacantSince(s, 9_499, T), undefined);
    assert.equal(vacantSince(s, 9_500, T), 9_500, "no renewal for 60% of the ttl: the holder has stopped writing");
    assert.equal(vacantSince(s, 12_000, T), 9_500);
    assert.ok(takeAt(s, T) > 9_500, "the vacancy starts before a standby may take the seat");
    const taken = won(s, 7, me, 13_500, 13_510);
    assert.equal(vacantSince(taken, 13_510, T), undefined, "the taker holds it");
  });

  test("an absent or released key is vacant from when it was seen so", () => {
    assert.equal(vacantSince(initialState(100), 100, T), 100);
    const released = observed(observed(initialState(0), 5, other, 1_000, "me"), 0, undefined, 2_000, "me");
    assert.equal(vacantSince(released, 2_500, T), 2_000);
  });

  test("a holder whose write window closed without a renewal counts as vacant from the window's end", () => {
    const s = won(initialState(0), 7, me, 1_000, 1_010);
    assert.equal(vacantSince(s, 6_999, T), undefined);
    assert.equal(vacantSince(s, 8_000, T), 7_000);
  });
});
