/**
 * The dashboard bench's table: one row per target of issues 12 and 35 (every
 * page live within 500 ms, a change shown within a second; and a few
 * rows of context: the first open after the browser started, the writes
 * actually achieved, the service's first sync and memory), each with its
 * median and max, the target, and whether it is met. A time or size target
 * is met when the max of the samples is within it (every repetition, not
 * the typical one).
 */
import { median, percentile, round } from "./common.js";
import type { WriterResult } from "./background-writer.js";
import type { HeapSample, LiveSamples, PutShown } from "./dashboard-phases.js";

export interface DashRow {
  measure: string;
  unit: string;
  median: number;
  max: number;
  n: number;
  target: string;
  /** undefined: context, no target. */
  met: boolean | undefined;
}

export interface DashMeasured {
  nodes: number;
  firstOverviewMs: number;
  overviewQuiet: LiveSamples;
  overviewWrites: LiveSamples;
  nodeQuiet: LiveSamples;
  nodeWrites: LiveSamples;
  put: PutShown;
  /** Each mesh-wide page, opened until live (under writes). */
  lists: Record<string, LiveSamples>;
  collectionPut: PutShown;
  heap: HeapSample[];
  writer: WriterResult;
  pageErrors: string[];
  service: { syncMs: number; rssAfterSync: number; rssAtEnd: number; peakRss: number };
}

const MB = 1024 * 1024;
const max = (xs: readonly number[]): number => (xs.length ? Math.max(...xs) : Number.NaN);
const dom = (hs: readonly HeapSample[]): number[] => hs.flatMap((h) => (h.embedderBytes === undefined ? [] : [h.embedderBytes / MB]));

function within(measure: string, unit: string, xs: readonly number[], limit: number, targetText: string, missing = 0): DashRow {
  const m = max(xs);
  return { measure, unit, median: median(xs), max: m, n: xs.length, target: targetText, met: missing === 0 && xs.length > 0 && m <= limit };
}

const context = (measure: string, unit: string, xs: readonly number[]): DashRow => ({
  measure,
  unit,
  median: median(xs),
  max: max(xs),
  n: xs.length,
  target: "(context)",
  met: undefined,
});

export function dashRows(d: DashMeasured, rate: number): DashRow[] {
  const heapOf = (page: string): number[] => d.heap.filter((h) => h.page === page).map((h) => h.bytes / MB);
  const w = d.writer;
  return [
    within("overview live (quiet)", "ms", d.overviewQuiet.ms, 500, "≤ 500 ms"),
    within(`overview live (${rate} writes/s elsewhere)`, "ms", d.overviewWrites.ms, 500, "≤ 500 ms"),
    context("  in the page's clock, at the DOM change (all the above)", "ms", [...d.overviewQuiet.inPageMs, ...d.overviewWrites.inPageMs]),
    context("overview live, first open after the browser started (not above)", "ms", [d.firstOverviewMs]),
    within("node page live, 100 needs (quiet)", "ms", d.nodeQuiet.ms, 500, "≤ 500 ms"),
    within(`node page live, 100 needs (${rate} writes/s elsewhere)`, "ms", d.nodeWrites.ms, 500, "≤ 500 ms"),
    context("  in the page's clock, at the DOM change (both above)", "ms", [...d.nodeQuiet.inPageMs, ...d.nodeWrites.inPageMs]),
    within(`need put for the node on screen -> row shown, from the ack (${rate} writes/s elsewhere)`, "ms", d.put.fromAckMs, 500, "≤ 500 ms", d.put.notShown),
    within("  the same, from just before the put", "ms", d.put.fromPutMs, 500, "≤ 500 ms", d.put.notShown),
    ...Object.entries(d.lists).map(([name, l]) => within(`${name} page live (${rate} writes/s elsewhere)`, "ms", l.ms, 500, "≤ 500 ms")),
    within(
      `collection item put -> row shown on its page, from the ack (${rate} writes/s elsewhere)`,
      "ms",
      d.collectionPut.fromAckMs,
      1000,
      "≤ 1000 ms",
      d.collectionPut.notShown,
    ),
    within("  the same, from just before the put", "ms", d.collectionPut.fromPutMs, 1000, "≤ 1000 ms", d.collectionPut.notShown),
    within("page JS heap, overview pages", "MB", heapOf("overview"), 50, "≤ 50 MB"),
    within("page JS heap, node pages", "MB", heapOf("node"), 50, "≤ 50 MB"),
    within("page JS heap, mesh-wide pages", "MB", heapOf("list"), 50, "≤ 50 MB"),
    context("  the pages' DOM heap (Blink's, not JS), as they run", "MB", dom(d.heap.filter((h) => !h.afterGc))),
    context("  the pages' DOM heap after a forced gc (pages kept open)", "MB", dom(d.heap.filter((h) => h.afterGc))),
    {
      measure: "background writes, acked/s (median: overall; max: the slowest second)",
      unit: "/s",
      median: w.achievedPerSecond,
      max: w.perSecondMin,
      n: w.acked,
      target: `≥ ${Math.round(rate * 0.95)}/s (the condition)`,
      met: w.achievedPerSecond >= rate * 0.95 && w.errors === 0,
    },
    {
      measure: "errors thrown by the pages",
      unit: "",
      median: d.pageErrors.length,
      max: d.pageErrors.length,
      n: d.pageErrors.length,
      target: "0",
      met: d.pageErrors.length === 0,
    },
    context("service: first sync (spawn -> all projections synced)", "ms", [d.service.syncMs]),
    context("service: RSS after sync (forced gc)", "MiB", [d.service.rssAfterSync / MB]),
    {
      measure: "service: RSS at the end (max = its peak RSS)",
      unit: "MiB",
      median: d.service.rssAtEnd / MB,
      max: d.service.peakRss / MB,
      n: 1,
      target: "(context)",
      met: undefined,
    },
  ];
}

const fmt = (x: number, unit: string): string => {
  if (!Number.isFinite(x)) return "—";
  const digits = unit === "ms" || unit === "/s" || unit === "" ? 0 : 1;
  return `${x.toFixed(digits)}${unit && unit !== "/s" ? ` ${unit}` : unit}`;
};

export function dashTable(rows: readonly DashRow[]): string {
  const head = ["measure", "median", "max", "n", "target", "met? (max within)"];
  const body = rows.map((r) => [
    r.measure,
    fmt(r.median, r.unit),
    fmt(r.max, r.unit),
    String(r.n),
    r.target,
    r.met === undefined ? "" : r.met ? "yes" : "**no**",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(head), `|${widths.map((x) => "-".repeat(x + 2)).join("|")}|`, ...body.map(line)].join("\n");
}

/** p50, p90 and max of a list of ms, rounded, for the JSON. */
export function brief(xs: readonly number[]): { n: number; p50: number; p90: number; max: number; all: number[] } {
  return { n: xs.length, p50: round(percentile(xs, 50), 1), p90: round(percentile(xs, 90), 1), max: round(max(xs), 1), all: xs.map((x) => round(x, 1)) };
}
