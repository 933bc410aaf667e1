/**
 * What the benchmark prints and writes: the machine it ran on, and the table
 * of metric | service | baseline | ratio | target | ok?, as a Markdown table
 * (so it can be pasted as it is) and as JSON.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { findNatsServer } from "../src/embedded/nats-server.js";
import { round } from "./common.js";

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  natsServer: string;
  /** The repository's commit the bench ran at (`git rev-parse --short HEAD`), "unknown" outside a checkout. */
  commit: string;
  loadAvgAtStart: number[];
  loadAvgAtEnd?: number[];
  /** Lowest and highest 1-minute load average seen at the start of each phase. */
  load1During?: [number, number];
}

export function machine(): Machine {
  let natsServer = "unknown";
  try {
    natsServer = execFileSync(findNatsServer(), ["--version"], { encoding: "utf8", timeout: 5000 }).trim();
  } catch {
    // Reported as unknown; the run itself will fail clearly if the server is missing.
  }
  let commit = "unknown";
  try {
    const here = dirname(fileURLToPath(import.meta.url));
    commit = execFileSync("git", ["-C", resolve(here, "..", ".."), "rev-parse", "--short", "HEAD"], { encoding: "utf8", timeout: 5000 }).trim();
  } catch {
    // Not a checkout (a copy of dist/): the result file says so.
  }
  return {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGiB: round(totalmem() / 1024 ** 3, 1),
    os: `linux ${release()}`,
    node: process.version,
    natsServer,
    commit,
    loadAvgAtStart: loadavg().map((x) => round(x, 2)),
  };
}

/** How a ratio is judged: at most (service/baseline ≤ limit) or at least (≥ limit). */
export type Check = { kind: "atMost" | "atLeast"; limit: number; of: "ratio" | "service" } | undefined;

export interface Row {
  metric: string;
  unit: string;
  service: number;
  baseline?: number;
  /** service / baseline, or baseline / service for "times faster" rows. */
  ratio?: number;
  target: string;
  check: Check;
  ok?: boolean;
}

/** The target cell of a row that has none: reported for context. */
export const CONTEXT = "(context)";

export function row(r: Omit<Row, "ok">): Row {
  let ok: boolean | undefined;
  if (r.check) {
    const v = r.check.of === "ratio" ? r.ratio : r.service;
    ok = v !== undefined && Number.isFinite(v) && (r.check.kind === "atMost" ? v <= r.check.limit : v >= r.check.limit);
  }
  return { ...r, ok };
}

const fmt = (x: number | undefined, unit = ""): string => {
  if (x === undefined || !Number.isFinite(x)) return "—";
  // Counts (asks, hits) print as they are; so does any whole figure (2 ms, not 2.00 ms).
  if (Number.isInteger(x)) return `${x}${unit ? ` ${unit}` : ""}`;
  const digits = Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : Math.abs(x) >= 1 ? 2 : 3;
  return `${x.toFixed(digits)}${unit ? ` ${unit}` : ""}`;
};

export function markdownTable(rows: readonly Row[]): string {
  const head = ["metric", "service", "baseline", "ratio", "target", "ok?"];
  const body = rows.map((r) => [
    r.metric,
    fmt(r.service, r.unit),
    fmt(r.baseline, r.unit),
    r.ratio === undefined ? "—" : `${fmt(r.ratio)}x`,
    r.target,
    r.ok === undefined ? "" : r.ok ? "yes" : "**no**",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}

export function machineLines(m: Machine, keys: number, runs: number): string {
  return [
    `machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; node ${m.node}; ${m.natsServer}`,
    `keys: ${keys} (${Math.ceil(keys / 100)} nodes x 100); runs: ${runs}; load average at start ${m.loadAvgAtStart.join(" ")}` +
      (m.loadAvgAtEnd ? `, at end ${m.loadAvgAtEnd.join(" ")}` : "") +
      (m.load1During ? `; 1-min load during the run ${m.load1During[0]}–${m.load1During[1]} (the bench's own processes included)` : ""),
  ].join("\n");
}

export function writeJson(file: string, doc: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(doc, null, 2) + "\n");
}
