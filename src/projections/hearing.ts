/**
 * When a projection last heard from its bucket's stream, and what its
 * answers say of it (see ./staleness.ts for the rule). Set on every event
 * of its watch: a number, never an allocation.
 */
import { staleness, type Staleness } from "./staleness.js";

/** How a projection tells the time, and when its answers say they may be stale. */
export interface HearingOptions {
  /** Unix milliseconds (Date.now unless a test passes its own): when it heard from its stream, and how long ago. */
  readonly clock?: () => number;
  /** Past this long without hearing from its stream its answers say they may be stale (never when absent). */
  readonly staleAfterMs?: number;
}

export class Hearing {
  /** Unix milliseconds at which the stream was last heard from (at first: when the hearing began). */
  at: number;
  readonly clock: () => number;
  private readonly staleAfterMs: number;

  constructor(opts: HearingOptions = {}) {
    this.clock = opts.clock ?? Date.now;
    this.staleAfterMs = opts.staleAfterMs ?? Number.POSITIVE_INFINITY;
    this.at = this.clock();
  }

  /** The stream was heard from now. */
  heard(): void {
    this.at = this.clock();
  }

  /** What answers at `revision` say now: undefined while the stream was heard from within `staleAfterMs`. */
  staleness(revision: number, now: number = this.clock()): Staleness | undefined {
    return staleness(this.at, now, this.staleAfterMs, revision);
  }
}
