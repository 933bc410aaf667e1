/**
 * Throughput against the echo, 64 requests in flight, in alternating rounds
 * (echo first in even rounds, the service first in odd ones):
 *
 * - cached: the probe node's needs every time, which the service answers
 *   from its answer cache after the first request;
 * - uncached: a different node each request, n0 … n<nodes-1> in turn from a
 *   random offset (the same offset for both sides of a round, so the echo
 *   gets the same bodies), with the revision ticker running through both
 *   sides so that no answer can come from the cache. The service's own count
 *   of cache hits over the rounds is kept to show it.
 */
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { ECHO_SUBJECT } from "./common.js";
import { cyclingTarget, nodesTarget, fixedTarget, throughput, type Target } from "./measure.js";
import { bumpRevision, startTicker } from "./revision-ticker.js";
import { tallySince, verbTally, type VerbTally } from "./verb-tally.js";

export const IN_FLIGHT = 64;

export interface ThroughputRounds {
  /** Requests per second of each round. */
  service: number[];
  echo: number[];
  errors: { service: number; echo: number };
  /** Where each uncached round started in the node list. */
  offsets?: number[];
  /** The service's requests and cache hits over the rounds (uncached only). */
  verb?: VerbTally;
  /** The ticker's puts over the rounds (uncached only). */
  ticker?: { puts: number; errors: number };
}

/** `rounds` rounds of each side; `targetsOf(r)` gives round r's service and echo targets. */
async function alternate(
  nc: NatsConnection,
  rounds: number,
  durationMs: number,
  targetsOf: (r: number) => { service: Target; echo: Target },
): Promise<ThroughputRounds> {
  const out: ThroughputRounds = { service: [], echo: [], errors: { service: 0, echo: 0 } };
  for (let r = 0; r < rounds; r++) {
    const t = targetsOf(r);
    for (const who of r % 2 === 0 ? (["echo", "service"] as const) : (["service", "echo"] as const)) {
      const res = await throughput(nc, t[who], IN_FLIGHT, durationMs);
      out[who].push(res.perSecond);
      out.errors[who] += res.errors;
    }
  }
  return out;
}

export function cachedThroughput(nc: NatsConnection, probeBody: Uint8Array, rounds: number, durationMs: number): Promise<ThroughputRounds> {
  const t = { service: fixedTarget(VERB_SUBJECT, probeBody), echo: fixedTarget(ECHO_SUBJECT, probeBody) };
  return alternate(nc, rounds, durationMs, () => t);
}

export async function uncachedThroughput(
  nc: NatsConnection,
  kv: KV,
  bodies: readonly Uint8Array[],
  rounds: number,
  durationMs: number,
): Promise<ThroughputRounds> {
  const offsets = Array.from({ length: rounds }, () => Math.floor(Math.random() * bodies.length));
  // A new revision first: nothing answered before (the probe node's cached answer) can match.
  await bumpRevision(nc, kv, VERB_SUBJECT);
  const before = await verbTally(nc, 1);
  const ticker = startTicker(kv);
  let out: ThroughputRounds;
  let tick: Awaited<ReturnType<typeof ticker.stop>>;
  try {
    out = await alternate(nc, rounds, durationMs, (r) => ({
      service: nodesTarget(bodies, offsets[r]!),
      echo: cyclingTarget(ECHO_SUBJECT, bodies, offsets[r]!),
    }));
  } finally {
    tick = await ticker.stop();
  }
  return { ...out, offsets, ticker: tick, verb: tallySince(before, await verbTally(nc, 1)) };
}
