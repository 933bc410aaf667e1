/**
 * The service's Prometheus metrics (`/metrics`), named by Prometheus's
 * conventions: the service's own are `mesh_provisioner_*`, the process's
 * keep prom-client's standard names (`process_*`, `nodejs_*`) so the usual
 * Node.js dashboards and alerts match them. Counters end in `_total`, units
 * are in the names, and no label holds an unbounded value (the flooding
 * nodes are at most 20). docs/operations.md#metrics lists them.
 *
 * Made before the provisioner starts (the verb's hook and the connection's
 * status are needed from the start), bound to it once it runs; the gauges
 * are read from it at each scrape.
 */
import { collectDefaultMetrics, Registry } from "prom-client";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { Objm } from "@nats-io/obj";
import { VERSION } from "../version.js";
import { readiness } from "../http/server.js";
import { MetricsDef, type CatalogEntry } from "./define.js";
import type { MetricsSource } from "./source.js";
import { projectionMetrics } from "./projections.js";
import { seatMetrics } from "./seat.js";
import { reconcileMetrics } from "./reconcile.js";
import { checkpointMetrics } from "./checkpoints.js";
import { connectionMetrics, type WatchedConnection } from "./connection.js";
import { verbMetrics } from "./verb.js";
import { floodingMetrics } from "./flooding.js";

/** prom-client's default gauges whose names end in `_total`, which only counters may: left out. */
export const DROPPED_DEFAULTS = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"] as const;

export interface Metrics {
  readonly registry: Registry;
  /** Every `mesh_provisioner_*` metric: its name, type, labels and help. */
  readonly catalog: readonly CatalogEntry[];
  /** Hook for the verb: one call per answered request. */
  observe(status: number, what: string, seconds: number): void;
  /** Read the running provisioner from now on, and its buckets' streams through its JetStream manager and object store manager (its domain's, if any). */
  bind(p: MetricsSource, jsm: JetStreamManager, objm: Objm): void;
}

export interface MetricsOptions {
  /** The connection to the bus, watched from now on (its status events). */
  readonly nc?: WatchedConnection;
}

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of DROPPED_DEFAULTS) registry.removeSingleMetric(name);
  const def = new MetricsDef(registry);
  let source: MetricsSource | undefined;
  let jsm: JetStreamManager | undefined;
  let objm: Objm | undefined;
  const sourceOf = (): MetricsSource | undefined => source;

  def
    .gauge({
      name: "mesh_provisioner_build_info",
      help: "1, labelled with the service's version and the Node.js version it runs on",
      labelNames: ["version", "nodejs_version"],
    })
    .set({ version: VERSION, nodejs_version: process.version }, 1);
  def.gauge({
    name: "mesh_provisioner_ready",
    help: "1 while /readyz answers 200: connected, every projection synced, not stopping",
    collect() {
      if (source) this.set(readiness(source).ready ? 1 : 0);
    },
  });
  seatMetrics(def, sourceOf);
  projectionMetrics(def, sourceOf, () => jsm);
  reconcileMetrics(def, sourceOf);
  const observe = verbMetrics(def);
  checkpointMetrics(def, sourceOf, () => objm);
  connectionMetrics(def, opts.nc);
  floodingMetrics(def, sourceOf);
  return {
    registry,
    catalog: def.catalog,
    observe,
    bind(p, j, o) {
      source = p;
      jsm = j;
      objm = o;
    },
  };
}
