/**
 * The one retry policy (pure): how long to wait before trying again after
 * failures in a row. The server's start-up steps, its watches and its
 * reconcile, and the client's watch all wait by it; the Go client has the
 * same policy in go/backoff.go.
 *
 * The wait's ceiling grows exponentially, `baseMs · 2^(failures − 1)` up to
 * `capMs`, and the wait itself is drawn from the ceiling's upper half
 * ("equal jitter"): every wait lies in [ceiling − ⌊ceiling/2⌋, ceiling]. A
 * success resets the count, so the next failure waits from the base again.
 *
 * Why jitter: a server restart or a leader election fails every instance's
 * and every watch's tries at the same moment; waits computed from the same
 * count alone would bring them all back at the same moments, again and again.
 * Drawn at random, they spread out.
 *
 * Why equal jitter rather than full jitter (a draw from [0, ceiling]): every
 * try costs the server something (a consumer created, a snapshot paged), and
 * with full jitter a run of small draws can retry almost at once however long
 * the outage has lasted. Keeping the lower half fixed means the waits still
 * grow with the outage (never below half the ceiling) while the upper half
 * spreads the instances apart.
 */

/** The numbers of one retry policy: the first failure's ceiling and the largest. */
export interface BackoffPolicy {
  /** The ceiling of the wait after the first failure (ms); it doubles with each failure after it. */
  readonly baseMs: number;
  /** The ceiling never grows past this (ms). */
  readonly capMs: number;
}

/**
 * Every user's numbers, in one place. None is an option a person sets: each
 * is what its failure is worth waiting for, not a tuning knob.
 */
export const BACKOFF = Object.freeze({
  /** A start-up step whose JetStream is between leaders or still starting (src/main.ts). */
  startup: { baseMs: 250, capMs: 2_000 },
  /** A watch whose consumer could not be created or its stream not read (src/streams/kv-watch.ts); its `retryMs` replaces the base. */
  watch: { baseMs: 250, capMs: 2_000 },
  /** A reconcile whose registry writes failed (src/reconcile/loop.ts). */
  reconcile: { baseMs: 500, capMs: 30_000 },
  /** A client watch's snapshot that failed: 503 while the service syncs, 504, no answer (src/client/watch.ts). */
  snapshot: { baseMs: 100, capMs: 5_000 },
} satisfies Record<string, BackoffPolicy>);

/**
 * The exponential ceiling after `doublings` doublings: `baseMs · 2^doublings`,
 * never past `capMs` (no jitter: also how a try's own timeout may grow).
 */
export function ceilingMs(policy: BackoffPolicy, doublings: number): number {
  // 2^52 is past any cap in ms; the clamp keeps a long outage's count from reaching Infinity (or NaN for a base of 0).
  return Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(Math.max(0, doublings), 52));
}

/**
 * A wait drawn from the upper half of `ceiling`: `random()` of 0 gives
 * ceiling − ⌊ceiling/2⌋, 1 gives the ceiling itself, in whole ms.
 */
export function equalJitter(ceiling: number, random: () => number): number {
  const half = Math.floor(ceiling / 2);
  const r = Math.min(1, Math.max(0, random()));
  return ceiling - half + Math.floor(r * half);
}

/** One retrying thing's failures in a row, and the wait each one earns. */
export class Backoff {
  #failures = 0;

  /** `random` returns a number in [0, 1] (Math.random by default; a test passes its own draws). */
  constructor(
    private readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** The failures counted since the last reset. */
  get failures(): number {
    return this.#failures;
  }

  /** Counts a failure and returns the wait before the next try, its ceiling doubled once per earlier failure. */
  next(): number {
    this.#failures++;
    return equalJitter(ceilingMs(this.policy, this.#failures - 1), this.random);
  }

  /**
   * Counts a failure of a try that has already waited (it timed out) and
   * returns a short wait, drawn from the base's ceiling however many failed
   * before: retry soon, but not in step with everyone whose try timed out too.
   */
  soon(): number {
    this.#failures++;
    return equalJitter(ceilingMs(this.policy, 0), this.random);
  }

  /** After a success: the next failure waits from the base again. */
  reset(): void {
    this.#failures = 0;
  }
}
