/**
 * How many requests the running service instances answered, and how many of
 * those came from their answer cache, summed over every instance that
 * answers `$SRV.STATS`. Read before and after an "uncached" measurement, it
 * says whether the answers were really built.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { Svcm } from "@nats-io/services";
import { SERVICE_NAME } from "mesh-provisioner-client/protocol/subjects.js";
import { statsOf } from "mesh-provisioner-client/protocol/stats.js";

export interface VerbTally {
  instances: number;
  requests: number;
  cacheHits: number;
}

/** Waits `instances` answers (or `maxWaitMs`); a failure gives a tally of NaN, never an exception. */
export async function verbTally(nc: NatsConnection, instances: number, maxWaitMs = 2000): Promise<VerbTally> {
  const out: VerbTally = { instances: 0, requests: 0, cacheHits: 0 };
  try {
    const client = new Svcm(nc).client({ strategy: "count", maxMessages: instances, maxWait: maxWaitMs });
    for await (const s of await client.stats(SERVICE_NAME)) {
      const data = statsOf(s);
      out.instances++;
      out.requests += typeof data?.requests === "number" ? data.requests : Number.NaN;
      out.cacheHits += typeof data?.cacheHits === "number" ? data.cacheHits : Number.NaN;
    }
  } catch {
    return { instances: out.instances, requests: Number.NaN, cacheHits: Number.NaN };
  }
  return out;
}

/** What happened between two tallies (NaN when the instances differ: a counter restarted). */
export function tallySince(before: VerbTally, after: VerbTally): VerbTally {
  if (before.instances !== after.instances) return { instances: after.instances, requests: Number.NaN, cacheHits: Number.NaN };
  return { instances: after.instances, requests: after.requests - before.requests, cacheHits: after.cacheHits - before.cacheHits };
}
