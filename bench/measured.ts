/**
 * Everything one run measured, as the rows are built from it, and the small
 * helpers the row files share.
 */
import type { BurstResult } from "./burst.js";
import type { LatencySamples, PutVisible } from "./measure.js";
import type { GcRound } from "./put-phase.js";
import type { SyncResults } from "./sync.js";
import type { ThroughputRounds } from "./throughput-phase.js";
import type { TwoInstances } from "./two-instances.js";
import type { VerbTally } from "./verb-tally.js";
import type { StartupResult } from "./startup.js";

export interface Measured {
  sync: SyncResults;
  latency: {
    /** The probe node every time (cached answers). */
    cached: { service: LatencySamples; echo: LatencySamples };
    /** A different node each request, the same sequence for both sides. */
    uncached: {
      service: LatencySamples;
      echo: LatencySamples;
      /** The same nodes' needs asked on the mesh's subject, interleaved: what a node's own subject costs. */
      mesh?: LatencySamples;
      nodes: number;
      verb: VerbTally;
    };
  };
  throughput: { cached: ThroughputRounds; uncached: ThroughputRounds };
  clientWay: Record<string, unknown>;
  /** The put -> visible rounds against the service and against the bare anchor (alternating). */
  putVisible: { service: PutVisible[]; bare: PutVisible[] };
  /** The service's collections in each measured put -> visible round; undefined without --trace-gc. */
  gcPerRound: GcRound[] | undefined;
  /** Undefined with --burst 0. */
  burst: BurstResult | undefined;
  twoInstances: TwoInstances;
  /** Undefined with --startup-rate 0. */
  startup: StartupResult | undefined;
  answerBytes: number;
  putRate: number;
}

export const ratio = (a: number, b: number): number => a / b;
export const numbers = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => typeof x === "number") : []);
export const thousands = (n: number): string => (n % 1000 === 0 ? `${n / 1000}k` : String(n));

/** Each measured put -> visible figure pooled over every round (each round is thousands of puts), for each side. */
export function pooled(m: Measured, f: (r: PutVisible) => number[]): { service: number[]; bare: number[] } {
  return { service: m.putVisible.service.flatMap(f), bare: m.putVisible.bare.flatMap(f) };
}
