/**
 * What an instance's watches asked of the server to create their consumers
 * (pure): per bucket, the creations asked for, how many of those asked again
 * for one that had timed out, and how they ended. A retried creation is
 * visible here, in /metrics and in `$SRV.STATS`.
 */
import type { CreationEvent } from "./kv-watch.js";
import type { CreationCounts } from "mesh-provisioner-client/protocol/stats.js";

export type { CreationCounts };

export class CreationTally {
  private readonly byBucket = new Map<string, CreationCounts>();

  readonly record = (e: CreationEvent): void => {
    let c = this.byBucket.get(e.bucket);
    if (c === undefined) this.byBucket.set(e.bucket, (c = { asked: 0, retried: 0, created: 0, timedOut: 0, failed: 0, lastMs: 0 }));
    c.asked++;
    if (e.retry) c.retried++;
    if (e.outcome === "created") {
      c.created++;
      c.lastMs = e.ms;
    } else if (e.outcome === "timed-out") c.timedOut++;
    else c.failed++;
  };

  /** A copy of the counts, by bucket. */
  snapshot(): Record<string, CreationCounts> {
    return Object.fromEntries([...this.byBucket].map(([b, c]) => [b, { ...c }]));
  }
}
