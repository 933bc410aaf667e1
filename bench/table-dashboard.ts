/**
 * The dashboard's result file (table-results.ts) from the JSON
 * `npm run bench:dashboard` writes: each page's median / max time to live,
 * quiet and under writes where both were measured, the changes shown, and
 * the pages' largest JS heap. A cell is met when every sample was within
 * its target (dashboard-report.ts); a miss is marked on the part that
 * missed.
 */
import type { DashRow } from "./dashboard-report.js";
import { serverVersion, sizeName, type ResultFile, type ResultRow, type RunJson } from "./table-results.js";

export interface DashboardJson {
  tool: string;
  machine: RunJson["machine"];
  config: { keys: number; runs: number; samples: number; rate: number; holdMs: number };
  rows: DashRow[];
  phases: RunJson["phases"];
}

/** Each key of the dashboard's table with the bench's row(s) it shows. */
const PICKS: [key: string, ...match: RegExp[]][] = [
  ["overview", /^overview live \(quiet\)/, /^overview live \(\d+ writes\/s/],
  ["node", /^node page live, \d+ needs \(quiet\)/, /^node page live, \d+ needs \(\d+ writes\/s/],
  ["registry", /^registry page live/],
  ["kind", /^kind \(.*\) page live/],
  ["unanswered", /^needs unanswered page live/],
  ["out-of-shape", /^keys out of shape page live/],
  ["collections", /^collections page live/],
  ["collection", /^collection \(.*\) page live/],
  ["instances", /^instances page live/],
  ["collection-put", /^collection item put -> row shown on its page, from the ack/],
  ["need-put", /^need put for the node on screen -> row shown, from the ack/],
];

const ms = (x: number): string => Math.round(x).toLocaleString("en-US");
const met = (rs: readonly DashRow[]): boolean | undefined => (rs.some((r) => r.met === false) ? false : rs.every((r) => r.met === true) ? true : undefined);

function withOk(row: ResultRow, ok: boolean | undefined): ResultRow {
  return ok === undefined ? row : { ...row, ok };
}

export function recordDashboard(run: DashboardJson, commit: string): ResultFile {
  const rows: ResultRow[] = [];
  for (const [key, ...matches] of PICKS) {
    const found = matches.map((m) => run.rows.find((r) => m.test(r.measure))).filter((r): r is DashRow => r !== undefined);
    if (found.length === 0) continue;
    // Each part says ", no" itself, so a cell of two says which missed; bold only when both met.
    const text = found.map((r) => `${ms(r.median)} / ${ms(r.max)} ms${r.met === false ? ", no" : ""}`).join("; ");
    rows.push(withOk({ key, text }, met(found) === true ? true : undefined));
  }
  const heap = run.rows.filter((r) => /^page JS heap/.test(r.measure));
  if (heap.length) rows.push(withOk({ key: "heap", text: `at most ${Math.max(...heap.map((r) => r.max)).toFixed(1)} MB` }, met(heap)));
  const c = run.config;
  const m = run.machine;
  const loads = run.phases.map((p) => p.load1);
  const server = serverVersion(m.natsServer);
  return {
    id: `dashboard-${sizeName(c.keys)}-${server}`,
    area: "dashboard",
    server,
    keys: c.keys,
    command: `npm run bench:dashboard -- --keys ${c.keys} --runs ${c.runs} --samples ${c.samples} --hold-ms ${c.holdMs}${c.rate === 1000 ? "" : ` --rate ${c.rate}`}`,
    commit: m.commit && m.commit !== "unknown" ? m.commit : commit,
    from: run.phases[0]?.at ?? "",
    to: run.phases[run.phases.length - 1]?.at ?? "",
    machine: `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}, node ${m.node}`,
    load: [Math.min(...loads), Math.max(...loads)],
    origin: "run",
    rows,
  };
}
