/**
 * The summary a chaos run prints (pure): the figures as tables, then each
 * check with its first violating events when it failed.
 */
import type { CheckResult } from "./history.js";
import type { Figures } from "./figures.js";
import { FAULT_KINDS } from "./schedule.js";

const secs = (ms: number | undefined): string => (ms === undefined ? "never" : `${(ms / 1000).toFixed(1)} s`);

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function spread(ms: readonly number[]): string {
  if (ms.length === 0) return "-";
  const s = [...ms].sort((a, b) => a - b);
  const median = s[Math.floor((s.length - 1) / 2)]!;
  return `${secs(s[0])} / ${secs(median)} / ${secs(s[s.length - 1])}`;
}

const statuses = (byStatus: Record<string, number>): string =>
  Object.entries(byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ×${n}`)
    .join(", ") || "none";

export interface ReportHead {
  readonly seed: number;
  readonly minutes: number;
  readonly elapsedMs: number;
  readonly out?: string;
}

export function renderSummary(head: ReportHead, f: Figures, checks: readonly CheckResult[]): string {
  const parts: string[] = [];
  parts.push(
    `chaos run: seed ${head.seed}, ${head.minutes} min of faults, ${secs(head.elapsedMs)} in all (replay: npm run chaos -- --minutes ${head.minutes} --seed ${head.seed})`,
  );
  parts.push(
    table(
      ["fault", "planned", "injected", "skipped", "recovery min / median / max"],
      FAULT_KINDS.map((k) => {
        const x = f.byKind[k];
        const never = x.neverRecovered > 0 ? ` (${x.neverRecovered} not before the end)` : "";
        return [k, String(x.planned), String(x.injected), String(x.skipped), spread(x.recoveryMs) + never];
      }),
    ),
  );
  const w = f.writes;
  parts.push(
    `writes: ${w.acknowledged} acknowledged, ${w.indeterminate} indeterminate, ${w.failed} refused ` +
      `(${w.inShape} by the node writers, ${w.outOfShape} out of shape, ${w.flood} by the flooding node)`,
  );
  const r = f.reads;
  parts.push(
    `reads: ${r.total} asked (${r.withMinRevision} with minRevision): ${statuses(r.byStatus)}; malformed: ${r.malformed} sent: ${statuses(r.malformedByStatus)}`,
  );
  parts.push(
    `takeovers: ${f.takeovers} changes of the seat's holder; after kill -9 of the holder, a standby held the seat in ${f.takeoverMs.map((m) => secs(m)).join(", ") || "-"}`,
  );
  parts.push(`registry drift: repaired by the holder in ${f.driftRepairMs.map((m) => secs(m)).join(", ") || "-"}`);
  parts.push(
    table(
      ["instance", "longest unable to answer", "longest not ready", "processes"],
      f.slots.map((s) => [s.slot, secs(s.longestDownMs), secs(s.longestNotReadyMs), String(s.processes)]),
    ),
  );
  parts.push(
    "recovery after each fault (from when it was healed, or made if it is one act, to /readyz 200):\n" +
      table(
        ["#", "kind", "target", "started", "healed", "its instance ready after", "all ready after"],
        f.recovery.map(({ fault, healedAt, recoveryMs, slotReadyMs }) => [
          String(fault.id),
          fault.kind,
          (fault.target ?? "").slice(0, 48),
          secs(fault.startedAt),
          secs(healedAt),
          fault.slot === undefined ? "-" : secs(slotReadyMs),
          secs(recoveryMs),
        ]),
      ),
  );
  const lines = ["checks:"];
  for (const c of checks) {
    lines.push(`  ${c.status === "pass" ? "pass" : c.status === "fail" ? "FAIL" : "n/a "}  ${c.name}: ${c.summary}`);
    for (const v of c.violations) lines.push(`          - ${v}`);
  }
  parts.push(lines.join("\n"));
  if (head.out) parts.push(`the whole history: ${head.out}`);
  return parts.join("\n\n");
}
