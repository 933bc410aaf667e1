/**
 * The running instances as `$SRV.STATS` reports them (I/O): each one's
 * projections and whether it holds the seat. Used by `query` to say who holds
 * the seat, and by operators' tools. The reply's shape and its reading are
 * the protocol's (protocol/stats.ts).
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { Svcm } from "@nats-io/services";
import type { What } from "../keys/mod.js";
import { SERVICE_NAME } from "../protocol/subjects.js";
import { furthestRevision, instanceSeats, type InstanceSeat, type StatsReply } from "../protocol/stats.js";

export { describeSeat, type InstanceSeat } from "../protocol/stats.js";

/** Each running instance's `$SRV.STATS` reply. */
async function statsReplies(nc: NatsConnection, maxWaitMs: number): Promise<StatsReply[]> {
  const out: StatsReply[] = [];
  const iter = await new Svcm(nc).client({ strategy: "timer", maxWait: maxWaitMs }).stats(SERVICE_NAME);
  for await (const s of iter) out.push(s);
  return out;
}

export async function instances(nc: NatsConnection, maxWaitMs = 500): Promise<InstanceSeat[]> {
  return instanceSeats(await statsReplies(nc, maxWaitMs));
}

/**
 * The furthest revision any running instance has applied of a bucket, as
 * `$SRV.STATS` reports it (0 when none answers): a snapshot asked with it as
 * `minRevision` holds every write some instance has seen, whichever instance
 * of the queue group answers.
 */
export async function furthestApplied(nc: NatsConnection, what: What, maxWaitMs = 300): Promise<number> {
  return furthestRevision(await statsReplies(nc, maxWaitMs), what);
}
