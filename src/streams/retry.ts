/**
 * How a watch retries (pure): how long each try may wait for JetStream, and
 * which failures are worth a warning. How long to wait before the next try
 * is the one retry policy's (src/backoff/backoff.ts).
 *
 * During a stream leader election JetStream API requests get no answer at
 * all, so every try costs its whole timeout. A watch that resumes therefore
 * starts with a short timeout and lengthens it only while tries keep timing
 * out (a server that is merely busy, e.g. creating a consumer on a large
 * stream, gets the client's usual 5 s); a try that timed out has waited
 * already and is retried soon (`Backoff.soon`), while a fast failure (no
 * responders, a refused request) backs off (`Backoff.next`).
 */
import { ceilingMs } from "mesh-provisioner-client/backoff";

/** The JetStream client's usual timeout, which the first try at start keeps (a large stream's consumer takes seconds). */
export const USUAL_TIMEOUT_MS = 5_000;
/** A resume's first try waits this long for each JetStream answer, doubling per timeout up to USUAL_TIMEOUT_MS. */
export const RESUME_TIMEOUT_MS = 2_000;
/** After the first failure in a row, only every this-many-th is worth a warning (the others are logged at debug). */
export const WARN_EVERY = 30;

export interface RetryState {
  /** Why this try starts: "start" for the watch's first. */
  readonly reason: string;
  /** Tries that failed in a row before this one. */
  readonly failures: number;
}

/** How long this try waits for each JetStream answer. */
export function attemptTimeoutMs({ reason, failures }: RetryState): number {
  if (reason === "start" && failures === 0) return USUAL_TIMEOUT_MS;
  // Not jittered: a timeout is how long an answer may take, not when tries meet.
  return ceilingMs({ baseMs: RESUME_TIMEOUT_MS, capMs: USUAL_TIMEOUT_MS }, failures);
}

/** Whether the `failures`-th failure in a row is logged as a warning. */
export function warnsAt(failures: number): boolean {
  return failures === 1 || failures % WARN_EVERY === 0;
}

export function isTimeout(err: unknown): boolean {
  return /timeout/i.test(String((err as Error)?.message ?? err));
}

/**
 * A failure that passes by itself: JetStream slow to answer (a timeout) or
 * between leaders ("JetStream system temporarily unavailable", no leader).
 * Waiting is the cure; a person need do nothing. A JetStream that is not
 * enabled at all, a permission refused, a closed connection are not passing.
 */
export function isPassing(err: unknown): boolean {
  return isTimeout(err) || /temporarily unavailable|no (stream |meta )?leader|leaderless/i.test(String((err as Error)?.message ?? err));
}
