/**
 * What the asks around a burst of new keys say (pure): how slow the service
 * got while taking the keys in, whether any ask went unanswered for a second,
 * and how long after the last put's ack it answered as fast as before.
 */
import { median, percentile, summarize, type Summary } from "./common.js";
import type { Ask, Outcome } from "./asker.js";

/** Not answered within this: counted against the target of 0. */
export const ANSWER_WITHIN_MS = 1000;
/**
 * "Idle again" is every ask within the idle bar: this many times the idle
 * median, or the idle asks' own p95 when that is slower. On a shared 2-core
 * machine an idle ask is over twice the median now and then (the echo's own
 * p99 is ~1.8x its median), so a bar of the median alone read one such ask,
 * seconds after a burst, as the service not being idle yet.
 */
export const IDLE_FACTOR = 2;
export const IDLE_PERCENTILE = 95;

/** An answer, even one that says "not synced, retry" (503); any other service error is not. */
export const answered = (o: Outcome): boolean => o === 200 || o === 503;

export interface BurstSummary {
  /** Median latency of the asks before the burst, ms. */
  idleMedianMs: number;
  /** An ask within this is idle-fast: max(IDLE_FACTOR x the idle median, the idle asks' IDLE_PERCENTILE), ms. */
  idleBarMs: number;
  idleAsks: number;
  /**
   * Idle asks that were themselves over IDLE_FACTOR x the idle median: how
   * often an ask is that slow with no burst at all, so how likely one such
   * ask late in the window is to set back `backToIdleMs` by noise alone.
   */
  idleAsksOverFactor: number;
  /** Asks after the last ack not idle-fast (over IDLE_FACTOR x the idle median, or not a 200), of `latencyAfterMs.n`. */
  afterAsksOverFactor: number;
  /** Asks sent from the first put to the last put's ack. */
  duringBurst: number;
  /** Longest latency of those (a timed-out ask counts its timeout), ms. */
  longestDuringBurstMs: number;
  /** Asks sent from the first put to the end of the window after the burst that got no answer within ANSWER_WITHIN_MS. */
  notAnsweredWithin1s: number;
  /** The same, only those sent during the burst. */
  notAnsweredWithin1sDuringBurst: number;
  /**
   * From the last put's ack to the send time of the first ask from which on
   * every ask was answered (200) within the idle bar, ms; 0
   * when that run began before the last ack; NaN when the last ask itself was
   * slower (not idle again within the window).
   */
  backToIdleMs: number;
  /** How many asks ended each way, during the burst and after it. */
  outcomes: Record<string, number>;
  latencyDuringMs: Summary;
  latencyAfterMs: Summary;
}

/**
 * `idle`: the asks before the burst; `asks`: those from the first put on, in
 * the order sent, with `at` from the first put; `lastAckAt`: the last put's
 * ack, on the same clock.
 */
export function summarizeBurst(idle: readonly Ask[], asks: readonly Ask[], lastAckAt: number): BurstSummary {
  const idleMs = idle.filter((a) => a.outcome === 200).map((a) => a.ms);
  const idleMedianMs = median(idleMs);
  const idleBarMs = Math.max(IDLE_FACTOR * idleMedianMs, percentile(idleMs, IDLE_PERCENTILE));
  const during = asks.filter((a) => a.at <= lastAckAt);
  const after = asks.filter((a) => a.at > lastAckAt);
  const late = (a: Ask): boolean => !answered(a.outcome) || a.ms > ANSWER_WITHIN_MS;
  const idleAgain = (a: Ask): boolean => a.outcome === 200 && a.ms <= idleBarMs;
  const overFactor = (a: Ask): boolean => a.outcome !== 200 || a.ms > IDLE_FACTOR * idleMedianMs;
  // The first ask of the unbroken run of idle-fast asks that lasts to the end.
  let k = asks.length;
  while (k > 0 && idleAgain(asks[k - 1]!)) k--;
  const backToIdleMs = k === asks.length ? Number.NaN : Math.max(0, asks[k]!.at - lastAckAt);
  const outcomes: Record<string, number> = {};
  for (const a of asks) outcomes[String(a.outcome)] = (outcomes[String(a.outcome)] ?? 0) + 1;
  return {
    idleMedianMs,
    idleBarMs,
    idleAsks: idle.length,
    idleAsksOverFactor: idle.filter((a) => a.ms > IDLE_FACTOR * idleMedianMs).length,
    afterAsksOverFactor: after.filter(overFactor).length,
    duringBurst: during.length,
    longestDuringBurstMs: during.length ? Math.max(...during.map((a) => a.ms)) : Number.NaN,
    notAnsweredWithin1s: asks.filter(late).length,
    notAnsweredWithin1sDuringBurst: during.filter(late).length,
    backToIdleMs,
    outcomes,
    latencyDuringMs: summarize(during.map((a) => a.ms)),
    latencyAfterMs: summarize(after.map((a) => a.ms)),
  };
}
