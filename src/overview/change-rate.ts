/**
 * Changes applied per bucket over the last hour (pure): a ring of fixed
 * steps per bucket, so its size never depends on the write rate or on how
 * long the service runs. A step is counted into the slot of its start time;
 * a slot whose step has passed out of the window is zeroed before reuse, so
 * a quiet minute reads as zero, not as the count of an hour ago.
 */
import { WHATS, type What } from "mesh-provisioner-client/keys";

/** The window's steps: 360 of 10 s make the last hour. */
export const RATE_STEP_MS = 10_000;
export const RATE_STEPS = 360;

export interface RateSeries {
  /** Length of one step in ms. */
  readonly stepMs: number;
  /** Start of the newest (still filling) step, ms since the epoch. */
  readonly newest: number;
  /** Per bucket, changes per step, oldest first; the last is the step still filling. */
  readonly counts: Readonly<Record<What, readonly number[]>>;
}

export class ChangeRate {
  private readonly rings: Record<What, Float64Array>;
  /** The step index (time / stepMs) each slot holds, the same for every bucket's ring. */
  private readonly stepOfSlot: Float64Array;

  constructor(
    private readonly stepMs = RATE_STEP_MS,
    private readonly steps = RATE_STEPS,
  ) {
    this.rings = Object.fromEntries(WHATS.map((w) => [w, new Float64Array(steps)])) as Record<What, Float64Array>;
    this.stepOfSlot = new Float64Array(steps).fill(-1);
  }

  /** Count one applied change of `what` at `now` (ms since the epoch). */
  add(what: What, now: number): void {
    const slot = this.slotFor(Math.floor(now / this.stepMs));
    const ring = this.rings[what];
    ring[slot] = (ring[slot] as number) + 1;
  }

  /** The window ending with the step that holds `now`. */
  series(now: number): RateSeries {
    const newestStep = Math.floor(now / this.stepMs);
    const counts = {} as Record<What, number[]>;
    for (const w of WHATS) {
      const ring = this.rings[w];
      const out = new Array<number>(this.steps);
      for (let i = 0; i < this.steps; i++) {
        const step = newestStep - (this.steps - 1) + i;
        const slot = step % this.steps;
        out[i] = this.stepOfSlot[slot] === step ? (ring[slot] as number) : 0;
      }
      counts[w] = out;
    }
    return { stepMs: this.stepMs, newest: newestStep * this.stepMs, counts };
  }

  /** The slot of `step`, zeroed first when it still holds an older step. */
  private slotFor(step: number): number {
    const slot = step % this.steps;
    if (this.stepOfSlot[slot] !== step) {
      this.stepOfSlot[slot] = step;
      for (const w of WHATS) (this.rings[w] as Float64Array)[slot] = 0;
    }
    return slot;
  }
}
