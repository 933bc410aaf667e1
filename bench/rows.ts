/**
 * From the measurements to the table's rows: each target of issue 5 as a
 * ratio of medians (or, for put -> visible, an absolute bound), plus a few
 * rows for context that have no target.
 */
import { mib, median, percentile } from "./common.js";
import type { LatencySamples, PutVisible } from "./measure.js";
import { row, type Row } from "./report.js";
import type { SyncResults } from "./sync.js";

export interface Measured {
  sync: SyncResults;
  latency: { service: LatencySamples; echo: LatencySamples; uncached: LatencySamples };
  throughput: { service: number[]; echo: number[]; errors: { service: number; echo: number } };
  clientWay: Record<string, unknown>;
  /** The put -> visible rounds against the service and against the bare anchor (alternating). */
  putVisible: { service: PutVisible[]; bare: PutVisible[] };
  answerBytes: number;
  putRate: number;
}

const ratio = (a: number, b: number): number => a / b;

/** Samples of the service and of the bare watch+reply, for one put -> visible figure. */
interface Sides {
  service: number[];
  bare: number[];
}

/** A context row: the same percentile of both sides, in ms. */
function sidesRow(metric: string, sides: Sides, p: number): Row {
  const service = percentile(sides.service, p);
  const baseline = percentile(sides.bare, p);
  return row({ metric, unit: "ms", service, baseline, ratio: ratio(service, baseline), target: "(context)", check: undefined });
}
const numbers = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => typeof x === "number") : []);

export function buildRows(m: Measured): Row[] {
  const syncS = median(m.sync.service.map((s) => s.syncMs));
  const syncB = median(m.sync.bareWatch.map((s) => s.syncMs));
  const startS = median(m.sync.service.map((s) => s.startMs));
  const startB = median(m.sync.bareWatch.map((s) => s.startMs));
  const rssS = mib(median(m.sync.service.map((s) => s.rss)));
  const rssB = mib(median(m.sync.bareWatch.map((s) => s.rss)));
  const heapB = mib(median(m.sync.bareWatch.map((s) => Number(s.own?.["heapUsed"] ?? Number.NaN))));
  const p50S = percentile(m.latency.service.ms, 50);
  const p50E = percentile(m.latency.echo.ms, 50);
  const p99S = percentile(m.latency.service.ms, 99);
  const p99E = percentile(m.latency.echo.ms, 99);
  const p50U = percentile(m.latency.uncached.ms, 50);
  const thrS = median(m.throughput.service);
  const thrE = median(m.throughput.echo);
  // Every round's samples together (each round is thousands of puts), for each side.
  const pooled = (f: (r: PutVisible) => number[]): Sides => ({ service: m.putVisible.service.flatMap(f), bare: m.putVisible.bare.flatMap(f) });
  const pv = pooled((r) => r.visibleMs);
  const pvP99 = percentile(pv.service, 99);
  const pvP99B = percentile(pv.bare, 99);
  const clientMs = median(numbers(m.clientWay["totalMs"]));

  return [
    row({
      metric: "first sync, spawn -> synced",
      unit: "ms",
      service: syncS,
      baseline: syncB,
      ratio: ratio(syncS, syncB),
      target: "<= 1.3x bare watch",
      check: { kind: "atMost", limit: 1.3, of: "ratio" },
    }),
    row({
      metric: "RSS after sync (forced gc)",
      unit: "MiB",
      service: rssS,
      baseline: rssB,
      ratio: ratio(rssS, rssB),
      target: "<= 1.5x bare watch",
      check: { kind: "atMost", limit: 1.5, of: "ratio" },
    }),
    row({
      metric: "one node's needs, p50 (1 in flight)",
      unit: "ms",
      service: p50S,
      baseline: p50E,
      ratio: ratio(p50S, p50E),
      target: "<= 1.3x echo",
      check: { kind: "atMost", limit: 1.3, of: "ratio" },
    }),
    row({
      metric: "one node's needs, p99 (1 in flight)",
      unit: "ms",
      service: p99S,
      baseline: p99E,
      ratio: ratio(p99S, p99E),
      target: "<= 2x echo",
      check: { kind: "atMost", limit: 2, of: "ratio" },
    }),
    row({
      metric: "throughput, 64 in flight",
      unit: "req/s",
      service: thrS,
      baseline: thrE,
      ratio: ratio(thrS, thrE),
      target: ">= 0.7x echo",
      check: { kind: "atLeast", limit: 0.7, of: "ratio" },
    }),
    row({
      metric: `put -> visible in verb, p99 (${m.putRate % 1000 === 0 ? `${m.putRate / 1000}k` : m.putRate} puts/s)`,
      unit: "ms",
      service: pvP99,
      baseline: pvP99B,
      ratio: ratio(pvP99, pvP99B),
      target: "<= 5 ms (baseline: bare watch+reply)",
      check: { kind: "atMost", limit: 5, of: "service" },
    }),
    row({
      metric: "one node's needs vs keys + gets (x faster)",
      unit: "ms",
      service: p50S,
      baseline: clientMs,
      ratio: ratio(clientMs, p50S),
      target: ">= 500x faster",
      check: { kind: "atLeast", limit: 500, of: "ratio" },
    }),
    // Context, no target.
    row({
      metric: "spawn -> own code runs (part of first sync)",
      unit: "ms",
      service: startS,
      baseline: startB,
      ratio: ratio(startS, startB),
      target: "(context)",
      check: undefined,
    }),
    sidesRow("put -> visible in verb, p50", pv, 50),
    sidesRow("put ack -> visible in verb, p99", pooled((r) => r.afterAckMs), 99),
    sidesRow("put -> ack alone, p99 (the floor, each side's rounds)", pooled((r) => r.ackMs), 99),
    row({
      metric: "echo vs keys + gets (the ceiling of the row above)",
      unit: "ms",
      service: p50E,
      baseline: clientMs,
      ratio: ratio(clientMs, p50E),
      target: "(context)",
      check: undefined,
    }),
    row({
      metric: "needs p50, a new node each request (uncached)",
      unit: "ms",
      service: p50U,
      baseline: p50E,
      ratio: ratio(p50U, p50E),
      target: "(context)",
      check: undefined,
    }),
    row({
      metric: "heapUsed after sync (bare watch's own)",
      unit: "MiB",
      service: Number.NaN,
      baseline: heapB,
      target: "(context)",
      check: undefined,
    }),
    row({
      metric: "answer size for one node (echo size)",
      unit: "B",
      service: m.answerBytes,
      baseline: m.answerBytes,
      target: "(context)",
      check: undefined,
    }),
  ];
}
