/**
 * The driver's measurements on its own connection: request latency with one
 * in flight, throughput with many in flight, and put-to-visible. Every loop is
 * bounded by a count and a deadline; a request that fails is counted, never
 * thrown out of a callback.
 */
import type { KV } from "@nats-io/kv";
import type { Msg, NatsConnection } from "@nats-io/nats-core";
import { KEYS_PER_NODE, sleep, valueOf } from "./common.js";

export interface Target {
  readonly subject: string;
  readonly body: Uint8Array;
}

const REQUEST_TIMEOUT_MS = 10_000;
const enc = new TextEncoder();
export const jsonBody = (obj: unknown): Uint8Array => enc.encode(JSON.stringify(obj));

function isServiceError(m: Msg): boolean {
  return m.headers?.get("Nats-Service-Error-Code") ? true : false;
}

/** One request; its time in ms, or undefined when it failed. */
async function timed(nc: NatsConnection, t: Target): Promise<number | undefined> {
  const t0 = performance.now();
  try {
    const m = await nc.request(t.subject, t.body, { timeout: REQUEST_TIMEOUT_MS });
    return isServiceError(m) ? undefined : performance.now() - t0;
  } catch {
    return undefined;
  }
}

export interface LatencySamples {
  ms: number[];
  errors: number;
}

/**
 * Latency with one request in flight for several targets, interleaved in
 * blocks (A, B, A, B, …) so that a burst of load from someone else on the
 * machine hits every target alike. `warmup` requests per target go first.
 */
export async function interleavedLatency(
  nc: NatsConnection,
  targets: readonly Target[],
  opts: { count: number; warmup: number; blocks: number; timeoutMs: number },
): Promise<LatencySamples[]> {
  const out = targets.map((): LatencySamples => ({ ms: [], errors: 0 }));
  const deadline = Date.now() + opts.timeoutMs;
  for (const t of targets) for (let i = 0; i < opts.warmup && Date.now() < deadline; i++) await timed(nc, t);
  const perBlock = Math.max(1, Math.ceil(opts.count / opts.blocks));
  for (let b = 0; b < opts.blocks && Date.now() < deadline; b++) {
    for (let ti = 0; ti < targets.length; ti++) {
      const t = targets[ti]!;
      const o = out[ti]!;
      for (let i = 0; i < perBlock && o.ms.length < opts.count && Date.now() < deadline; i++) {
        const ms = await timed(nc, t);
        if (ms === undefined) o.errors++;
        else o.ms.push(ms);
      }
    }
  }
  return out;
}

/** Latency of one request for each body in turn (e.g. a different node each time). */
export async function latencyOver(nc: NatsConnection, subject: string, bodies: readonly Uint8Array[], timeoutMs: number): Promise<LatencySamples> {
  const out: LatencySamples = { ms: [], errors: 0 };
  const deadline = Date.now() + timeoutMs;
  for (const body of bodies) {
    if (Date.now() > deadline) break;
    const ms = await timed(nc, { subject, body });
    if (ms === undefined) out.errors++;
    else out.ms.push(ms);
  }
  return out;
}

export interface Throughput {
  perSecond: number;
  completed: number;
  errors: number;
  ms: number;
}

/** Requests per second with `inFlight` requests outstanding for `durationMs`. */
export async function throughput(nc: NatsConnection, t: Target, inFlight: number, durationMs: number): Promise<Throughput> {
  let completed = 0;
  let errors = 0;
  const t0 = performance.now();
  const end = t0 + durationMs;
  const worker = async (): Promise<void> => {
    // Bounded by time; a worker whose requests all fail still stops at the end.
    while (performance.now() < end) {
      if ((await timed(nc, t)) === undefined) errors++;
      else completed++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const ms = performance.now() - t0;
  return { perSecond: completed / (ms / 1000), completed, errors, ms };
}

export interface PutVisible {
  /** put start -> the verb's answer at the put's revision, ms. */
  visibleMs: number[];
  /** put start -> the put's ack, ms (the floor of the figure above). */
  ackMs: number[];
  /** the put's ack -> the verb's answer at the put's revision, ms: how long after it was committed the write became visible. */
  afterAckMs: number[];
  attempted: number;
  errors: number;
  /** Puts not started because too many were still outstanding. */
  skipped: number;
  achievedPerSecond: number;
}

/**
 * At `rate` puts per second for `durationMs`: put a new value on a random
 * node's key, and right after the ack ask the verb for that node's needs at
 * the put's revision (`minRevision`); the time from the put's start to the
 * answer is how long a write takes to be visible in the verb.
 */
export async function putToVisible(
  nc: NatsConnection,
  kv: KV,
  verbSubject: string,
  opts: { rate: number; durationMs: number; keys: number; maxOutstanding: number; bodyOf?: (node: string, revision: number) => Uint8Array },
): Promise<PutVisible> {
  const res: PutVisible = { visibleMs: [], ackMs: [], afterAckMs: [], attempted: 0, errors: 0, skipped: 0, achievedPerSecond: 0 };
  let outstanding = 0;
  let salt = 1;
  const one = async (): Promise<void> => {
    const i = Math.floor(Math.random() * opts.keys);
    const node = `n${Math.floor(i / KEYS_PER_NODE)}`;
    const key = `${node}.m${Math.floor((i % KEYS_PER_NODE) / 10)}.config.k${i % 10}`;
    const t0 = performance.now();
    try {
      const revision = await kv.put(key, valueOf(i, salt++));
      const acked = performance.now();
      res.ackMs.push(acked - t0);
      const body = opts.bodyOf ? opts.bodyOf(node, revision) : jsonBody({ what: "needs", node, minRevision: revision });
      const m = await nc.request(verbSubject, body, { timeout: REQUEST_TIMEOUT_MS });
      if (isServiceError(m) || m.data.length === 0) res.errors++;
      else {
        const answered = performance.now();
        res.visibleMs.push(answered - t0);
        res.afterAckMs.push(answered - acked);
      }
    } catch {
      res.errors++;
    }
  };
  const pending = new Set<Promise<void>>();
  const t0 = performance.now();
  const total = Math.round((opts.rate * opts.durationMs) / 1000);
  // Every few ms, start as many puts as are due by now.
  while (res.attempted + res.skipped < total) {
    const elapsed = performance.now() - t0;
    if (elapsed > opts.durationMs * 2) break;
    const due = Math.min(total, Math.floor((elapsed * opts.rate) / 1000)) - res.attempted - res.skipped;
    for (let k = 0; k < due; k++) {
      if (outstanding >= opts.maxOutstanding) {
        res.skipped++;
        continue;
      }
      res.attempted++;
      outstanding++;
      const p = one().finally(() => {
        outstanding--;
        pending.delete(p);
      });
      pending.add(p);
    }
    await sleep(2);
  }
  res.achievedPerSecond = res.attempted / ((performance.now() - t0) / 1000);
  await Promise.race([Promise.all(pending), sleep(REQUEST_TIMEOUT_MS + 1000)]);
  return res;
}
