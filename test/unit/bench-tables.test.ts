import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DashRow } from "../../bench/dashboard-report.js";
import { cell } from "../../bench/table-cells.js";
import { recordDashboard, type DashboardJson } from "../../bench/table-dashboard.js";
import { commandOf, recordRun, type ResultFile, type RunJson } from "../../bench/table-results.js";
import { renderPage, TABLES, type TableSpec } from "../../bench/tables.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PAGE = join(ROOT, "docs", "benchmarks.md");
const RESULTS = join(ROOT, "bench", "results");

const committed = (): ResultFile[] =>
  readdirSync(RESULTS)
    .filter((f) => f.endsWith(".json"))
    .map((f) => JSON.parse(readFileSync(join(RESULTS, f), "utf8")) as ResultFile);

test("docs/benchmarks.md's tables are exactly what npm run bench:tables renders from bench/results/", () => {
  const page = readFileSync(PAGE, "utf8");
  assert.equal(renderPage(page, committed()), page, "a table was edited by hand or a result changed: run npm run bench:tables");
});

test("every committed result file is named for its area, size and server, and each is shown by a table", () => {
  const used = new Set(TABLES.flatMap((t) => t.columns.map((c) => c.file)));
  for (const f of readdirSync(RESULTS).filter((x) => x.endsWith(".json"))) {
    const r = JSON.parse(readFileSync(join(RESULTS, f), "utf8")) as ResultFile;
    assert.equal(`${r.id}.json`, f);
    assert.ok(used.has(r.id), `${f} is in no table of bench/tables.ts`);
    assert.ok(r.command && r.commit && r.from && r.rows.length > 0, `${f} says its command, commit, date and rows`);
  }
});

test("a figure typed into a table by hand is replaced by the results' figure, and the text around tables is kept", () => {
  const page = readFileSync(PAGE, "utf8");
  const open = page.indexOf("<!-- table:read-path -->");
  const row = page.indexOf("| throughput, 64 in flight, uncached |", open);
  assert.ok(open >= 0 && row > open, "the read path's table is on the page");
  const edited = `${page.slice(0, row)}| throughput, 64 in flight, uncached | >= 0.9x echo | **9.99k/s / 1.00k/s, 9.99x** |\n${page.slice(row)}`;
  assert.notEqual(renderPage(edited, committed()), edited);
  assert.equal(renderPage(edited, committed()), page);
});

const spec: TableSpec = {
  id: "t",
  head: "at 1M",
  columns: [{ file: "read-path-1m-2.15.3", label: "2.15.3" }],
  rows: [
    { key: "sync", label: "first sync", target: "<= 1.1x" },
    { key: "rss", label: "RSS", target: "<= 1.1x" },
  ],
};
const result: ResultFile = {
  id: "read-path-1m-2.15.3",
  area: "read-path",
  server: "2.15.3",
  keys: 1_000_000,
  command: "node dist/bench/run.js --keys 1000000 --runs 3",
  commit: "abc1234",
  from: "2026-12-05T03:05:34.000Z",
  to: "2026-12-05T03:14:02.000Z",
  machine: "m",
  load: [1.2, 3.4],
  origin: "run",
  rows: [{ key: "sync", unit: "ms", service: 12630, baseline: 21358, ratio: 0.5913, ok: true }],
};

test("a marked table is rendered with its command, date, commit and load, one column per server, — where a row is not measured", () => {
  const page = "# p\n\nbefore\n<!-- table:t -->\nold\n<!-- /table -->\nafter\n";
  const out = renderPage(page, [result], [spec]);
  assert.equal(
    out,
    "# p\n\nbefore\n<!-- table:t -->\n" +
      "`node dist/bench/run.js --keys 1000000 --runs 3` (2.15.3: 2026-12-05 03:05–03:14 UTC at abc1234, load 1.2–3.4).\n\n" +
      "| at 1M | target | 2.15.3 |\n|---|---|---|\n| first sync | <= 1.1x | **12,630 / 21,358 ms, 0.59x** |\n| RSS | <= 1.1x | — |\n" +
      "<!-- /table -->\nafter\n",
  );
  assert.equal(renderPage(out, [result], [spec]), out, "rendering twice changes nothing");
});

test("a table whose result file is missing, or which has no place on the page, is an error that names it", () => {
  assert.throws(() => renderPage("<!-- table:t -->\n<!-- /table -->\n", [], [spec]), /bench\/results\/read-path-1m-2\.15\.3\.json/);
  assert.throws(() => renderPage("no tables\n", [result], [spec]), /no place for the table\(s\) t/);
  assert.throws(() => renderPage("<!-- table:zz -->\n<!-- /table -->\n", [result], [spec]), /"zz"/);
});

test("a cell reads service / baseline unit, ratio: bold where the target is met, ', no' where not, k/s for throughput", () => {
  assert.equal(cell({ unit: "req/s", service: 3330, baseline: 3520, ratio: 0.946, ok: true }), "**3.33k/s / 3.52k/s, 0.95x**");
  assert.equal(cell({ unit: "MiB", service: 368.4, baseline: 343.2, ratio: 1.07, ok: false }), "368 / 343 MiB, 1.07x, no");
  assert.equal(cell({ unit: "ms", service: 0.58, baseline: 0.5, ratio: 1.16 }), "0.58 / 0.50 ms, 1.16x");
  assert.equal(cell({ unit: "ms", service: 0.68, baseline: 351, ratio: 516.2, ok: true }), "**0.68 / 351 ms, 516x**");
  assert.equal(cell({ unit: "", service: 0, ok: true }), "**0**");
  assert.equal(cell({ text: "0 of 60", ok: true }), "**0 of 60**");
  assert.equal(cell({ unit: "ms", service: Number.NaN }), "—");
});

test("recording a run keeps only the rows the tables show, with its command, server version and commit", () => {
  const run: RunJson = {
    machine: { cpu: "AMD EPYC", cores: 2, memoryGiB: 23.5, os: "linux 6.18", node: "v20.20.2", natsServer: "nats-server: v2.15.3", commit: "unknown" },
    config: { keys: 1_000_000, runs: 1, onlyStartup: true, startupRate: 500 },
    rows: [
      {
        metric: "start-up of one instance while nodes write 500/s: spawn -> answering (baseline: the raw KV watch started the same way)",
        unit: "ms",
        service: 6743,
        baseline: 11711,
        ratio: 0.576,
        ok: true,
      },
      {
        metric:
          "three at once from a checkpoint against three bare processes at once that only read and unpack it (baseline; no decode, no store, no watch): spawn -> the last done; CPU per instance until answering 1750, 1890, 1800 ms, per bare process 443, 475, 460 ms",
        unit: "ms",
        service: 3187,
        baseline: 963,
        ratio: 3.3,
      },
      {
        metric: "three at once: wrong answers of 60 asked at the revision before the start (minRevision 1000123), and instances short of the stream",
        unit: "",
        service: 0,
        ok: true,
      },
      {
        metric:
          "verb p99 / max while the holder writes its needs checkpoint (24977127 bytes in 884 ms; 310 asks one at a time; baseline: 50 asks just before; max 19.6 ms)",
        unit: "ms",
        service: 5.1,
        baseline: 2.3,
      },
      { metric: "consumer creations asked / retried / timed out", unit: "", service: 0 },
    ],
    phases: [
      { at: "2026-12-05T03:30:00.000Z", load1: 2.5 },
      { at: "2026-12-05T03:41:00.000Z", load1: 4.25 },
    ],
  };
  const r = recordRun(run, "69a704c");
  assert.equal(r.id, "start-up-1m-2.15.3");
  assert.equal(r.server, "2.15.3");
  assert.equal(r.commit, "69a704c");
  assert.equal(r.command, "node dist/bench/run.js --keys 1000000 --runs 1 --only-startup");
  assert.deepEqual(r.load, [2.5, 4.25]);
  assert.deepEqual(
    r.rows.map((x) => [x.key, cell(x)]),
    [
      ["one-cold", "**6,743 / 11,711 ms, 0.58x**"],
      ["floor", "963 ms"],
      ["floor-cpu", "1,750–1,890 / 443–475 ms"],
      ["wrong-cold", "**0 of 60**"],
      ["checkpoint-write", "25.0 MB in 884 ms; 5.1 / 19.6 ms"],
    ],
  );
});

test("a run's command is given back with the flags that differ from the defaults", () => {
  assert.equal(
    commandOf({ keys: 100_000, runs: 3, traceGc: true, startupRate: 0 }),
    "node dist/bench/run.js --keys 100000 --runs 3 --trace-gc --startup-rate 0",
  );
  assert.equal(commandOf({ keys: 1_000_000, runs: 3, burst: 0, putRate: 1000 }), "node dist/bench/run.js --keys 1000000 --runs 3 --burst 0");
});

test("recording a dashboard run gives each page's median / max, quiet and under writes, met only when every open was within its target", () => {
  const r = (measure: string, median: number, max: number, met: boolean | undefined): DashRow => ({ measure, unit: "ms", median, max, n: 3, target: "", met });
  const run: DashboardJson = {
    tool: "mesh-provisioner bench:dashboard",
    machine: { cpu: "AMD EPYC", cores: 2, memoryGiB: 23.5, os: "linux 6.18", node: "v20.20.2", natsServer: "nats-server: v2.9.10", commit: "fef4f3d" },
    config: { keys: 1_000_000, runs: 3, samples: 10, rate: 1000, holdMs: 60_000 },
    rows: [
      r("overview live (quiet)", 403.2, 417.4, true),
      r("overview live (1000 writes/s elsewhere)", 518, 788, false),
      r("registry page live (1000 writes/s elsewhere)", 439, 487, true),
      { measure: "page JS heap, overview pages", unit: "MB", median: 2.1, max: 3.36, n: 9, target: "", met: true },
      { measure: "page JS heap, node pages", unit: "MB", median: 2.1, max: 2.5, n: 9, target: "", met: true },
    ],
    phases: [
      { at: "2026-12-04T10:00:00.000Z", load1: 1.9 },
      { at: "2026-12-04T10:20:00.000Z", load1: 4.7 },
    ],
  };
  const f = recordDashboard(run, "HEAD");
  assert.equal(f.id, "dashboard-1m-2.9.10");
  assert.equal(f.commit, "fef4f3d");
  assert.equal(f.command, "npm run bench:dashboard -- --keys 1000000 --runs 3 --samples 10 --hold-ms 60000");
  assert.deepEqual(
    f.rows.map((x) => [x.key, cell(x)]),
    [
      ["overview", "403 / 417 ms; 518 / 788 ms, no"],
      ["registry", "**439 / 487 ms**"],
      ["heap", "**at most 3.4 MB**"],
    ],
  );
});
