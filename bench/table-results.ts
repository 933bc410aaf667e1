/**
 * The committed results behind docs/benchmarks.md's tables
 * (`bench/results/<area>-<size>-<server>.json`): only the rows a table
 * shows, with the command, the dates, the commit, the server's version and
 * the machine of the run. `recordRun` makes one from the JSON
 * `node dist/bench/run.js` writes; a file whose `origin` is `page` holds
 * figures carried over from an earlier page (written out as text), with the
 * date and commit they were measured at. Pure: I/O is in tables-main.ts.
 */
import type { CellRow } from "./table-cells.js";

export interface ResultRow extends CellRow {
  /** The name the table specs ask for (tables.ts). */
  key: string;
  /** The bench's own name of the row, for a reader of the file. */
  metric?: string;
}

export interface ResultFile {
  /** Its name in bench/results/, without .json: `<area>-<size>-<server>`. */
  id: string;
  area: string;
  /** nats-server's version, as `2.15.3`. */
  server: string;
  keys: number;
  command: string;
  commit: string;
  /** The run's first and last progress line, ISO 8601 UTC. */
  from: string;
  to: string;
  machine: string;
  /** The 1-minute load average, lowest and highest during the run (the bench's own processes included). */
  load?: [number, number];
  origin: "run" | "page";
  note?: string;
  rows: ResultRow[];
}

/** What `recordRun` reads of a run's JSON (bench/results-json.ts, or the start-up phase alone). */
export interface RunJson {
  machine: { cpu: string; cores: number; memoryGiB: number; os: string; node: string; natsServer: string; commit?: string; load1During?: [number, number] };
  config: {
    keys: number;
    runs: number;
    quick?: boolean;
    traceGc?: boolean;
    cpuProf?: boolean;
    putRate?: number;
    burst?: number;
    startupRate?: number;
    onlyStartup?: boolean;
    /** `"only"` for `--only-site`, `"no"` for `--no-site`. */
    site?: string;
    serviceNodeFlags?: string[];
  };
  rows: { metric: string; unit: string; service: number | null; baseline?: number | null; ratio?: number | null; ok?: boolean | null }[];
  phases: { at: string; load1: number }[];
}

/** The command that gives this configuration, its flags in the usage's order, defaults left out. */
export function commandOf(c: RunJson["config"]): string {
  const f = [`--keys ${c.keys}`, `--runs ${c.runs}`];
  if (c.quick) f.push("--quick");
  if (c.cpuProf) f.push("--cpu-prof");
  if (c.putRate !== undefined && c.putRate !== 1000) f.push(`--put-rate ${c.putRate}`);
  if (c.burst !== undefined && c.burst !== null) f.push(`--burst ${c.burst}`);
  if (c.traceGc) f.push("--trace-gc");
  if (c.serviceNodeFlags?.length) f.push(`--service-node-flags "${c.serviceNodeFlags.join(" ")}"`);
  if (c.startupRate !== undefined && c.startupRate !== 500) f.push(`--startup-rate ${c.startupRate}`);
  if (c.onlyStartup) f.push("--only-startup");
  if (c.site === "only") f.push("--only-site");
  if (c.site === "no") f.push("--no-site");
  return `node dist/bench/run.js ${f.join(" ")}`;
}

/** `nats-server: v2.15.3` -> `2.15.3`. */
export function serverVersion(line: string): string {
  const m = /v?(\d+\.\d+\.\d+)/.exec(line);
  if (!m) throw new Error(`no nats-server version in "${line}"`);
  return m[1]!;
}

export const sizeName = (keys: number): string => (keys >= 1_000_000 ? `${keys / 1_000_000}m` : `${keys / 1000}k`);

type Pick = { key: string; match: RegExp; text?: (metric: string, service: number | null) => string };

const span = (xs: number[]): string => {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? lo.toLocaleString("en-US") : `${lo.toLocaleString("en-US")}–${hi.toLocaleString("en-US")}`;
};
const listIn = (s: string | undefined): number[] => (s ?? "").split(/,\s*/).map(Number).filter(Number.isFinite);

/** The rows of a run the read-path table shows. */
const READ_PATH: Pick[] = [
  { key: "throughput-uncached", match: /^throughput, 64 in flight, a new node each request/ },
  { key: "needs-p50-uncached", match: /^needs p50, a new node each request/ },
  { key: "needs-p99-uncached", match: /^needs p99, a new node each request/ },
  { key: "cached-p50", match: /^one node's needs, p50 \(1 in flight, cached\)/ },
  { key: "cached-p99", match: /^one node's needs, p99 \(1 in flight, cached\)/ },
  { key: "throughput-cached", match: /^throughput, 64 in flight, the same node \(cached\)/ },
  { key: "keys-gets", match: /^one node's needs vs keys \+ gets/ },
  { key: "echo-keys-gets", match: /^echo vs keys \+ gets/ },
  { key: "sync", match: /^first sync, spawn -> synced/ },
  { key: "rss", match: /^RSS after sync/ },
  { key: "put-visible-p99", match: /^put -> visible in verb, p99/ },
  { key: "put-ack-p99", match: /^put -> ack alone, p99/ },
  { key: "gc-pause", match: /^longest gc pause of the service in its own put -> visible rounds/ },
  { key: "burst-unanswered", match: /^burst of \S+ new keys: asks not answered within 1 s/ },
  { key: "burst-idle", match: /^burst of \S+ new keys: back to idle/ },
  { key: "cache-hits", match: /^answer-cache hits in the uncached rows/ },
];

/** The rows of a run the start-up table shows; some are written out from the figures in the bench's metric. */
const START_UP: Pick[] = [
  { key: "one-cold", match: /^start-up of one instance while/ },
  { key: "three-cold", match: /^start-up of three instances at once while/ },
  { key: "three-checkpoint", match: /^start-up of three instances at once from a checkpoint/ },
  {
    key: "floor-cpu",
    match: /^three at once from a checkpoint against three bare processes/,
    text: (m) => {
      const cpu = /CPU per instance until answering ([\d, ?]+) ms, per bare process ([\d, ?]+) ms/.exec(m);
      return `${span(listIn(cpu?.[1]))} / ${span(listIn(cpu?.[2]))} ms`;
    },
  },
  {
    key: "wrong-cold",
    match: /^three at once: wrong answers/,
    text: (m, v) => `${v ?? "?"} of ${listIn(/wrong answers of ([\d + ]+) asked/.exec(m)?.[1]?.replace(/\+/g, ",")).reduce((a, b) => a + b, 0)}`,
  },
  {
    key: "wrong-checkpoint",
    match: /^three at once from a checkpoint: wrong answers/,
    text: (m, v) => `${v ?? "?"} of ${listIn(/wrong answers of ([\d + ]+) asked/.exec(m)?.[1]?.replace(/\+/g, ",")).reduce((a, b) => a + b, 0)}`,
  },
  {
    key: "checkpoint-write",
    match: /^verb p99 \/ max while the holder writes its needs checkpoint/,
    text: (m, v) => {
      const c = /\((\d+) bytes in (\d+) ms;.*max ([\d.]+) ms\)/.exec(m);
      const mb = (Number(c?.[1]) / 1e6).toFixed(1);
      return `${mb} MB in ${Number(c?.[2]).toLocaleString("en-US")} ms; ${v === null ? "?" : v.toFixed(1)} / ${Number(c?.[3]).toFixed(1)} ms`;
    },
  },
];

/** A figure kept to the precision a table can show: three decimals (a ratio four). */
const kept = (v: number | null | undefined, digits = 3): number | null =>
  v === undefined || v === null || !Number.isFinite(v) ? null : Number(v.toFixed(digits));

/** The floor row's cell is its baseline alone (the bare processes' time). */
function floorRow(r: RunJson["rows"][number]): ResultRow {
  return { key: "floor", metric: r.metric, unit: r.unit, service: kept(r.baseline) };
}

/** The rows of the site phase (bench/site.ts). */
const SITE: Pick[] = [
  { key: "ask-p50", match: /^site: a node's ask, across a \d+ ms link .*, p50$/ },
  { key: "ask-p99", match: /^site: a node's ask, across a \d+ ms link .*, p99$/ },
  { key: "mend-fresh", match: /^site: mend -> answers no longer stale/ },
  { key: "mend-current", match: /^site: mend -> answers current after/ },
  { key: "first-sync", match: /^site: the site's instance first synced across/ },
];

/** A run's JSON as a result file of its area: `read-path` for a full run, `start-up` for `--only-startup`, `site` for `--only-site`. */
export function recordRun(run: RunJson, commit: string): ResultFile {
  const area = run.config.onlyStartup ? "start-up" : run.config.site === "only" ? "site" : "read-path";
  const picks = area === "start-up" ? START_UP : area === "site" ? SITE : READ_PATH;
  const rows: ResultRow[] = [];
  for (const p of picks) {
    const r = run.rows.find((x) => p.match.test(x.metric));
    if (r === undefined) continue;
    if (p.key === "floor-cpu") rows.push(floorRow(r));
    const base: ResultRow = { key: p.key, metric: r.metric, unit: r.unit, service: kept(r.service), baseline: kept(r.baseline), ratio: kept(r.ratio, 4) };
    if (r.ok !== undefined && r.ok !== null) base.ok = r.ok;
    rows.push(p.text ? { key: p.key, metric: r.metric, text: p.text(r.metric, r.service), ...(base.ok === undefined ? {} : { ok: base.ok }) } : base);
  }
  const m = run.machine;
  const loads = run.phases.map((p) => p.load1);
  const server = serverVersion(m.natsServer);
  return {
    id: `${area}-${sizeName(run.config.keys)}-${server}`,
    area,
    server,
    keys: run.config.keys,
    command: commandOf(run.config),
    commit: m.commit && m.commit !== "unknown" ? m.commit : commit,
    from: run.phases[0]?.at ?? "",
    to: run.phases[run.phases.length - 1]?.at ?? "",
    machine: `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}, node ${m.node}`,
    load: m.load1During ?? [Math.min(...loads), Math.max(...loads)],
    origin: "run",
    rows,
  };
}
