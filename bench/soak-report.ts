/**
 * What the soak prints: a line each minute while it runs, and at the end a
 * table with one row a minute and the verdicts on the floors. Memory in MiB
 * (2^20 bytes), as in the rest of the bench.
 */
import { mib } from "./common.js";
import type { FloorVerdict } from "./soak-verdict.js";

/** The state at the end of one minute of churn; counts are since the churn began. */
export interface MinuteRow {
  minute: number;
  /** VmRSS at the end of the minute, MiB. */
  rssMiB: number;
  /** The least VmRSS sampled in the minute, MiB. */
  rssMinMiB: number;
  /** Of the RSS at the end of the minute: anonymous memory, and mapped files' pages (code), MiB. */
  rssAnonMiB: number;
  rssFileMiB: number;
  /** The `[heap]` mapping's resident part: malloc's main arena (see readMallocHeap), MiB. */
  mallocHeapMiB: number;
  /** JS heap in use and memory outside it (the service's /metrics), MiB; NaN when not read. */
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  updates: number;
  asks: number;
  /** Asks that got no answer or an error, and puts that failed. */
  failed: number;
  /** The machine's 1-minute load average (others share it). */
  load1: number;
}

export const toMiB = (bytes: number): number => (Number.isFinite(bytes) ? mib(bytes) : Number.NaN);

const fmt = (x: number, digits = 1): string => (Number.isFinite(x) ? x.toFixed(digits) : "—");

export function minuteLine(r: MinuteRow): string {
  return (
    `min ${r.minute}: RSS ${fmt(r.rssMiB)} MiB (least this minute ${fmt(r.rssMinMiB)}; anon ${fmt(r.rssAnonMiB)}, files ${fmt(r.rssFileMiB)}, malloc's heap ${fmt(r.mallocHeapMiB)}), heap ${fmt(r.heapUsedMiB)} of ${fmt(r.heapTotalMiB)} MiB, ` +
    `external ${fmt(r.externalMiB)} MiB; ${r.updates} updates, ${r.asks} asks, ${r.failed} failed; load ${fmt(r.load1, 2)}`
  );
}

const COLUMNS = [
  "minute",
  "RSS MiB",
  "least RSS MiB",
  "anon MiB",
  "files MiB",
  "heap MiB",
  "heap reserved MiB",
  "external MiB",
  "updates",
  "asks",
  "failed",
] as const;

export function minuteTable(rows: readonly MinuteRow[]): string {
  const cells = rows.map((r) => [
    String(r.minute),
    fmt(r.rssMiB),
    fmt(r.rssMinMiB),
    fmt(r.rssAnonMiB),
    fmt(r.rssFileMiB),
    fmt(r.mallocHeapMiB),
    fmt(r.heapUsedMiB),
    fmt(r.heapTotalMiB),
    fmt(r.externalMiB),
    String(r.updates),
    String(r.asks),
    String(r.failed),
  ]);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: readonly string[]): string => `| ${row.map((c, i) => c.padStart(widths[i]!)).join(" | ")} |`;
  return [line(COLUMNS), `|${widths.map((w) => "-".repeat(w + 1) + ":").join("|")}|`, ...cells.map(line)].join("\n");
}

/** The verdicts (RSS's floor, then what is held apart from V8's free heap) and, for a run too short to judge an hourly slope, a warning that it is an extrapolation. */
export function verdictLines(rss: FloorVerdict, held: FloorVerdict, minutes: number, shortOfMinutes: number): string[] {
  const floors = (v: FloorVerdict): string => v.floors.map((f) => `${fmt(f.atMs / 60_000)}: ${fmt(f.rssMiB)}`).join(", ");
  const lines = [`verdict: ${rss.text}`];
  if (rss.floors.length) lines.push(`floors (minute: least RSS MiB): ${floors(rss)}`);
  lines.push(`held apart from V8's free heap: ${held.text}`);
  if (held.floors.length) lines.push(`floors (minute: least RSS less free heap, MiB): ${floors(held)}`);
  if (minutes < shortOfMinutes)
    lines.push(
      `note: a ${minutes}-minute run; its slope per hour is extrapolated from minutes and says little (run ${shortOfMinutes} minutes or more to judge)`,
    );
  return lines;
}
