/**
 * What the verb's endpoint adds to `$SRV.STATS` (types and pure reads): each
 * projection's revision and lag, the request counters, the seat as this
 * instance sees it, and the consumer creations its watches asked for. The
 * service builds it, the client reads it to find the seat's holder and the
 * furthest revision applied; both take the shape from here.
 */
import type { What } from "./what.js";
import type { Staleness } from "./messages.js";

/** The seat's value in its bucket: who holds it, since when. */
export interface HolderValue {
  readonly instance: string;
  readonly host: string;
  readonly pid: number;
  readonly since: string;
}

/** One projection as it is now. */
export interface ProjectionStats {
  readonly what: string;
  readonly bucket: string;
  readonly revision: number;
  readonly entries: number;
  readonly outOfShape: number;
  readonly synced: boolean;
  readonly everSynced: boolean;
  /** The last moment the projection heard from its bucket's stream (ISO 8601, UTC, ms). */
  readonly heardAt: string;
  /** Present only while it has heard nothing for longer than `--stale-after`: what its answers carry. */
  readonly stale?: Staleness;
}

/** One projection in `$SRV.STATS`: with how far it is behind its stream (null when the stream could not be asked in time). */
export interface ProjectionStatsWithLag extends ProjectionStats {
  lag?: number | null;
}

/** Consumer creations of one bucket's watch. */
export interface CreationCounts {
  /** Creation requests sent. */
  asked: number;
  /** Of those, requests that asked again for a consumer whose creation had timed out. */
  retried: number;
  created: number;
  timedOut: number;
  failed: number;
  /** How long the last creation that succeeded took. */
  lastMs: number;
}

/** How one node bucket's projection started, and the checkpoints of it this instance wrote. */
export interface CheckpointCounts {
  /** The last start: from a checkpoint once proven, read whole ("full", with `reason`), "pending" while proving, "none" before any. */
  start: "checkpoint" | "full" | "pending" | "none";
  /** Why the last start read the bucket whole (a label of mesh_provisioner_checkpoint_fallbacks_total). */
  reason?: string;
  /** The revision of the checkpoint the last start loaded. */
  loadedRevision?: number;
  /** Starts that read the bucket whole instead of a checkpoint, by reason. */
  fallbacks: Record<string, number>;
  /** Checkpoints written by this instance, their bytes (before replication), failed writes, and the last one's revision, time and duration. */
  written: number;
  bytesWritten: number;
  failed: number;
  lastRevision?: number;
  lastWrittenAt?: string;
  lastWriteMs?: number;
}

/** The seat as the answering instance sees it. */
export interface SeatStats {
  readonly holder: HolderValue | null;
  readonly isHolder: boolean;
  readonly instance: string;
}

/** What a running instance adds beside its projections and counters. */
export interface InstanceStats {
  readonly seat?: SeatStats;
  readonly consumers?: Record<string, CreationCounts>;
  readonly checkpoints?: Record<string, CheckpointCounts>;
}

/** The `data` of the verb's endpoint in `$SRV.STATS`. */
export interface StatsData extends InstanceStats {
  readonly projections: Readonly<Record<What, ProjectionStatsWithLag>>;
  readonly requests: number;
  readonly errors: number;
  readonly cacheHits: number;
}

/** One instance's `$SRV.STATS` reply, as far as this protocol reads it. */
export interface StatsReply {
  readonly id: string;
  readonly endpoints?: readonly { readonly data?: unknown }[];
}

/** The verb endpoint's data of one reply (its only endpoint), when it has any. */
export function statsOf(reply: StatsReply): Partial<StatsData> | undefined {
  return reply.endpoints?.[0]?.data as Partial<StatsData> | undefined;
}

/** One running instance and the seat as it sees it. */
export interface InstanceSeat {
  readonly id: string;
  readonly instance?: string;
  readonly isHolder: boolean;
  readonly holder?: HolderValue | null;
}

/** Each instance that replied, in order of id. */
export function instanceSeats(replies: readonly StatsReply[]): InstanceSeat[] {
  const out = replies.map((r) => {
    const seat = statsOf(r)?.seat;
    return { id: r.id, instance: seat?.instance, isHolder: seat?.isHolder === true, holder: seat?.holder };
  });
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * The hold the feed comes from, as the instances that replied report it: the
 * holder's instance and the `since` of its take, or null when none says it
 * holds the seat. Only the holder publishes the feed, and it publishes every
 * change for as long as one hold lasts; an instance that loses the seat and
 * takes it again does so with a new `since`. So a watch whose hold changed
 * (another instance, or the same one anew) may have missed events.
 */
export function holdOf(list: readonly InstanceSeat[]): string | null {
  const h = list.find((i) => i.isHolder)?.holder;
  return h ? `${h.instance} since ${h.since}` : null;
}

/** One line for a person: who holds the seat, and how many instances answer and hold it. */
export function describeSeat(list: readonly InstanceSeat[]): string {
  if (list.length === 0) return "seat: no instance answered $SRV.STATS";
  const holders = list.filter((i) => i.isHolder);
  const h = holders[0]?.holder ?? list.find((i) => i.holder)?.holder;
  const who = h ? `${h.instance} (host ${h.host}, pid ${h.pid}, since ${h.since})` : "nobody";
  return `seat: held by ${who}; ${list.length} instance${list.length === 1 ? "" : "s"} answering, ${holders.length} holding`;
}

/** The furthest revision of `what` any instance that replied has applied (0 when none says). */
export function furthestRevision(replies: readonly StatsReply[], what: What): number {
  let furthest = 0;
  for (const r of replies) {
    const rev = statsOf(r)?.projections?.[what]?.revision;
    if (typeof rev === "number" && rev > furthest) furthest = rev;
  }
  return furthest;
}
