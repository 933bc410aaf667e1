/**
 * What feeds the change rate (the edge of ChangeRate): every change a
 * projection applies after its first sync is counted in its bucket's ring at
 * the time it is applied. The composition root subscribes as soon as the
 * projections exist, before any watch starts, so the history runs from the
 * process's start: the registry's first writes (the seat holder's reconcile
 * right after the registry's sync) are in it. What a first sync (or a
 * checkpoint's catching up) loads is the bucket as it stood, not writes made
 * while this instance watched, and is not counted.
 */
import { merge, map, type Observable, type Subscription } from "rxjs";
import { WHATS, type What } from "mesh-provisioner-client/keys";
import type { ChangeRate } from "./change-rate.js";

export function countChanges(
  projections: Readonly<Record<What, { readonly changes$: Observable<unknown> }>>,
  rate: ChangeRate,
  now: () => number = Date.now,
): Subscription {
  return merge(...WHATS.map((w: What) => projections[w].changes$.pipe(map(() => w)))).subscribe((w) => rate.add(w, now()));
}
