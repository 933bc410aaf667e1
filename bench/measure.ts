/**
 * The driver's measurements on its own connection: request latency with one
 * in flight, throughput with many in flight, and put-to-visible. Every loop is
 * bounded by a count and a deadline; a request that fails is counted, never
 * thrown out of a callback.
 */
import type { KV } from "@nats-io/kv";
import type { Msg, NatsConnection } from "@nats-io/nats-core";
import { KEYS_PER_NODE, sleep, valueOf } from "./common.js";
import { nodeVerbSubject } from "mesh-provisioner-client/protocol/subjects.js";

export interface Target {
  /** The subject of this target's request number i. */
  readonly subjectOf: (i: number) => string;
  /** The body of this target's request number i (0, 1, 2, …): pre-encoded, so asking encodes nothing. */
  readonly bodyOf: (i: number) => Uint8Array;
}

const REQUEST_TIMEOUT_MS = 10_000;
const enc = new TextEncoder();
export const jsonBody = (obj: unknown): Uint8Array => enc.encode(JSON.stringify(obj));

/** The same body every time. */
export const fixedTarget = (subject: string, body: Uint8Array): Target => ({ subjectOf: () => subject, bodyOf: () => body });

/** The bodies in turn from `offset`, round and round. */
export function cyclingTarget(subject: string | readonly string[], bodies: readonly Uint8Array[], offset: number): Target {
  if (bodies.length === 0) throw new Error("cyclingTarget needs at least one body");
  const n = bodies.length;
  const start = ((offset % n) + n) % n;
  const subjectOf = typeof subject === "string" ? () => subject : (i: number) => subject[(start + i) % n]!;
  return { subjectOf, bodyOf: (i) => bodies[(start + i) % n]! };
}

/** `{"what":"needs","node":"n<i>"}` for every node n0 … n<nodes-1>, encoded once. */
export const needsBodies = (nodes: number): Uint8Array[] => Array.from({ length: nodes }, (_, i) => jsonBody({ what: "needs", node: `n${i}` }));

/** Node n<i>'s own verb subject for each body of `needsBodies`: where a node's client asks its own needs. */
export const needsSubjects = (nodes: number): string[] => Array.from({ length: nodes }, (_, i) => nodeVerbSubject(`n${i}`));

/** The service asked as the nodes ask it: `bodies` (from `needsBodies`) in turn from `offset`, each on its node's own subject. */
export const nodesTarget = (bodies: readonly Uint8Array[], offset: number): Target => cyclingTarget(needsSubjects(bodies.length), bodies, offset);

/** The service's error code of a reply (Nats-Service-Error-Code), or undefined for an answer. */
export function serviceErrorCode(m: Msg): number | undefined {
  const code = m.headers?.get("Nats-Service-Error-Code");
  return code ? Number(code) : undefined;
}

/** One request; its time in ms, or undefined when it failed. */
async function timed(nc: NatsConnection, subject: string, body: Uint8Array): Promise<number | undefined> {
  const t0 = performance.now();
  try {
    const m = await nc.request(subject, body, { timeout: REQUEST_TIMEOUT_MS });
    return serviceErrorCode(m) !== undefined ? undefined : performance.now() - t0;
  } catch {
    return undefined;
  }
}

export interface LatencySamples {
  ms: number[];
  errors: number;
}

/**
 * Latency with one request in flight for several targets, alternating ask
 * by ask (A, B, A, B, …) so that whatever else the machine does hits every
 * target alike. `warmup` requests per target go first. Each target's
 * requests take its bodies in order (warm-up included), so two targets given
 * the same sequence ask the same things in the same order.
 *
 * Why not blocks of asks (it was 6 blocks of 500 per target): this machine
 * slows now and then for a second or more, long enough to fall on one
 * side's block only. At 1M keys the service's uncached p99 read 2.6x and
 * 3.9x the echo's in blocks, and 1.23x ask by ask on the same bucket
 * minutes later, where both sides' p99 rose together (3.8 and 3.1 ms).
 */
export async function interleavedLatency(
  nc: NatsConnection,
  targets: readonly Target[],
  opts: { count: number; warmup: number; timeoutMs: number },
): Promise<LatencySamples[]> {
  const out = targets.map((): LatencySamples => ({ ms: [], errors: 0 }));
  const sent = targets.map(() => 0);
  const deadline = Date.now() + opts.timeoutMs;
  const ask = (ti: number): Promise<number | undefined> => {
    const t = targets[ti]!;
    const i = sent[ti]!++;
    return timed(nc, t.subjectOf(i), t.bodyOf(i));
  };
  for (let ti = 0; ti < targets.length; ti++) for (let i = 0; i < opts.warmup && Date.now() < deadline; i++) await ask(ti);
  for (let i = 0; i < opts.count && Date.now() < deadline; i++) {
    for (let ti = 0; ti < targets.length; ti++) {
      const ms = await ask(ti);
      if (ms === undefined) out[ti]!.errors++;
      else out[ti]!.ms.push(ms);
    }
  }
  return out;
}

export interface Throughput {
  perSecond: number;
  completed: number;
  errors: number;
  ms: number;
}

/**
 * Requests per second with `inFlight` requests outstanding for `durationMs`.
 * Request number i (counted across all of them, in the order they are sent)
 * carries `t.bodyOf(i)`.
 */
export async function throughput(nc: NatsConnection, t: Target, inFlight: number, durationMs: number): Promise<Throughput> {
  let completed = 0;
  let errors = 0;
  let next = 0;
  const t0 = performance.now();
  const end = t0 + durationMs;
  const worker = async (): Promise<void> => {
    // Bounded by time; a worker whose requests all fail still stops at the end.
    while (performance.now() < end) {
      const i = next++;
      if ((await timed(nc, t.subjectOf(i), t.bodyOf(i))) === undefined) errors++;
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
      if (serviceErrorCode(m) !== undefined || m.data.length === 0) res.errors++;
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
