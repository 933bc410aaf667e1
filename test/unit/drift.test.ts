import { test } from "node:test";
import assert from "node:assert/strict";
import { DriftTally } from "../../src/reconcile/drift.js";

test("a registry that never equalled the table is drifted but no drift is counted; each later start of a difference is one drift", () => {
  const d = new DriftTally();
  d.compared(true); // a fresh bucket: nothing written yet
  d.compared(true);
  assert.deepEqual([d.drifted, d.drifts], [true, 0]);
  d.compared(false); // the holder wrote the table
  assert.deepEqual([d.drifted, d.drifts], [false, 0]);
  d.compared(true); // someone changed a key
  d.compared(true); // and another, before the repair
  assert.deepEqual([d.drifted, d.drifts], [true, 1]);
  d.compared(false);
  d.compared(true);
  assert.deepEqual([d.drifted, d.drifts], [true, 2]);
});
