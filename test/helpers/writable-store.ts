/**
 * A test's way past a projection's view: the same store typed with its
 * writers, for tests that corrupt a running projection behind its watch's
 * back or look at how much room it took. Readers in src/ have no such way.
 */
import assert from "node:assert/strict";
import { ProjectionStore } from "../../src/projections/store/store.js";
import type { StoreView } from "../../src/projections/store/view.js";

export function writableStore(view: StoreView): ProjectionStore {
  assert.ok(view instanceof ProjectionStore, "a projection's view is its store itself");
  return view;
}
