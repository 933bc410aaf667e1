/**
 * A burst of new keys into the live service: `count` keys that do not exist
 * yet (indexes from `keys` on, so nodes numbered after the existing ones:
 * every put is an insert), put at full write speed with 256 in flight as the
 * load does. Around it, an asker sends one node's needs every 100 ms (a
 * different existing node each time, so the answer is built; 2 s timeout):
 * ~20 asks before the burst give the idle latency, then it runs from the
 * first put until 5 s after the last put's ack. When an echo of the answer's
 * size is given, it is asked the same way, 50 ms after each ask of the
 * service, and summed up by the same rules: its "back to idle" is what the
 * server and the machine allow a process that does nothing at all.
 */
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Child } from "./children.js";
import { ECHO_SUBJECT, keyOf, sleep, valueOf } from "./common.js";
import { startAsker, type Ask } from "./asker.js";
import { summarizeBurst, type BurstSummary } from "./burst-summary.js";
import { addGcLine, emptyGcWindow, type GcWindow } from "./gc-trace.js";
import { Progress } from "./load.js";
import { cyclingTarget, nodesTarget } from "./measure.js";

const IN_FLIGHT = 256;
const ASK_EVERY_MS = 100;
const ASK_TIMEOUT_MS = 2000;
const IDLE_ASKS = 20;
const AFTER_MS = 5000;

export interface BurstOptions {
  readonly nc: NatsConnection;
  readonly kv: KV;
  /** The running service (its --trace-gc lines are read when `traceGc`). */
  readonly service: Child;
  /** Keys in the bucket now: the new ones start at this index. */
  readonly keys: number;
  /** How many new keys. */
  readonly count: number;
  /** The bodies asked in turn (one per existing node). */
  readonly bodies: readonly Uint8Array[];
  readonly traceGc: boolean;
  /** An echo answers on ECHO_SUBJECT: ask it too, as the baseline. */
  readonly echo: boolean;
  /** Longest the puts may take; the ones not sent by then are counted. */
  readonly timeoutMs: number;
  readonly log: (line: string) => void;
}

export interface BurstResult {
  newKeys: number;
  firstKey: string;
  lastKey: string;
  putErrors: number;
  /** Puts not sent because the time ran out. */
  putsNotSent: number;
  /** First put -> last put's ack, ms. */
  putMs: number;
  putsPerSecond: number;
  summary: BurstSummary;
  /** Every ask: before the burst (`at` < 0) and from the first put on, `at` from the first put. */
  idle: Ask[];
  asks: Ask[];
  /** The echo's asks summed up by the same rules (with `echo`). */
  echo?: { summary: BurstSummary; idle: Ask[]; asks: Ask[] };
  /** The service's collections from the first put to the end of the window after it (with --trace-gc). */
  gc?: GcWindow;
}

interface Puts {
  errors: number;
  notSent: number;
  /** The last put's ack, performance.now(). */
  lastAck: number;
}

/** Keys from..from+count-1 with IN_FLIGHT puts outstanding; a failed put is counted, never retried or thrown. */
async function putNew(kv: KV, from: number, count: number, deadline: number): Promise<Puts> {
  const progress = new Progress("burst of new keys", count);
  const out: Puts = { errors: 0, notSent: 0, lastAck: performance.now() };
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      if (performance.now() > deadline) {
        out.notSent += count - next;
        next = count;
        break;
      }
      const i = from + next++;
      try {
        await kv.put(keyOf(i), valueOf(i));
        out.lastAck = performance.now();
      } catch {
        out.errors++;
      }
      progress.update(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, Math.max(1, count)) }, worker));
  return out;
}

export async function burstPhase(o: BurstOptions): Promise<BurstResult> {
  o.log(`burst: ${o.count} new keys at full speed (${IN_FLIGHT} in flight), asking one node's needs every ${ASK_EVERY_MS} ms`);
  const offset = Math.floor(Math.random() * o.bodies.length);
  // The idle asks and the burst's asks continue the same node sequence: no node is asked twice close together.
  const idleTarget = nodesTarget(o.bodies, offset);
  const target = nodesTarget(o.bodies, offset + IDLE_ASKS);
  const idleOrigin = performance.now() + IDLE_ASKS * ASK_EVERY_MS;
  // The echo's asks: the same bodies, half a period after the service's (its own origin, so `at` reads the same).
  const echoAsker = (from: number, origin: number, maxAsks: number) =>
    o.echo
      ? sleep(ASK_EVERY_MS / 2).then(() =>
          startAsker(o.nc, cyclingTarget(ECHO_SUBJECT, o.bodies, from), {
            everyMs: ASK_EVERY_MS,
            timeoutMs: ASK_TIMEOUT_MS,
            origin: origin + ASK_EVERY_MS / 2,
            maxAsks,
          }),
        )
      : undefined;
  const idleAsker = startAsker(o.nc, idleTarget, { everyMs: ASK_EVERY_MS, timeoutMs: ASK_TIMEOUT_MS, origin: idleOrigin, maxAsks: IDLE_ASKS });
  const idleEcho = echoAsker(offset, idleOrigin, IDLE_ASKS);
  await sleep(IDLE_ASKS * ASK_EVERY_MS);
  const idle = await idleAsker.stop();
  await sleep(ASK_EVERY_MS / 2);
  const echoIdle = await (await idleEcho)?.stop();

  const gc = o.traceGc ? emptyGcWindow() : undefined;
  if (gc) o.service.onAnyLine = (_stream, line) => addGcLine(gc, line);
  try {
    const origin = performance.now();
    const maxAsks = Math.ceil((o.timeoutMs + AFTER_MS) / ASK_EVERY_MS) + 1;
    const asker = startAsker(o.nc, target, { everyMs: ASK_EVERY_MS, timeoutMs: ASK_TIMEOUT_MS, origin, maxAsks });
    const echoBurst = echoAsker(offset + IDLE_ASKS, origin, maxAsks);
    const puts = await putNew(o.kv, o.keys, o.count, origin + o.timeoutMs);
    const lastAckAt = puts.lastAck - origin;
    o.log(
      `burst: ${o.count - puts.errors - puts.notSent} new keys in ${(lastAckAt / 1000).toFixed(1)} s (${puts.errors} failed, ${puts.notSent} not sent); asking for ${AFTER_MS} ms more`,
    );
    await sleep(Math.max(0, lastAckAt + AFTER_MS - (performance.now() - origin)));
    const asks = await asker.stop();
    const echoAsks = await (await echoBurst)?.stop();
    const summary = summarizeBurst(idle, asks, lastAckAt);
    const echo = echoIdle && echoAsks ? { summary: summarizeBurst(echoIdle, echoAsks, lastAckAt), idle: echoIdle, asks: echoAsks } : undefined;
    o.log(
      `burst: ${summary.duringBurst} asks during it, longest ${summary.longestDuringBurstMs.toFixed(1)} ms, ${summary.notAnsweredWithin1s} not answered within 1 s;` +
        ` idle median ${summary.idleMedianMs.toFixed(2)} ms (${summary.idleAsksOverFactor} of ${summary.idleAsks} idle asks over 2x it);` +
        ` back to idle ${summary.backToIdleMs.toFixed(0)} ms after the last ack (1 s windows: p50 within ${summary.windowMedianBarMs.toFixed(2)} ms, p80 within ${summary.windowSpreadBarMs.toFixed(2)} ms);` +
        ` every ask within ${summary.idleBarMs.toFixed(2)} ms ${summary.everyAskWithinBarMs.toFixed(0)} ms after it (${summary.afterAsksOverFactor} of ${summary.latencyAfterMs.n} asks after it over 2x the median)` +
        (echo
          ? `; the echo back to idle ${echo.summary.backToIdleMs.toFixed(0)} ms after it (every ask within its bar: ${echo.summary.everyAskWithinBarMs.toFixed(0)} ms)`
          : "") +
        (gc
          ? `; the service ran ${gc.markCompact} mark-compacts (longest ${gc.longestMarkCompactMs} ms), ${gc.scavenge} scavenges (longest ${gc.longestScavengeMs} ms)`
          : ""),
    );
    return {
      newKeys: o.count,
      firstKey: keyOf(o.keys),
      lastKey: keyOf(o.keys + o.count - 1),
      putErrors: puts.errors,
      putsNotSent: puts.notSent,
      putMs: lastAckAt,
      putsPerSecond: Math.round((o.count - puts.errors - puts.notSent) / (lastAckAt / 1000)),
      summary,
      idle,
      asks,
      echo,
      gc,
    };
  } finally {
    if (gc) o.service.onAnyLine = undefined;
  }
}
