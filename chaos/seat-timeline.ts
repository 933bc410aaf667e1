/**
 * The seat's history as holds (pure): who held the seat from when to when,
 * from the changes of its key the run recorded. A hold is one instance with
 * one `since` (renewals keep it); it starts when the holder took the seat (its
 * `since`, or the record's own time if earlier: the take's record itself may
 * have been missed and only a renewal seen) and ends when the next hold starts
 * or the key is deleted.
 */
import type { SeatRecord } from "./history.js";

export interface Hold {
  readonly instance: string;
  readonly since: string;
  /** Milliseconds on the run's clock. */
  readonly start: number;
  end: number;
}

export function holdsTimeline(seat: readonly SeatRecord[], originEpoch: number): Hold[] {
  const holds: Hold[] = [];
  for (const rec of [...seat].sort((a, b) => a.revision - b.revision)) {
    const cur = holds[holds.length - 1];
    const open = cur !== undefined && cur.end === Number.POSITIVE_INFINITY;
    if (rec.op !== "PUT" || !rec.holder) {
      if (open) cur.end = rec.at;
      continue;
    }
    if (open && cur.instance === rec.holder.instance && cur.since === rec.holder.since) continue; // a renewal
    const sinceMs = Date.parse(rec.holder.since) - originEpoch;
    let start = Number.isFinite(sinceMs) ? Math.min(sinceMs, rec.at) : rec.at;
    if (cur !== undefined) start = Math.max(start, cur.start);
    if (open) cur.end = start;
    holds.push({ instance: rec.holder.instance, since: rec.holder.since, start, end: Number.POSITIVE_INFINITY });
  }
  return holds;
}

/** The hold in force at `t`, or undefined (before the first, or after a release). */
export function holderAt(holds: readonly Hold[], t: number): Hold | undefined {
  let found: Hold | undefined;
  for (const h of holds) {
    if (h.start > t) break;
    found = h;
  }
  return found !== undefined && t < found.end ? found : undefined;
}
