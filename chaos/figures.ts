/**
 * The figures of a chaos run, computed from its history (pure): faults by
 * kind, writes and reads by outcome, takeovers, how long each instance could
 * not answer, and how long the whole took to recover after each fault.
 *
 * "Recovered" means every instance ready again (/readyz 200: connected, every
 * projection synced), the first moment after the fault was healed (or, for a
 * fault that is one act, after it was made), whatever else was going on.
 */
import type { AvailabilityChange, FaultRecord, History } from "./history.js";
import { FAULT_KINDS, type FaultKind } from "./schedule.js";
import { holdsTimeline } from "./seat-timeline.js";

export type FigureInput = Pick<History, "writes" | "reads" | "seat" | "faults" | "availability" | "processes"> & {
  readonly meta: Pick<History["meta"], "startedAt" | "plan" | "chaosStartedAt" | "quietEndedAt">;
};

export interface KindFigures {
  planned: number;
  injected: number;
  skipped: number;
  recoveryMs: number[];
  /** Faults after which not every instance was ready again before the run ended. */
  neverRecovered: number;
}

export interface SlotFigures {
  readonly slot: string;
  /** Longest time down: no answer, disconnected, or not synced since it started. */
  readonly longestDownMs: number;
  /** Longest time not ready (down, or answering from what it applied while catching up). */
  readonly longestNotReadyMs: number;
  readonly processes: number;
}

export interface Figures {
  readonly byKind: Record<FaultKind, KindFigures>;
  readonly writes: { acknowledged: number; failed: number; indeterminate: number; inShape: number; outOfShape: number; flood: number };
  readonly reads: { total: number; withMinRevision: number; byStatus: Record<string, number>; malformed: number; malformedByStatus: Record<string, number> };
  readonly takeovers: number;
  readonly takeoverMs: number[];
  /** Per registry-drift fault: ms from the drift written to the registry equal to the table again (undefined: never). */
  readonly driftRepairMs: (number | undefined)[];
  readonly slots: SlotFigures[];
  /** Per fault: ms from healed to every instance ready (undefined: never within the run). */
  readonly recovery: { fault: FaultRecord; healedAt: number; recoveryMs: number | undefined; slotReadyMs: number | undefined }[];
}

/** The first moment at or after `t` at which every slot is ready, or undefined. */
export function allReadyAfter(changes: readonly AvailabilityChange[], slots: readonly string[], t: number): number | undefined {
  const sorted = [...changes].sort((a, b) => a.at - b.at);
  const state = new Map<string, string>(slots.map((s) => [s, "down"]));
  const allReady = (): boolean => slots.every((s) => state.get(s) === "ready");
  let i = 0;
  for (; i < sorted.length && sorted[i]!.at <= t; i++) state.set(sorted[i]!.slot, sorted[i]!.state);
  if (allReady()) return t;
  for (; i < sorted.length; i++) {
    state.set(sorted[i]!.slot, sorted[i]!.state);
    if (allReady()) return sorted[i]!.at;
  }
  return undefined;
}

/** Longest stretch inside [from, to] during which `bad(state)` held for one slot. */
export function longestStretch(changes: readonly AvailabilityChange[], slot: string, from: number, to: number, bad: (s: string) => boolean): number {
  const mine = changes.filter((x) => x.slot === slot).sort((a, b) => a.at - b.at);
  let state = "down";
  let i = 0;
  for (; i < mine.length && mine[i]!.at <= from; i++) state = mine[i]!.state;
  let since: number | undefined = bad(state) ? from : undefined;
  let longest = 0;
  for (; i < mine.length && mine[i]!.at <= to; i++) {
    const c = mine[i]!;
    if (bad(c.state) && since === undefined) since = c.at;
    else if (!bad(c.state) && since !== undefined) {
      longest = Math.max(longest, c.at - since);
      since = undefined;
    }
  }
  if (since !== undefined) longest = Math.max(longest, to - since);
  return longest;
}

const count = <T>(items: readonly T[], key: (t: T) => string): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const i of items) out[key(i)] = (out[key(i)] ?? 0) + 1;
  return out;
};

export function figures(h: FigureInput): Figures {
  const slots = [...new Set(h.processes.map((p) => p.slot))].sort();
  const from = h.meta.chaosStartedAt ?? 0;
  const to = h.meta.quietEndedAt ?? Math.max(from, ...h.availability.map((a) => a.at));
  const byKind = Object.fromEntries(
    FAULT_KINDS.map((k) => [k, { planned: 0, injected: 0, skipped: 0, recoveryMs: [] as number[], neverRecovered: 0 }]),
  ) as Record<FaultKind, KindFigures>;
  for (const f of h.meta.plan) byKind[f.kind].planned++;
  const recovery: Figures["recovery"] = [];
  for (const f of h.faults) {
    const k = byKind[f.kind];
    if (f.skipped !== undefined) {
      k.skipped++;
      continue;
    }
    k.injected++;
    const healedAt = f.healedAt ?? f.startedAt ?? 0;
    const ready = allReadyAfter(h.availability, slots, healedAt);
    const recoveryMs = ready === undefined ? undefined : ready - healedAt;
    if (recoveryMs !== undefined) k.recoveryMs.push(recoveryMs);
    else k.neverRecovered++;
    f.recoveredAt = ready;
    const slotReady = f.slot === undefined ? undefined : allReadyAfter(h.availability, [f.slot], healedAt);
    recovery.push({ fault: f, healedAt, recoveryMs, slotReadyMs: slotReady === undefined ? undefined : slotReady - healedAt });
  }
  const w = h.writes;
  const valid = h.reads.filter((r) => r.malformed === undefined);
  const malformed = h.reads.filter((r) => r.malformed !== undefined);
  const holds = holdsTimeline(h.seat, Date.parse(h.meta.startedAt));
  const takeoverMs = h.faults.flatMap((f) => (typeof f.detail?.["takeoverMs"] === "number" ? [f.detail["takeoverMs"]] : []));
  return {
    byKind,
    writes: {
      acknowledged: w.filter((x) => x.outcome === "ack").length,
      failed: w.filter((x) => x.outcome === "failed").length,
      indeterminate: w.filter((x) => x.outcome === "indeterminate").length,
      inShape: w.filter((x) => x.shape === "in" && !x.flood).length,
      outOfShape: w.filter((x) => x.shape === "out").length,
      flood: w.filter((x) => x.flood).length,
    },
    reads: {
      total: valid.length,
      withMinRevision: valid.filter((r) => r.minRevision !== undefined).length,
      byStatus: count(valid, (r) => String(r.status ?? "none")),
      malformed: malformed.length,
      malformedByStatus: count(malformed, (r) => String(r.status ?? "none")),
    },
    takeovers: Math.max(0, holds.length - 1),
    takeoverMs,
    driftRepairMs: h.faults
      .filter((f) => f.kind === "registry-drift" && f.skipped === undefined)
      .map((f) => (typeof f.detail?.["repairedMs"] === "number" ? f.detail["repairedMs"] : undefined)),
    slots: slots.map((slot) => ({
      slot,
      longestDownMs: longestStretch(h.availability, slot, from, to, (s) => s === "down"),
      longestNotReadyMs: longestStretch(h.availability, slot, from, to, (s) => s !== "ready"),
      processes: h.processes.filter((p) => p.slot === slot).length,
    })),
    recovery,
  };
}
