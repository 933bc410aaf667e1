/**
 * One table of every row across several bench results, one column each
 * (such as 100k, 300k and 1M keys), to compare runs at a glance:
 *
 *   node dist/bench/sizes-table.js a.json b.json c.json
 *
 * Each cell is written as the page's tables write it (table-cells.ts). Rows
 * are matched by their metric with the counts that vary by size (nodes,
 * asks, burst size) left out. The page's own tables come from
 * `npm run bench:tables` (tables-main.ts).
 */
import { readFileSync } from "node:fs";
import type { Row } from "./report.js";
import { cell } from "./table-cells.js";

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
