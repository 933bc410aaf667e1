/** Nodes over the flood limits (--flood-keys, --flood-bytes): how many, and the 20 with the most keys by name. */
import type { MetricsDef } from "./define.js";
import type { SourceOf } from "./source.js";

/** At most this many nodes are named, so the `node` label stays bounded. */
export const FLOODING_NAMED = 20;

export function floodingMetrics(def: MetricsDef, source: SourceOf): void {
  def.gauge({
    name: "mesh_provisioner_nodes_flooding",
    help: "Nodes over the flood limits (--flood-keys, --flood-bytes)",
    collect() {
      const p = source();
      if (p) this.set(p.overview.totals().nodesFlooding);
    },
  });
  // One series per flooding node, so an alert names it; none while nobody floods.
  def.gauge({
    name: "mesh_provisioner_node_flooding_keys",
    help: `Keys held by a node over the flood limits, by node (the ${FLOODING_NAMED} with the most keys)`,
    labelNames: ["node"],
    collect() {
      this.reset();
      const p = source();
      if (p) for (const f of p.overview.flooding(FLOODING_NAMED)) this.set({ node: f.node }, f.keys);
    },
  });
}
