/**
 * What differs between a store's content before a rebuild and after it
 * (pure): a projection whose history is gone builds a fresh snapshot aside
 * and moves it into the store its readers hold, and its changes channel is
 * then told only what differs, as if the entries had been applied one by
 * one: deletes of the keys gone, puts of those new or at another revision.
 */
import type { ProjectionStore } from "./store/store.js";
import type { Change, StoreView } from "./store/view.js";

/** Each key a store holds, in shape or not, with its revision. */
export function revisionsOf(store: StoreView): Map<string, number> {
  const revisions = new Map<string, number>();
  for (const e of store.allEntries()) revisions.set(e.key, e.revision);
  for (const o of store.allOutOfShape()) revisions.set(o.key, o.revision);
  return revisions;
}

/** Tell `publish` what differs between `before` (`revisionsOf` the old content) and what `store` holds now. */
export function publishRebuilt(before: ReadonlyMap<string, number>, store: ProjectionStore, publish: (change: Change) => void): void {
  const rev = store.revision;
  for (const key of before.keys()) {
    if (store.get(key) === undefined && store.getOutOfShape(key) === undefined) publish({ op: "delete", key, revision: rev, newlyOutOfShape: false });
  }
  for (const e of store.allEntries())
    if (before.get(e.key) !== e.revision) publish({ op: "put", key: e.key, revision: e.revision, entry: e, newlyOutOfShape: false });
  for (const o of store.allOutOfShape()) {
    if (before.get(o.key) !== o.revision) publish({ op: "put", key: o.key, revision: o.revision, outOfShape: o, newlyOutOfShape: true });
  }
}
