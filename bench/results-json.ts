/**
 * The JSON a run writes: the machine, the configuration, every measurement as
 * a summary of its raw samples (the burst's asks in full: a few hundred), the
 * rows and the table as printed, and the progress lines with the load
 * average at each.
 */
import { median, summarize } from "./common.js";
import type { LoadResult } from "./load.js";
import type { Measured } from "./measured.js";
import type { PutVisible } from "./measure.js";
import type { Machine, Row } from "./report.js";
import type { ThroughputRounds } from "./throughput-phase.js";

export interface ResultsInput {
  machine: Machine;
  config: Record<string, unknown>;
  load: LoadResult;
  answer: { node: string; entries: number; bytes: number };
  measured: Measured;
  rows: Row[];
  table: string;
  phases: unknown[];
}

const throughputJson = (t: ThroughputRounds): Record<string, unknown> => ({ ...t, medianService: median(t.service), medianEcho: median(t.echo) });

const putJson = (rounds: PutVisible[]): unknown[] =>
  rounds.map((r) => ({ ...r, visibleMs: summarize(r.visibleMs), ackMs: summarize(r.ackMs), afterAckMs: summarize(r.afterAckMs) }));

export function resultsJson(r: ResultsInput): Record<string, unknown> {
  const m = r.measured;
  const { cached, uncached } = m.latency;
  return {
    tool: "mesh-provisioner bench",
    date: new Date().toISOString(),
    machine: r.machine,
    config: r.config,
    load: r.load,
    answer: r.answer,
    sync: { service: m.sync.service, bareWatch: m.sync.bareWatch },
    latencyMs: {
      cached: { service: summarize(cached.service.ms), echo: summarize(cached.echo.ms), errors: { service: cached.service.errors, echo: cached.echo.errors } },
      uncached: {
        nodes: uncached.nodes,
        service: summarize(uncached.service.ms),
        echo: summarize(uncached.echo.ms),
        errors: { service: uncached.service.errors, echo: uncached.echo.errors },
        verb: uncached.verb,
      },
    },
    throughput: { cached: throughputJson(m.throughput.cached), uncached: throughputJson(m.throughput.uncached) },
    twoInstances: { ...m.twoInstances, medianOne: median(m.twoInstances.one.perSecond), medianTwo: median(m.twoInstances.two.perSecond) },
    clientWay: m.clientWay,
    serviceGcPerPutRound: m.gcPerRound,
    putVisible: { service: putJson(m.putVisible.service), bare: putJson(m.putVisible.bare) },
    burst: m.burst,
    startup: m.startup,
    rows: r.rows,
    table: r.table,
    phases: r.phases,
  };
}
