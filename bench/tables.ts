/**
 * docs/benchmarks.md's tables, rendered from the committed results
 * (bench/results/*.json, table-results.ts). Each table sits between
 * `<!-- table:<id> -->` and `<!-- /table -->`; everything between them is
 * this module's output (a line saying each column's command, date and
 * commit, then the table), so a new run replaces a table and a hand edit is
 * undone (test/unit/bench-tables.test.ts fails on one). Pure.
 */
import { cell } from "./table-cells.js";
import type { ResultFile } from "./table-results.js";

export interface TableSpec {
  id: string;
  /** The first column's header. */
  head: string;
  columns: { file: string; label: string }[];
  rows: { key: string; label: string; target: string }[];
}

const READ_ROWS: TableSpec["rows"] = [
  { key: "throughput-uncached", label: "throughput, 64 in flight, uncached", target: ">= 0.9x echo (0.8x)" },
  { key: "needs-p50-uncached", label: "needs p50, uncached", target: "<= 1.3x echo" },
  { key: "needs-p99-uncached", label: "needs p99, uncached", target: "<= 2x echo (1.5x)" },
  { key: "cached-p50", label: "one node's needs p50, cached", target: "<= 1.3x echo" },
  { key: "cached-p99", label: "one node's needs p99, cached", target: "<= 2x echo" },
  { key: "throughput-cached", label: "throughput, 64 in flight, cached", target: ">= 0.7x echo" },
  { key: "keys-gets", label: "one node's needs vs keys + gets", target: ">= 500x faster" },
  { key: "echo-keys-gets", label: "echo vs keys + gets (what any responder reaches)", target: "(context)" },
  { key: "sync", label: "first sync, spawn -> synced", target: "<= 1.1x bare watch (1.0x)" },
  { key: "rss", label: "RSS after sync", target: "<= 1.1x bare watch (0.8x)" },
  { key: "put-visible-p99", label: "put -> visible in verb, p99", target: "<= 1.5x bare watch+reply" },
  { key: "put-ack-p99", label: "put -> ack alone, p99 (the floor)", target: "(context)" },
  { key: "gc-pause", label: "longest gc pause in its own put -> visible rounds", target: "<= 10 ms" },
  { key: "burst-unanswered", label: "burst of new keys: asks not answered within 1 s", target: "0" },
  { key: "burst-idle", label: "burst of new keys: back to idle after the last ack", target: "<= 1000 ms" },
  { key: "cache-hits", label: "answer-cache hits in the uncached rows / their requests", target: "0" },
];

const START_ROWS: TableSpec["rows"] = [
  { key: "one-cold", label: "one instance, cold", target: "<= 1.5x raw watch" },
  { key: "three-cold", label: "three at once, cold", target: "<= 1.5x raw watch (2.0x)" },
  { key: "three-checkpoint", label: "three at once from the holder's checkpoint", target: "<= max(2 s, 0.2x raw watch)" },
  { key: "floor", label: "its floor: three bare processes reading and unpacking the same checkpoint", target: "(context)" },
  { key: "floor-cpu", label: "CPU of each instance / of each bare process", target: "(context)" },
  { key: "wrong-cold", label: "wrong answers at `minRevision` = the last write before the start, cold", target: "0" },
  { key: "wrong-checkpoint", label: "the same, from the checkpoint", target: "0" },
  { key: "checkpoint-write", label: "the needs' checkpoint; verb p99 / max while it was written", target: "(context)" },
];

const both = (area: string, size: string): TableSpec["columns"] => [
  { file: `${area}-${size}-2.9.10`, label: "2.9.10" },
  { file: `${area}-${size}-2.15.3`, label: "2.15.3" },
];

export const TABLES: TableSpec[] = [
  {
    id: "read-path",
    head: "needs loaded",
    columns: [
      { file: "read-path-100k-2.9.10", label: "100k, 2.9.10" },
      { file: "read-path-100k-2.15.3", label: "100k, 2.15.3" },
      { file: "read-path-1m-2.9.10", label: "1M, 2.9.10" },
      { file: "read-path-1m-2.15.3", label: "1M, 2.15.3" },
    ],
    rows: READ_ROWS,
  },
  {
    id: "start-up",
    head: "needs loaded",
    columns: [
      { file: "start-up-1m-2.9.10", label: "1M, 2.9.10" },
      { file: "start-up-1m-2.15.3", label: "1M, 2.15.3" },
      { file: "start-up-10m-2.15.3", label: "10M, 2.15.3" },
    ],
    rows: [
      ...START_ROWS.slice(0, 5),
      { key: "loaded-then", label: "each instance: the needs loaded / answering after", target: "(context)" },
      ...START_ROWS.slice(5),
    ],
  },
  {
    id: "dashboard",
    head: "page (median / max of the opens)",
    columns: both("dashboard", "1m"),
    rows: [
      { key: "overview", label: "overview, quiet / under writes", target: "every open <= 500 ms" },
      { key: "node", label: "a node's page, quiet / under writes", target: "every open <= 500 ms" },
      { key: "registry", label: "registry", target: "every open <= 500 ms" },
      { key: "kind", label: "a kind (every node)", target: "every open <= 500 ms" },
      { key: "unanswered", label: "needs unanswered", target: "every open <= 500 ms" },
      { key: "out-of-shape", label: "keys out of shape", target: "every open <= 500 ms" },
      { key: "collections", label: "collections", target: "every open <= 500 ms" },
      { key: "collection", label: "a collection (10,000 items)", target: "every open <= 500 ms" },
      { key: "instances", label: "instances", target: "every open <= 500 ms" },
      { key: "collection-put", label: "a collection item put, shown (from the ack)", target: "each <= 1 s" },
      { key: "need-put", label: "a need put for the node on screen, shown", target: "each <= 500 ms" },
      { key: "heap", label: "the page's JS heap over a minute of changes", target: "bounded, <= 50 MB" },
    ],
  },
  {
    id: "site",
    head: "1M needs at a hub of three; one site behind 20 ms each way",
    columns: both("site", "1m"),
    rows: [
      { key: "ask-p50", label: "a node's ask, p50: across the link (the site's instance stopped) / at its site", target: "(context)" },
      { key: "ask-p99", label: "a node's ask, p99: the same", target: "(context)" },
      { key: "mend-fresh", label: "after a 5 s cut, link back -> answers no longer stale / -> the leaf link up", target: "(context)" },
      { key: "mend-current", label: "link back -> answers hold the hub's last write / -> the leaf link up", target: "(context)" },
      { key: "first-sync", label: "the site's instance's first sync across the link", target: "(context)" },
    ],
  },
  {
    id: "soak",
    head: "series (100k needs)",
    columns: [{ file: "soak-100k-2.9.10", label: "2.9.10" }],
    rows: [
      { key: "rss", label: "RSS: 15-minute floors over the second half", target: "levels off (<= 2 MiB/h rising)" },
      { key: "rss-held", label: "RSS less V8's free heap: the same", target: "levels off (<= 2 MiB/h rising)" },
    ],
  },
  {
    id: "go-client",
    head: "what",
    columns: [{ file: "go-client-1m-unknown", label: "server not recorded" }],
    rows: [
      { key: "watch", label: "a `Watch` of one node while 1,009 writes/s go to 100 other nodes", target: "that node's events alone" },
      { key: "decode", label: "decoding one node's page (100 needs, as a node asks once per snapshot)", target: "(context)" },
      { key: "get-1m", label: "`Get` of a 1M-key needs bucket (150 pages)", target: "(context)" },
    ],
  },
];

const time = (iso: string): string => iso.slice(11, 16);

/** "2026-12-05 03:05–03:12 UTC", or the day alone when that is all a carried-over figure has. */
export function when(from: string, to: string): string {
  if (from.length <= 10) return from === to || !to ? from : `${from}–${to}`;
  const day = from.slice(0, 10);
  return to.slice(0, 10) === day ? `${day} ${time(from)}–${time(to)} UTC` : `${day} ${time(from)} – ${to.slice(0, 10)} ${time(to)} UTC`;
}

/** Where a column's figures come from, one clause. */
function source(label: string, f: ResultFile): string {
  const load = f.load ? `, load ${f.load[0].toFixed(1)}–${f.load[1].toFixed(1)}` : "";
  const carried = f.origin === "page" ? ", carried over from the page of that commit" : "";
  const note = f.note ? `, ${f.note}` : "";
  return `${label}: ${when(f.from, f.to)} at ${f.commit}${load}${carried}${note}`;
}

/** The line above a table: each command with the columns measured by it. */
function sources(spec: TableSpec, files: ReadonlyMap<string, ResultFile>): string {
  const byCommand = new Map<string, string[]>();
  for (const c of spec.columns) {
    const f = files.get(c.file)!;
    const list = byCommand.get(f.command) ?? [];
    list.push(source(c.label, f));
    byCommand.set(f.command, list);
  }
  return [...byCommand].map(([command, cols]) => `\`${command}\` (${cols.join("; ")})`).join("; ") + ".";
}

export function renderTable(spec: TableSpec, files: ReadonlyMap<string, ResultFile>): string {
  const absent = spec.columns.filter((c) => !files.has(c.file)).map((c) => `bench/results/${c.file}.json`);
  if (absent.length) throw new Error(`table ${spec.id} needs ${absent.join(", ")}`);
  const lines = [
    sources(spec, files),
    "",
    `| ${spec.head} | target | ${spec.columns.map((c) => c.label).join(" | ")} |`,
    `|---|---|${spec.columns.map(() => "---|").join("")}`,
  ];
  for (const r of spec.rows) {
    const cells = spec.columns.map((c) => cell(files.get(c.file)!.rows.find((x) => x.key === r.key)));
    lines.push(`| ${r.label} | ${r.target} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

const MARKED = /(<!-- table:([\w-]+) -->\n)([\s\S]*?)(<!-- \/table -->)/g;

/** The page with every marked table rendered again; each spec's table must be on it once. */
export function renderPage(page: string, results: readonly ResultFile[], specs: readonly TableSpec[] = TABLES): string {
  const files = new Map(results.map((r) => [r.id, r]));
  const seen = new Set<string>();
  const out = page.replace(MARKED, (_all, open: string, id: string, _body: string, close: string) => {
    const spec = specs.find((s) => s.id === id);
    if (spec === undefined) throw new Error(`the page marks a table "${id}" that bench/tables.ts does not know`);
    if (seen.has(id)) throw new Error(`the page marks the table "${id}" twice`);
    seen.add(id);
    return `${open}${renderTable(spec, files)}\n${close}`;
  });
  const unplaced = specs.filter((s) => !seen.has(s.id)).map((s) => s.id);
  if (unplaced.length) throw new Error(`the page has no place for the table(s) ${unplaced.join(", ")} (<!-- table:ID --> … <!-- /table -->)`);
  return out;
}
