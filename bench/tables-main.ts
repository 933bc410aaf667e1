/**
 * `npm run bench:tables` — docs/benchmarks.md's tables rewritten in place
 * from the committed results in bench/results/.
 *
 *   npm run bench:tables                                   render the page's tables again
 *   npm run bench:tables -- --record bench-results/x.json  keep a run's rows as bench/results/<area>-<size>-<server>.json, then render
 *   npm run bench:tables -- --check                        exit 1 when the page differs from what the results give
 *
 * `--record` takes the JSON `npm run bench` writes (a full run fills the read
 * path's table, `--only-startup` the start-up table) or `npm run
 * bench:dashboard` writes; `--commit C` names the commit it ran at when its
 * JSON does not.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./children.js";
import { writeJson } from "./report.js";
import { recordDashboard, type DashboardJson } from "./table-dashboard.js";
import { recordRun, type ResultFile, type RunJson } from "./table-results.js";
import { renderPage } from "./tables.js";

export const RESULTS_DIR = join(ROOT, "bench", "results");
export const PAGE = join(ROOT, "docs", "benchmarks.md");

const USAGE = "usage: npm run bench:tables -- [--record RUN.json ...] [--commit C] [--check]";

function fail(message: string, code: number): never {
  process.stderr.write(`bench:tables: ${message}\n`);
  process.exit(code);
}

function readResults(): ResultFile[] {
  return readdirSync(RESULTS_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(RESULTS_DIR, f), "utf8")) as ResultFile);
}

function headCommit(): string {
  return execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
}

const argv = process.argv.slice(2);
const record: string[] = [];
let check = false;
let commit: string | undefined;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]!;
  if (a === "--record" && argv[i + 1]) record.push(argv[++i]!);
  else if (a === "--commit" && argv[i + 1]) commit = argv[++i]!;
  else if (a === "--check") check = true;
  else if (a === "--help" || a === "-h") {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  } else fail(`unknown flag ${a}; ${USAGE}`, 2);
}

for (const file of record) {
  let run: RunJson | DashboardJson;
  try {
    run = JSON.parse(readFileSync(file, "utf8")) as RunJson | DashboardJson;
  } catch (err) {
    fail(`cannot read ${file}: ${(err as Error).message}`, 2);
  }
  const at = commit ?? headCommit();
  const result = "tool" in run && run.tool === "mesh-provisioner bench:dashboard" ? recordDashboard(run, at) : recordRun(run as RunJson, at);
  writeJson(join(RESULTS_DIR, `${result.id}.json`), result);
  process.stderr.write(`bench:tables: ${file} -> bench/results/${result.id}.json (${result.rows.length} rows)\n`);
}

const page = readFileSync(PAGE, "utf8");
let rendered: string;
try {
  rendered = renderPage(page, readResults());
} catch (err) {
  fail((err as Error).message, 1);
}
if (check) {
  if (rendered !== page) fail("docs/benchmarks.md's tables differ from bench/results/: run npm run bench:tables", 1);
  process.stderr.write("bench:tables: docs/benchmarks.md's tables match bench/results/\n");
} else if (rendered !== page) {
  writeFileSync(PAGE, rendered);
  process.stderr.write("bench:tables: docs/benchmarks.md's tables rewritten\n");
} else process.stderr.write("bench:tables: docs/benchmarks.md unchanged\n");
