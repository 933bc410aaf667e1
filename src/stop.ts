/**
 * The graceful stop's bound (pure, but for `within`'s timer): each step of the
 * stop that waits on the bus has a limit of its own, and the whole stop a
 * bound derived from them, which `serve` enforces with a timer. The sequence
 * (src/main.ts `stop()`, src/cli/serve.ts `shutdown()`):
 *
 * 1. at once: `/readyz` answers 503 "stopping";
 * 2. side by side:
 *    - the verb leaves the queue group, answering what it already received
 *      (the subscriptions drain; a request waiting for `minRevision` is
 *      answered within `--max-wait`): `verb`;
 *    - the seat is handed over: the registry write in flight settles
 *      (`write`; one that does not is left to the lease time, so the seat is
 *      not released under it), the holder's checkpoints that are behind are
 *      written (`checkpoints`; past it they are abandoned, the previous ones
 *      stay whole), the seat is released by a compare-and-set delete
 *      (`release`: a JetStream request's own timeout);
 * 3. the projections' watches stop, the connection drains (`drain`; then it
 *    is closed), the HTTP server closes (`http`; then its connections are).
 *
 * The bound is the longer of the two branches of step 2, plus step 3, plus a
 * margin for the event loop. A stop that overruns it exits 1.
 */

/** Limits of the stop's steps, in ms. */
export const STOP_LIMITS = Object.freeze({
  /** The verb's subscriptions drain in one round trip; this much is allowed on top of `--max-wait`. */
  verbRoundTripMs: 1_000,
  /** The registry write in flight: a JetStream publish's own timeout (the client's default, 5 s). */
  writeMs: 5_000,
  /** The holder's final checkpoints: room for a large mesh's (what one costs: docs/benchmarks.md). */
  checkpointsMs: 10_000,
  /** The seat's release: a JetStream request's own timeout. */
  releaseMs: 5_000,
  /** The connection's drain (a flush): then it is closed. */
  drainMs: 2_000,
  /** The HTTP server's close: requests in flight finish, then every connection is closed. */
  httpMs: 1_000,
  /** The event loop's own share (a checkpoint's slice, a reply being built). */
  marginMs: 1_000,
});

export interface StopBound {
  /** The verb's drain: `--max-wait` and a round trip. */
  readonly verbMs: number;
  /** The seat's handover: the write in flight, the final checkpoints, the release. */
  readonly handoverMs: number;
  /** The whole stop, from the signal to the exit. */
  readonly totalMs: number;
}

export function stopBound(maxWaitMs: number, limits = STOP_LIMITS): StopBound {
  const verbMs = maxWaitMs + limits.verbRoundTripMs;
  const handoverMs = limits.writeMs + limits.checkpointsMs + limits.releaseMs;
  return { verbMs, handoverMs, totalMs: Math.max(verbMs, handoverMs) + limits.drainMs + limits.httpMs + limits.marginMs };
}

export { TIMED_OUT, within } from "./within.js";
