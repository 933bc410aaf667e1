/**
 * The running instances as `$SRV.STATS` reports them (I/O): each one's
 * projections and whether it holds the seat. The watch asks it for the seat's
 * holder and the furthest revision applied; `query` and `dump` say who holds
 * the seat. Asked with the connection's own request-many, as the micro
 * service client asks it, so the client needs no service library.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import type { What } from "./keys/mod.js";
import { STATS_SUBJECT } from "./protocol/subjects.js";
import { furthestRevision, instanceSeats, type InstanceSeat, type StatsReply } from "./protocol/stats.js";

/** Every reply to one `$SRV.STATS` request that arrives within `maxWaitMs`. */
async function statsReplies(nc: NatsConnection, maxWaitMs: number): Promise<StatsReply[]> {
  const out: StatsReply[] = [];
  for await (const m of await nc.requestMany(STATS_SUBJECT, undefined, { strategy: "timer", maxWait: maxWaitMs })) out.push(m.json<StatsReply>());
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
