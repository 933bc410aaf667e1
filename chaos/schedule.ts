/**
 * The fault plan of a chaos run (pure): from the seed and the run's length,
 * which fault starts when, for how long, against what. The same seed and
 * options give the same plan, always; what a fault hits that only the running
 * system knows (who holds the seat, which server leads a stream, which
 * consumers exist) is resolved when it is injected, from the choices made here
 * (`pick`).
 *
 * Every kind appears at least once when the run is long enough (the kinds
 * are first spread over the run in a seeded order), then more faults arrive
 * at random (exponential gaps). Faults overlap, with three limits that keep
 * the run meaningful: at most two of the three `serve` instances disrupted at
 * once, one fault per instance at a time, and one nats-server down at a time
 * (with three replicas, losing two would only measure a stalled cluster).
 * The one exception is `restart-all`, a whole deployment killed and started
 * again at once (a rollout, a host reboot): it waits until no other fault
 * disrupts an instance, and none starts until it is over.
 * Every fault is over some seconds before the run ends, for the quiet period.
 *
 * The site's link cuts (`cut-site-link`) are planned from a stream of their
 * own and numbered after the others: a seed's other faults are the same
 * with them as without. They never overlap each other.
 */
import { Rng } from "./rng.js";

export type FaultKind =
  | "kill-holder"
  | "pause-instance"
  | "cut-connection"
  | "kill-stream-leader"
  | "delete-consumer"
  | "out-of-shape-burst"
  | "malformed-burst"
  | "registry-drift"
  | "flood"
  | "restart-all"
  | "spoil-checkpoint"
  | "cut-site-link";

/** The kinds that hit the cluster and its instances, planned from the schedule's stream. */
const CLUSTER_KINDS: readonly FaultKind[] = [
  "kill-holder",
  "pause-instance",
  "cut-connection",
  "kill-stream-leader",
  "delete-consumer",
  "out-of-shape-burst",
  "malformed-burst",
  "registry-drift",
  "flood",
  "restart-all",
  "spoil-checkpoint",
];

export const FAULT_KINDS: readonly FaultKind[] = [...CLUSTER_KINDS, "cut-site-link"];

/** The buckets a stream-leader kill or a consumer deletion aims at (the seat's too). */
export const FAULT_BUCKETS = ["registry", "needs", "applied", "collect", "seat"] as const;
export type FaultBucket = (typeof FAULT_BUCKETS)[number];
export const NODE_BUCKETS = ["needs", "applied", "collect"] as const;
export type NodeBucket = (typeof NODE_BUCKETS)[number];

export interface PlannedFault {
  readonly id: number;
  readonly kind: FaultKind;
  /** Milliseconds after the chaos phase starts. */
  readonly at: number;
  /** How long until it is healed (restart, SIGCONT, restore); 0 for a fault that is one act. */
  readonly durationMs: number;
  /** pause-instance, cut-connection: which serve instance (0-based slot). */
  readonly slot?: number;
  /** kill-stream-leader, delete-consumer: whose stream; out-of-shape-burst: which node bucket. */
  readonly bucket?: FaultBucket;
  /** out-of-shape-burst: the node whose grant writes the keys. */
  readonly node?: string;
  /** Bursts: how many keys or requests; flood: how many keys. */
  readonly count?: number;
  /** A choice in [0, 1) the injector resolves against what it finds (which consumer, which kinds). */
  readonly pick?: number;
}

export interface PlanOptions {
  readonly seed: number;
  /** Length of the chaos phase (ms). */
  readonly durationMs: number;
  /** The seat's lease time (ms): pauses and cuts are measured against it. */
  readonly ttlMs: number;
  readonly slots: number;
  readonly nodes: readonly string[];
  /** Keys the flooding node writes. */
  readonly floodKeys: number;
  /** Mean gap between the extra faults (ms). */
  readonly meanGapMs?: number;
}

/** No fault starts before this (the actors warm up). */
export const WARMUP_MS = 3_000;
/** Every fault is healed this long before the chaos phase ends. */
export const HEALED_BEFORE_END_MS = 4_000;
/** At most this many serve instances disrupted at once. */
const MAX_DISRUPTED = 2;

const EXTRA_WEIGHTS: readonly (readonly [FaultKind, number])[] = [
  ["kill-holder", 3],
  ["pause-instance", 3],
  ["cut-connection", 3],
  ["kill-stream-leader", 3],
  ["delete-consumer", 2],
  ["out-of-shape-burst", 2],
  ["malformed-burst", 2],
  ["registry-drift", 2],
  ["spoil-checkpoint", 2],
];

const disrupts = (k: FaultKind): boolean =>
  k === "kill-holder" || k === "pause-instance" || k === "cut-connection" || k === "restart-all" || k === "spoil-checkpoint";

interface Draft {
  kind: FaultKind;
  at: number;
}

function durationOf(kind: FaultKind, rng: Rng, ttlMs: number): number {
  switch (kind) {
    case "kill-holder":
      return Math.round(rng.between(1_000, 3 * ttlMs + 1_000)); // until the instance is started again
    case "pause-instance":
      return Math.round(rng.between(1.3 * ttlMs, 3 * ttlMs)); // past the ttl, always
    case "cut-connection":
      return Math.round(rng.between(0.5 * ttlMs, 3 * ttlMs)); // shorter and longer than the ttl
    case "kill-stream-leader":
      return Math.round(rng.between(2_000, 8_000)); // until the server is started again
    case "restart-all":
      return Math.round(rng.between(500, 3_000)); // every instance down, then all started at once
    case "spoil-checkpoint":
      return Math.round(rng.between(500, 2_000)); // one instance down, then started on the spoiled checkpoint
    default:
      return 0;
  }
}

export function planFaults(opts: PlanOptions): PlannedFault[] {
  const rng = new Rng(opts.seed).derive("schedule");
  const first = WARMUP_MS;
  const lastStart = opts.durationMs - HEALED_BEFORE_END_MS - 1_000;
  if (lastStart <= first) return [];
  const span = lastStart - first;

  // Every kind once, spread over the run in a seeded order; then extra faults at random gaps.
  const drafts: Draft[] = [];
  const kinds = rng.shuffle(CLUSTER_KINDS);
  kinds.forEach((kind, i) => drafts.push({ kind, at: first + ((i + rng.between(0.1, 0.9)) * span) / kinds.length }));
  const meanGap = opts.meanGapMs ?? 7_000;
  for (let t = first + rng.exponential(meanGap); t < lastStart; t += rng.exponential(meanGap)) {
    drafts.push({ kind: rng.weighted(EXTRA_WEIGHTS), at: t });
  }
  drafts.sort((a, b) => a.at - b.at);

  // Targets and durations, in time order, under the limits above.
  const slotBusyUntil: number[] = Array.from({ length: opts.slots }, () => 0);
  const disruptions: { from: number; to: number }[] = [];
  let serverBusyUntil = 0;
  const healedBy = opts.durationMs - HEALED_BEFORE_END_MS;
  const out: Omit<PlannedFault, "id">[] = [];
  for (const d of drafts) {
    let at = Math.round(d.at);
    let durationMs = durationOf(d.kind, rng, opts.ttlMs);
    const extra: { -readonly [K in keyof PlannedFault]?: PlannedFault[K] } = {};
    const pick = rng.float();
    if (disrupts(d.kind)) {
      const busyAt = (t: number): { from: number; to: number }[] => disruptions.filter((x) => x.from <= t && t < x.to);
      const freeSlots = (t: number): number[] => slotBusyUntil.flatMap((u, i) => (u <= t ? [i] : []));
      const all = d.kind === "restart-all";
      const needsSlot = d.kind !== "kill-holder" && !all;
      // Wait (within the run) for a moment with room for one more disruption, and a free slot when it needs one;
      // a restart of every instance waits for a moment with no disruption and every slot free.
      while (at <= lastStart) {
        const busy = busyAt(at);
        if (busy.length >= (all ? 1 : MAX_DISRUPTED)) at = Math.min(...busy.map((x) => x.to));
        else if (all && freeSlots(at).length < opts.slots) at = Math.max(...slotBusyUntil);
        else if (needsSlot && freeSlots(at).length === 0) at = Math.min(...slotBusyUntil);
        else break;
      }
      if (at > lastStart) continue;
      if (needsSlot) {
        const free = freeSlots(at);
        extra.slot = free[Math.floor(pick * free.length)]!;
      }
      durationMs = Math.min(durationMs, healedBy - at);
      const until = at + durationMs + (all ? 5_000 : 500); // after a restart of all, time for them to sync again
      if (extra.slot !== undefined) slotBusyUntil[extra.slot] = until;
      if (all) slotBusyUntil.fill(until);
      for (let k = 0; k < (all ? MAX_DISRUPTED : 1); k++) disruptions.push({ from: at, to: until });
    } else if (d.kind === "kill-stream-leader") {
      if (at < serverBusyUntil) at = serverBusyUntil;
      if (at > lastStart) continue;
      durationMs = Math.min(durationMs, healedBy - at);
      serverBusyUntil = at + durationMs + 3_000; // a restarted server catches up before the next kill
      extra.bucket = rng.pick(FAULT_BUCKETS);
    } else if (d.kind === "delete-consumer") {
      extra.bucket = rng.pick(FAULT_BUCKETS);
    } else if (d.kind === "out-of-shape-burst") {
      extra.bucket = rng.pick(NODE_BUCKETS);
      extra.node = rng.pick(opts.nodes);
      extra.count = rng.int(3, 12);
    } else if (d.kind === "malformed-burst") {
      extra.count = rng.int(10, 40);
    } else if (d.kind === "flood") {
      extra.count = opts.floodKeys;
    }
    out.push({ kind: d.kind, at, durationMs, pick, ...extra });
  }
  out.sort((a, b) => a.at - b.at);
  const planned = out.map((f, id) => ({ id, ...f }));
  return [...planned, ...planSiteCuts(opts, first, lastStart, healedBy).map((f, i) => ({ id: planned.length + i, ...f }))];
}

/** How long a cut of the site's link lasts, and the least gap between two. */
const SITE_CUT_MS: readonly [number, number] = [2_500, 8_000];
const SITE_CUT_GAP_MS = 3_000;

/** The site's link cuts: one at least, then one about every 20 s, never two at once. */
function planSiteCuts(opts: PlanOptions, first: number, lastStart: number, healedBy: number): Omit<PlannedFault, "id">[] {
  const rng = new Rng(opts.seed).derive("site links");
  const out: Omit<PlannedFault, "id">[] = [];
  const count = Math.max(1, Math.round((lastStart - first) / 20_000));
  const span = (lastStart - first) / count;
  let free = first;
  for (let i = 0; i < count; i++) {
    const at = Math.round(Math.max(free, first + (i + rng.between(0, 0.5)) * span));
    if (at > lastStart) break;
    const durationMs = Math.min(Math.round(rng.between(...SITE_CUT_MS)), healedBy - at);
    out.push({ kind: "cut-site-link", at, durationMs, pick: rng.float() });
    free = at + durationMs + SITE_CUT_GAP_MS;
  }
  return out;
}

/** How many faults of each kind a plan holds. */
export function countByKind(plan: readonly { kind: FaultKind }[]): Record<FaultKind, number> {
  const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  for (const f of plan) counts[f.kind]++;
  return counts;
}
