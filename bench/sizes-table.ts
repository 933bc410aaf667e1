/**
 * One table of every row across several bench results (one column each, such
 * as 100k, 300k and 1M keys), as docs/benchmarks.md keeps it:
 *
 *   node dist/bench/sizes-table.js a.json b.json c.json
 *
 * Each cell is "service / baseline, ratio"; bold where the row's target is
 * met, ", no" where it is not. Rows are matched by their metric with the
 * counts that vary by size (nodes, asks, burst size) left out.
 */
import { readFileSync } from "node:fs";
import type { Row } from "./report.js";

interface Results {
  config: { keys: number };
  rows: Row[];
}

/** A metric without the figures that differ from one size to another. */
function metricName(metric: string): string {
  return metric
    .replace(/\s*\(of \d+[^)]*\)/, "")
    .replace(/burst of \d+k new keys/, "burst of new keys")
    .replace(/\(uncached, \d+ nodes\)/, "(uncached)")
    .replace(/longest of \d+ asks/, "longest ask")
    .replace(/, first put -> last ack [\d.]+ s/, "")
    .replace(/ \(minRevision [\d, ]+\)/, "")
    .replace(/ \(each answered [\d,; ]+\)/, "")
    .replace(/ \(rounds: [\d.x, ]+\)/, "")
    .replace(/of [\d +]+ asked/, "asked")
    .replace(/: one instance [\d/, ]+; three at once [\d/,; ]+ \(/, " (");
}

function figure(v: number | undefined, unit: string): string {
  if (v === undefined || v === null || Number.isNaN(v)) return "—";
  switch (unit) {
    case "ms":
      // A whole figure as it is (0 ms, not 0.000 ms: "back to idle at once").
      return `${Number.isInteger(v) || v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(v < 1 ? 3 : 2)} ms`;
    case "MiB":
      return `${v.toFixed(0)} MiB`;
    case "req/s":
      return `${(v / 1000).toFixed(1)}k/s`;
    default:
      return `${Math.round(v * 100) / 100}${unit ? ` ${unit}` : ""}`;
  }
}

function cell(r: Row | undefined): string {
  if (r === undefined) return "—";
  const service = figure(r.service, r.unit);
  const baseline = figure(r.baseline, r.unit);
  const ratio = r.ratio === undefined || Number.isNaN(r.ratio) ? "" : `, ${r.ratio >= 100 ? r.ratio.toFixed(0) : r.ratio.toFixed(2)}x`;
  const text = baseline === "—" ? service : `${service} / ${baseline}${ratio}`;
  return r.ok === true ? `**${text}**` : r.ok === false ? `${text}, no` : text;
}

export function sizesTable(runs: readonly Results[]): string {
  const first = runs[0];
  if (first === undefined) return "";
  const lines = [`| metric | target | ${runs.map((r) => `${r.config.keys / 1000}k keys`).join(" | ")} |`, `|---|---|${runs.map(() => "---|").join("")}`];
  for (const r0 of first.rows) {
    const name = metricName(r0.metric);
    const cells = runs.map((r) => cell(r.rows.find((x) => metricName(x.metric) === name)));
    lines.push(`| ${name} | ${r0.target} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write("usage: node dist/bench/sizes-table.js RESULTS.json [RESULTS.json ...]\n");
  process.exit(2);
}
process.stdout.write(`${sizesTable(files.map((f) => JSON.parse(readFileSync(f, "utf8")) as Results))}\n`);
