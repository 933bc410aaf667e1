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
 * Back at idle latency: from some ask on, every window of WINDOW_ASKS asks
 * in a row (one second at one ask every 100 ms) was answered (200) with its
 * median within WINDOW_MEDIAN_FACTOR x the idle median and its
 * WINDOW_PERCENTILE (all but its two slowest asks) within
 * WINDOW_SPREAD_FACTOR x the idle asks' own WINDOW_PERCENTILE (all but their
 * four slowest of 20).
 *
 * Why windows and not every ask: on this 2-core machine the idle asks
 * themselves are slow now and then (about 1 in 5 over twice the median, in
 * bursts ~500 ms apart, the echo's as much as the service's). A rule that
 * holds every ask to the idle asks' p95 compares the slowest of 50 asks with
 * the second slowest of 20: it failed the echo, asked alongside, in every
 * burst measured (2.2–4.7 s after the last ack), and would fail an idle
 * process as often. A service still catching up after a burst moves the
 * median of its windows, and slow asks in a row move their p80.
 *
 * Why p80 and not p90: the machine slows an ask about every 500 ms (an echo
 * alone on an empty server, asked every 100 ms: one ask in five 1–3.5 ms
 * over its ~1.8 ms), so a 1 s window holds two such asks, and its p90 (all
 * but its slowest) is one of them. The idle p90 (all but the two slowest of
 * 20) is one only when the 2 s before the burst happened to hold three: it
 * was 2.0 ms in one run and 6.6 ms in another, and the first run read a
 * service answering in ~1.2 ms after the burst, with a ~4 ms ask every
 * 500 ms as the echo had, as never back at idle. Leaving out two asks a
 * window and four of the idle ones (the same share) takes that beat out of
 * both sides: the two bars were 3.9 and 4.4 ms in those runs.
 */
export const WINDOW_ASKS = 10;
export const WINDOW_MEDIAN_FACTOR = 1.5;
export const WINDOW_PERCENTILE = 80;
export const WINDOW_SPREAD_FACTOR = 2;
/**
 * The rule before (kept as context): every ask within the idle bar, this
 * many times the idle median, or the idle asks' own p95 when that is slower.
 */
export const IDLE_FACTOR = 2;
export const IDLE_PERCENTILE = 95;

/** An answer, even one that says "not synced, retry" (503); any other service error is not. */
export const answered = (o: Outcome): boolean => o === 200 || o === 503;

export interface BurstSummary {
  /** Median latency of the asks before the burst, ms. */
  idleMedianMs: number;
  /** The slowest of them, ms. */
  idleMaxMs: number;
  /** An ask within this is idle-fast by the rule before: max(IDLE_FACTOR x the idle median, the idle asks' IDLE_PERCENTILE), ms. */
  idleBarMs: number;
  /** A window's median within this is at idle latency: WINDOW_MEDIAN_FACTOR x the idle median, ms. */
  windowMedianBarMs: number;
  /** A window's WINDOW_PERCENTILE within this is at idle latency: WINDOW_SPREAD_FACTOR x the idle asks' own, ms. */
  windowSpreadBarMs: number;
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
   * From the last put's ack to the send time of the first ask of the first
   * window from which on every window is at idle latency (see WINDOW_ASKS),
   * ms; 0 when that began before the last ack; NaN when the last window is
   * not at idle latency (not idle again within the asks), or there are
   * fewer asks than a window.
   */
  backToIdleMs: number;
  /**
   * The rule before, as context: from the last put's ack to the first ask
   * from which on every ask was answered (200) within `idleBarMs`; 0 and
   * NaN as above.
   */
  everyAskWithinBarMs: number;
  /** How many asks ended each way, during the burst and after it. */
  outcomes: Record<string, number>;
  latencyDuringMs: Summary;
  latencyAfterMs: Summary;
}

/** The first of 0 … n-1 from which on `ok` holds for every index to the last; n when it does not hold for the last. */
function lastRunStart(n: number, ok: (i: number) => boolean): number {
  let i = n;
  while (i > 0 && ok(i - 1)) i--;
  return i;
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
  // From the last ack to the send time of ask `i` (0 before it); NaN when no run lasts to the end (i === n).
  const sinceAck = (i: number, n: number): number => (i === n ? Number.NaN : Math.max(0, asks[i]!.at - lastAckAt));
  // The rule before: the first ask of the unbroken run of idle-fast asks that lasts to the end.
  const everyAskWithinBarMs = sinceAck(
    lastRunStart(asks.length, (i) => idleAgain(asks[i]!)),
    asks.length,
  );
  const windowMedianBarMs = WINDOW_MEDIAN_FACTOR * idleMedianMs;
  const windowSpreadBarMs = WINDOW_SPREAD_FACTOR * percentile(idleMs, WINDOW_PERCENTILE);
  const atIdle = (from: number): boolean => {
    const w = asks.slice(from, from + WINDOW_ASKS);
    const ms = w.map((a) => a.ms);
    return w.every((a) => a.outcome === 200) && median(ms) <= windowMedianBarMs && percentile(ms, WINDOW_PERCENTILE) <= windowSpreadBarMs;
  };
  // The first window of the unbroken run of windows at idle latency that lasts to the end (windows start at 0 … n - WINDOW_ASKS).
  const windows = Math.max(0, asks.length - WINDOW_ASKS + 1);
  const backToIdleMs = sinceAck(lastRunStart(windows, atIdle), windows);
  const outcomes: Record<string, number> = {};
  for (const a of asks) outcomes[String(a.outcome)] = (outcomes[String(a.outcome)] ?? 0) + 1;
  return {
    idleMedianMs,
    idleMaxMs: Math.max(...idleMs),
    idleBarMs,
    windowMedianBarMs,
    windowSpreadBarMs,
    idleAsks: idle.length,
    idleAsksOverFactor: idle.filter((a) => a.ms > IDLE_FACTOR * idleMedianMs).length,
    afterAsksOverFactor: after.filter(overFactor).length,
    duringBurst: during.length,
    longestDuringBurstMs: during.length ? Math.max(...during.map((a) => a.ms)) : Number.NaN,
    notAnsweredWithin1s: asks.filter(late).length,
    notAnsweredWithin1sDuringBurst: during.filter(late).length,
    backToIdleMs,
    everyAskWithinBarMs,
    outcomes,
    latencyDuringMs: summarize(during.map((a) => a.ms)),
    latencyAfterMs: summarize(after.map((a) => a.ms)),
  };
}
