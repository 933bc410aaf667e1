/**
 * The running instances as `$SRV.STATS` reports them (I/O): each one's
 * projections and whether it holds the seat. Used by `query` to say who holds
 * the seat, and by operators' tools.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { Svcm } from "@nats-io/services";
import { SERVICE_NAME } from "./service.js";

export interface InstanceSeat {
  readonly id: string;
  readonly instance?: string;
  readonly isHolder: boolean;
  readonly holder?: { instance: string; host: string; pid: number; since: string } | null;
}

/** Each running instance's id and what its endpoint adds to `$SRV.STATS` (the seat, the projections' revisions). */
async function statsData(nc: NatsConnection, maxWaitMs: number): Promise<{ id: string; data: StatsData | undefined }[]> {
  const out: { id: string; data: StatsData | undefined }[] = [];
  const iter = await new Svcm(nc).client({ strategy: "timer", maxWait: maxWaitMs }).stats(SERVICE_NAME);
  for await (const s of iter) out.push({ id: s.id, data: s.endpoints?.[0]?.data as StatsData | undefined });
  return out;
}

interface StatsData {
  seat?: Omit<InstanceSeat, "id">;
  projections?: Record<string, { revision?: number }>;
}

export async function instances(nc: NatsConnection, maxWaitMs = 500): Promise<InstanceSeat[]> {
  const out = (await statsData(nc, maxWaitMs)).map(({ id, data }) => ({ id, instance: data?.seat?.instance, isHolder: data?.seat?.isHolder === true, holder: data?.seat?.holder }));
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

export function describeSeat(list: readonly InstanceSeat[]): string {
  if (list.length === 0) return "seat: no instance answered $SRV.STATS";
  const holders = list.filter((i) => i.isHolder);
  const h = holders[0]?.holder ?? list.find((i) => i.holder)?.holder;
  const who = h ? `${h.instance} (host ${h.host}, pid ${h.pid}, since ${h.since})` : "nobody";
  return `seat: held by ${who}; ${list.length} instance${list.length === 1 ? "" : "s"} answering, ${holders.length} holding`;
}

/**
 * The furthest revision any running instance has applied of a bucket, as
 * `$SRV.STATS` reports it (0 when none answers): a snapshot asked with it as
 * `minRevision` holds every write some instance has seen, whichever instance
 * of the queue group answers.
 */
export async function furthestApplied(nc: NatsConnection, what: string, maxWaitMs = 300): Promise<number> {
  let furthest = 0;
  for (const { data } of await statsData(nc, maxWaitMs)) {
    const r = data?.projections?.[what]?.revision;
    if (typeof r === "number" && r > furthest) furthest = r;
  }
  return furthest;
}
