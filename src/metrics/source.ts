/**
 * What the metrics read of a running provisioner (types only): the reader
 * the HTTP side uses, and the tallies its parts keep for the metrics.
 */
import type { What } from "mesh-provisioner-client/keys";
import type { ProjectionReader, ProvisionerReader } from "../http/reader.js";
import type { Reconciler } from "../reconcile/loop.js";
import type { SeatTally } from "../seat/lease.js";
import type { Projection } from "../projections/projection.js";

export interface MetricsSource extends ProvisionerReader {
  readonly projections: Readonly<Record<What, ProjectionReader & Pick<Projection, "lastAppliedAt" | "hearing" | "staleness">>>;
  readonly seat: ProvisionerReader["seat"] & { readonly tally: Readonly<SeatTally>; readonly vacantMs: number };
  readonly reconciler: ProvisionerReader["reconciler"] & Pick<Reconciler, "results" | "lastSuccessAt" | "drift">;
}

/** The source once bound (undefined before: the metrics are made before the provisioner starts). */
export type SourceOf = () => MetricsSource | undefined;
