/**
 * The change rate the dashboard charts (I/O at the edge of ChangeRate): every
 * change a projection applies after its first sync is counted in its
 * bucket's ring, from the moment the HTTP side starts. What the first sync
 * loads is not a write of the mesh and is not counted.
 */
import { merge, map, type Subscription } from "rxjs";
import { WHATS, type What } from "mesh-provisioner-client/keys";
import { ChangeRate } from "../overview/change-rate.js";
import type { ProvisionerReader } from "./reader.js";

export interface RateWatch {
  /** `/api/rate`: changes per step of each bucket over the window, oldest first. */
  json(): string;
  close(): void;
}

export function startRateWatch(p: Pick<ProvisionerReader, "projections">, now: () => number = Date.now, rate = new ChangeRate()): RateWatch {
  const sub: Subscription = merge(...WHATS.map((w: What) => p.projections[w].changes$.pipe(map(() => w)))).subscribe((w) => rate.add(w, now()));
  return {
    json: () => JSON.stringify(rate.series(now())),
    close: () => sub.unsubscribe(),
  };
}
