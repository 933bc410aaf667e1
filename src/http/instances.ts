/**
 * The instances page's data: every running instance as it answers
 * `$SRV.STATS` (the micro service's own stats request, as `query` and the
 * watch ask it), with which one holds the seat, how far each projection is
 * behind its stream and the furthest instance, and how it started (from a
 * checkpoint or the bucket read whole). Asking is I/O (`askInstances`); what
 * is answered from the replies is pure (`instancesJson`).
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { WHATS, type What } from "mesh-provisioner-client/keys";
import { STATS_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { statsOf, type StatsReply } from "mesh-provisioner-client/protocol/stats.js";

/** The longest the page waits for instances to answer. */
export const INSTANCES_MAX_WAIT_MS = 1_000;
/** Once one has answered, the wait ends after this long without another. */
export const INSTANCES_STALL_MS = 150;
/** Replies are reused this long: a page kept live, or many pages, ask the mesh at most once per period. */
export const INSTANCES_REUSE_MS = 1_000;

export interface InstanceProjection {
  readonly revision: number;
  readonly entries: number;
  readonly outOfShape: number;
  readonly synced: boolean;
  /** Behind its stream's last sequence (null: the stream was not read in time). */
  readonly lag: number | null;
  /** Since when the projection has heard nothing from its stream, when that is longer than its instance's --stale-after. */
  readonly staleSince: string | null;
  /** Behind the furthest revision any instance that answered has applied. */
  readonly behindFurthest: number;
  /** How it started: "checkpoint" (its revision), "full" (why), "pending", or null when not said. */
  readonly start: { readonly from: string; readonly revision?: number; readonly reason?: string } | null;
}

export interface InstanceRow {
  readonly id: string;
  readonly instance: string | null;
  readonly isHolder: boolean;
  /** The instance serving this page. */
  readonly self: boolean;
  readonly requests: number | null;
  readonly errors: number | null;
  readonly projections: Partial<Record<What, InstanceProjection>>;
}

/** Ask every instance for its stats; the replies that came before the wait ended. */
export async function askInstances(nc: Pick<NatsConnection, "requestMany">): Promise<StatsReply[]> {
  const out: StatsReply[] = [];
  const replies = await nc.requestMany(STATS_SUBJECT, undefined, { strategy: "stall", stall: INSTANCES_STALL_MS, maxWait: INSTANCES_MAX_WAIT_MS });
  for await (const m of replies) out.push(m.json<StatsReply>());
  return out;
}

/** A reader of `ask` that reuses its last answer for `reuseMs` (and shares one in flight). */
export function reusing<T>(ask: () => Promise<T>, reuseMs = INSTANCES_REUSE_MS, now: () => number = Date.now): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const t = now();
    if (last === undefined || t - last.at >= reuseMs) {
      const value = ask();
      last = { at: t, value };
      // A failed ask is not reused: the next read asks again.
      value.catch(() => {
        if (last?.value === value) last = undefined;
      });
    }
    return last.value;
  };
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The instances page from the replies: sorted by id, each projection with how far behind it is. */
export function instancesJson(
  replies: readonly StatsReply[],
  selfInstance: string,
): { instances: InstanceRow[]; holders: number; furthest: Record<What, number> } {
  const furthest = Object.fromEntries(WHATS.map((w) => [w, 0])) as Record<What, number>;
  for (const r of replies)
    for (const w of WHATS) {
      const rev = num(statsOf(r)?.projections?.[w]?.revision);
      if (rev !== null && rev > furthest[w]) furthest[w] = rev;
    }
  const instances = replies.map((r): InstanceRow => {
    const s = statsOf(r);
    const projections: Partial<Record<What, InstanceProjection>> = {};
    for (const w of WHATS) {
      const p = s?.projections?.[w];
      if (p === undefined) continue;
      const c = s?.checkpoints?.[w];
      const revision = num(p.revision) ?? 0;
      projections[w] = {
        revision,
        entries: num(p.entries) ?? 0,
        outOfShape: num(p.outOfShape) ?? 0,
        synced: p.synced === true,
        lag: num(p.lag),
        staleSince: typeof p.stale?.since === "string" ? p.stale.since : null,
        behindFurthest: Math.max(0, furthest[w] - revision),
        start: c === undefined || c.start === "none" ? null : { from: c.start, revision: c.loadedRevision, reason: c.reason },
      };
    }
    const instance = s?.seat?.instance ?? null;
    return {
      id: r.id,
      instance,
      isHolder: s?.seat?.isHolder === true,
      self: instance === selfInstance,
      requests: num(s?.requests),
      errors: num(s?.errors),
      projections,
    };
  });
  instances.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { instances, holders: instances.filter((i) => i.isHolder).length, furthest };
}
