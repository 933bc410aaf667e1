/**
 * From the measurements to the table's rows. First the targets of issue 11
 * (ratios against an anchor measured in the same run, plus the burst's and
 * the gc pause's absolute bounds), then the rows of issue 5 that still hold,
 * then rows for context (`rows-context.ts`).
 */
import { mib, median, percentile } from "./common.js";
import type { BurstResult } from "./burst.js";
import { numbers, pooled, ratio, thousands, type Measured } from "./measured.js";
import { row, type Row } from "./report.js";
import { contextRows } from "./rows-context.js";
import { gcPauseRow } from "./rows-gc.js";
import { startupRows } from "./rows-startup.js";

/** A row judged on service / baseline. */
function ratioRow(metric: string, unit: string, service: number, baseline: number, target: string, kind: "atMost" | "atLeast", limit: number): Row {
  return row({ metric, unit, service, baseline, ratio: ratio(service, baseline), target, check: { kind, limit, of: "ratio" } });
}

/** The targets of issue 11. */
function issue11Rows(m: Measured): Row[] {
  const syncS = median(m.sync.service.map((s) => s.syncMs));
  const syncB = median(m.sync.bareWatch.map((s) => s.syncMs));
  const rssS = mib(median(m.sync.service.map((s) => s.rss)));
  const rssB = mib(median(m.sync.bareWatch.map((s) => s.rss)));
  const u = m.latency.uncached;
  const pv = pooled(m, (r) => r.visibleMs);
  const rows = [
    ratioRow("first sync, spawn -> synced", "ms", syncS, syncB, "<= 1.1x bare watch", "atMost", 1.1),
    ratioRow("RSS after sync (forced gc)", "MiB", rssS, rssB, "<= 1.1x bare watch", "atMost", 1.1),
    ratioRow(
      "throughput, 64 in flight, a new node each request (uncached)",
      "req/s",
      median(m.throughput.uncached.service),
      median(m.throughput.uncached.echo),
      ">= 0.9x echo",
      "atLeast",
      0.9,
    ),
    ratioRow(
      `needs p50, a new node each request (uncached, ${u.nodes} nodes)`,
      "ms",
      percentile(u.service.ms, 50),
      percentile(u.echo.ms, 50),
      "<= 1.3x echo",
      "atMost",
      1.3,
    ),
    ratioRow(
      `needs p99, a new node each request (uncached, ${u.nodes} nodes)`,
      "ms",
      percentile(u.service.ms, 99),
      percentile(u.echo.ms, 99),
      "<= 2x echo",
      "atMost",
      2,
    ),
    ratioRow(
      `put -> visible in verb, p99 (${thousands(m.putRate)} puts/s)`,
      "ms",
      percentile(pv.service, 99),
      percentile(pv.bare, 99),
      "<= 1.5x bare watch+reply",
      "atMost",
      1.5,
    ),
    gcPauseRow(m.gcPerRound),
  ];
  if (m.burst) rows.push(...burstTargetRows(m.burst));
  return rows;
}

function burstTargetRows(b: BurstResult): Row[] {
  const s = b.summary;
  const label = `burst of ${thousands(b.newKeys)} new keys`;
  return [
    row({
      metric: `${label}: asks not answered within 1 s (of ${b.asks.length}, burst + 5 s)`,
      unit: "",
      service: s.notAnsweredWithin1s,
      target: "0 (503 counts as answered)",
      check: { kind: "atMost", limit: 0, of: "service" },
    }),
    row({
      metric: `${label}: back to idle after the last put's ack (from then on every 1 s window of asks answered, its p50 within 1.5x idle p50 and its p80 within 2x idle p80; baseline: the echo asked alongside, by the same rule)`,
      unit: "ms",
      service: s.backToIdleMs,
      baseline: b.echo?.summary.backToIdleMs,
      target: "<= 1000 ms",
      check: { kind: "atMost", limit: 1000, of: "service" },
    }),
  ];
}

/** The targets of issue 5 that still hold: cached answers, and the verb against keys + gets. */
function heldRows(m: Measured): Row[] {
  const c = m.latency.cached;
  const p50S = percentile(c.service.ms, 50);
  const clientMs = median(numbers(m.clientWay["totalMs"]));
  return [
    ratioRow("one node's needs, p50 (1 in flight, cached)", "ms", p50S, percentile(c.echo.ms, 50), "<= 1.3x echo", "atMost", 1.3),
    ratioRow("one node's needs, p99 (1 in flight, cached)", "ms", percentile(c.service.ms, 99), percentile(c.echo.ms, 99), "<= 2x echo", "atMost", 2),
    ratioRow(
      "throughput, 64 in flight, the same node (cached)",
      "req/s",
      median(m.throughput.cached.service),
      median(m.throughput.cached.echo),
      ">= 0.7x echo",
      "atLeast",
      0.7,
    ),
    row({
      metric: "one node's needs vs keys + gets (x faster)",
      unit: "ms",
      service: p50S,
      baseline: clientMs,
      ratio: ratio(clientMs, p50S),
      target: ">= 500x faster",
      check: { kind: "atLeast", limit: 500, of: "ratio" },
    }),
  ];
}

export function buildRows(m: Measured): Row[] {
  return [...issue11Rows(m), ...heldRows(m), ...(m.startup ? startupRows(m.startup) : []), ...contextRows(m)];
}
