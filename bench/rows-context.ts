/**
 * Rows for context, without a target: parts of a targeted figure, the
 * burst's detail, two instances against one, and checks on the measurement
 * itself (how many "uncached" answers came from the cache).
 */
import { mib, median, percentile } from "./common.js";
import { CONTEXT, row, type Row } from "./report.js";
import { numbers, pooled, ratio, thousands, type Measured } from "./measured.js";
import { gcContextRows } from "./rows-gc.js";

/** The same percentile of both sides of a put -> visible figure, in ms. */
function sidesRow(metric: string, sides: { service: number[]; bare: number[] }, p: number): Row {
  const service = percentile(sides.service, p);
  const baseline = percentile(sides.bare, p);
  return row({ metric, unit: "ms", service, baseline, ratio: ratio(service, baseline), target: CONTEXT, check: undefined });
}

function burstRows(m: Measured): Row[] {
  const b = m.burst;
  if (!b) return [row({ metric: "burst of new keys (skipped: --burst 0)", unit: "", service: Number.NaN, target: CONTEXT, check: undefined })];
  const s = b.summary;
  const label = `burst of ${thousands(b.newKeys)} new keys`;
  return [
    row({
      metric: `${label}: longest of ${s.duringBurst} asks during it (baseline: idle p50 of ${s.idleAsks} before)`,
      unit: "ms",
      service: s.longestDuringBurstMs,
      baseline: s.idleMedianMs,
      ratio: ratio(s.longestDuringBurstMs, s.idleMedianMs),
      target: CONTEXT,
      check: undefined,
    }),
    row({
      metric: `${label}: longest of ${s.latencyAfterMs.n} asks after it (baseline: the slowest of ${s.idleAsks} idle asks)`,
      unit: "ms",
      service: s.latencyAfterMs.max,
      baseline: s.idleMaxMs,
      ratio: ratio(s.latencyAfterMs.max, s.idleMaxMs),
      target: CONTEXT,
      check: undefined,
    }),
    row({
      metric: `${label}: every ask within the idle bar after the last ack (the rule before: 2x idle p50, or idle p95 if slower; baseline: the echo by the same rule)`,
      unit: "ms",
      service: s.everyAskWithinBarMs,
      baseline: b.echo?.summary.everyAskWithinBarMs,
      target: CONTEXT,
      check: undefined,
    }),
    row({
      metric: `${label}: asks over 2x idle p50, of ${s.latencyAfterMs.n} after it (baseline: of ${s.idleAsks} idle asks)`,
      unit: "",
      service: s.afterAsksOverFactor,
      baseline: s.idleAsksOverFactor,
      target: CONTEXT,
      check: undefined,
    }),
    row({
      metric: `${label}: puts/s (${b.putErrors} failed), first put -> last ack ${(b.putMs / 1000).toFixed(1)} s`,
      unit: "puts/s",
      service: b.putsPerSecond,
      target: CONTEXT,
      check: undefined,
    }),
  ];
}

/** A node's own verb subject against the mesh's, the same nodes asked interleaved (uncached). */
function meshSubjectRows(m: Measured): Row[] {
  const u = m.latency.uncached;
  if (u.mesh === undefined) return [];
  const sides = { service: u.service.ms, bare: u.mesh.ms };
  return [50, 99].map((p) => sidesRow(`needs p${p}, uncached, on each node's own subject (baseline: the same asks on the mesh's subject)`, sides, p));
}

export function contextRows(m: Measured): Row[] {
  const startS = median(m.sync.service.map((s) => s.startMs));
  const startB = median(m.sync.bareWatch.map((s) => s.startMs));
  const heapB = mib(median(m.sync.bareWatch.map((s) => Number(s.own?.["heapUsed"] ?? Number.NaN))));
  const p50E = percentile(m.latency.cached.echo.ms, 50);
  const clientMs = median(numbers(m.clientWay["totalMs"]));
  const two = median(m.twoInstances.two.perSecond);
  const one = median(m.twoInstances.one.perSecond);
  // Every request of the uncached rows: the latency, the throughput, both instance counts.
  const tallies = [m.latency.uncached.verb, m.throughput.uncached.verb, m.twoInstances.one.verb, m.twoInstances.two.verb];
  const hits = tallies.reduce((a, t) => a + (t?.cacheHits ?? Number.NaN), 0);
  const requests = tallies.reduce((a, t) => a + (t?.requests ?? Number.NaN), 0);
  return [
    ...burstRows(m),
    ...gcContextRows(m.gcPerRound),
    ...meshSubjectRows(m),
    row({
      metric: "two instances against one, uncached, 64 in flight (answers/s)",
      unit: "req/s",
      service: two,
      baseline: one,
      ratio: ratio(two, one),
      target: CONTEXT,
      check: undefined,
    }),
    row({
      metric: "spawn -> own code runs (part of first sync)",
      unit: "ms",
      service: startS,
      baseline: startB,
      ratio: ratio(startS, startB),
      target: CONTEXT,
      check: undefined,
    }),
    sidesRow(
      "put -> visible in verb, p50",
      pooled(m, (r) => r.visibleMs),
      50,
    ),
    sidesRow(
      "put ack -> visible in verb, p99",
      pooled(m, (r) => r.afterAckMs),
      99,
    ),
    sidesRow(
      "put -> ack alone, p99 (the floor, each side's rounds)",
      pooled(m, (r) => r.ackMs),
      99,
    ),
    row({
      metric: "echo vs keys + gets (the ceiling of the keys + gets row)",
      unit: "ms",
      service: p50E,
      baseline: clientMs,
      ratio: ratio(clientMs, p50E),
      target: CONTEXT,
      check: undefined,
    }),
    row({ metric: "heapUsed after sync (bare watch's own)", unit: "MiB", service: Number.NaN, baseline: heapB, target: CONTEXT, check: undefined }),
    row({ metric: "answer size for one node (echo size)", unit: "B", service: m.answerBytes, baseline: m.answerBytes, target: CONTEXT, check: undefined }),
    row({
      metric: "answer-cache hits in the uncached rows (baseline: their requests)",
      unit: "",
      service: hits,
      baseline: requests,
      target: "(check: 0 = every answer built)",
      check: undefined,
    }),
  ];
}
