/**
 * What the HTTP side and the dump read of a running provisioner (types only):
 * its projections, the mesh overview, the change rate, the seat as this instance sees it, the
 * consumer creations, the registry writes, whether the connection is up.
 * Nothing here starts, stops or writes: the provisioner (main.ts) implements
 * it, and the readers depend on this rather than on the composition root.
 */
import type { Observable } from "rxjs";
import type { NatsConnection } from "@nats-io/nats-core";
import type { What } from "mesh-provisioner-client/keys";
import type { Projection } from "../projections/projection.js";
import type { MeshOverview } from "../overview/overview.js";
import type { ChangeRate } from "../overview/change-rate.js";
import type { Change } from "../projections/store/view.js";
import type { CheckpointCounts, CreationCounts, HolderValue } from "mesh-provisioner-client/protocol/stats.js";

/** One projection as a reader sees it: its store's read-only view, its state, and the changes it applies. */
export type ProjectionReader = Pick<Projection, "store" | "revision" | "isSynced" | "syncProgress" | "staleness"> & {
  readonly changes$: Observable<Change>;
};

export interface ProvisionerReader {
  /** True while the connection to the bus is up. */
  readonly connected: () => boolean;
  /** True from the moment a graceful stop begins. */
  readonly stopping: () => boolean;
  readonly projections: Readonly<Record<What, ProjectionReader>>;
  /** Counts per node of the whole mesh (the dashboard's overview). */
  readonly overview: Pick<MeshOverview, "totals" | "version" | "page" | "row" | "flooding" | "kinds" | "needsOfKind" | "collections" | "itemsOf">;
  /** Changes applied per bucket over the last hour, counted from the process's start (`/api/rate`). */
  readonly rate: Pick<ChangeRate, "series">;
  /** The connection, for asking the running instances their stats (`$SRV.STATS`). */
  readonly nc: Pick<NatsConnection, "requestMany">;
  readonly seat: { readonly holder: HolderValue | undefined; readonly isHolder: boolean; readonly instance: string };
  readonly consumers: { snapshot(): Record<string, CreationCounts> };
  readonly checkpoints: { snapshot(): Record<string, CheckpointCounts> };
  readonly reconciler: { readonly writes: Readonly<Record<string, number>> };
}
