/**
 * Prometheus metrics, all named `mesh_provisioner_*`. Gauges are read from the
 * projections, the seat and the reconciler when scraped; the verb's requests,
 * errors and latency are counted as they happen.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { ProvisionerReader } from "./reader.js";
import { streamName, WHATS } from "mesh-provisioner-client/keys";

export interface Metrics {
  readonly registry: Registry;
  /** Hook for the verb: one call per answered request. */
  observe(status: number, what: string, seconds: number): void;
}

export function createMetrics(): Metrics & { bind(p: ProvisionerReader, jsm: JetStreamManager): void } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "mesh_provisioner_process_" });
  const requests = new Counter({
    name: "mesh_provisioner_verb_requests_total",
    help: "Verb requests answered, by what was asked and status",
    labelNames: ["what", "status"],
    registers: [registry],
  });
  const errors = new Counter({
    name: "mesh_provisioner_verb_errors_total",
    help: "Verb requests answered with a service error, by status",
    labelNames: ["status"],
    registers: [registry],
  });
  const latency = new Histogram({
    name: "mesh_provisioner_verb_latency_seconds",
    help: "Time from a verb request's arrival to its reply",
    labelNames: ["what"],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });
  let provisioner: ProvisionerReader | undefined;
  let jsmRef: JetStreamManager | undefined;
  const perBucket = (name: string, help: string, read: (w: (typeof WHATS)[number]) => number): Gauge =>
    new Gauge({
      name,
      help,
      labelNames: ["what"],
      registers: [registry],
      collect() {
        if (!provisioner) return;
        for (const w of WHATS) this.set({ what: w }, read(w));
      },
    });
  perBucket("mesh_provisioner_entries", "Entries in shape held by each projection", (w) => provisioner!.projections[w].store.size);
  perBucket("mesh_provisioner_out_of_shape", "Keys out of their bucket's shape", (w) => provisioner!.projections[w].store.outOfShapeCount);
  perBucket("mesh_provisioner_revision", "The bucket's stream sequence each projection has applied", (w) => provisioner!.projections[w].revision);
  perBucket("mesh_provisioner_synced", "1 while the projection is caught up with its bucket", (w) => (provisioner!.projections[w].isSynced ? 1 : 0));
  perBucket(
    "mesh_provisioner_first_sync_expected",
    "Entries the first sync's consumer said it would deliver (0 until it has said)",
    (w) => provisioner!.projections[w].syncProgress.expected,
  );
  perBucket("mesh_provisioner_first_sync_received", "Entries the first sync has received so far", (w) => provisioner!.projections[w].syncProgress.received);
  new Gauge({
    name: "mesh_provisioner_checkpoint_fallbacks",
    help: "Starts of a node bucket's projection that read the bucket whole instead of its checkpoint, by bucket and reason",
    labelNames: ["bucket", "reason"],
    registers: [registry],
    collect() {
      if (!provisioner) return;
      for (const [bucket, c] of Object.entries(provisioner.checkpoints.snapshot())) {
        for (const [reason, n] of Object.entries(c.fallbacks)) this.set({ bucket, reason }, n);
      }
    },
  });
  new Gauge({
    name: "mesh_provisioner_checkpoint_start",
    help: "1 for how each node bucket's projection last started: from its checkpoint, or the bucket read whole",
    labelNames: ["bucket", "from"],
    registers: [registry],
    collect() {
      if (!provisioner) return;
      for (const [bucket, c] of Object.entries(provisioner.checkpoints.snapshot())) {
        for (const from of ["checkpoint", "full", "pending"] as const) this.set({ bucket, from }, c.start === from ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: "mesh_provisioner_checkpoint_written_bytes",
    help: "Bytes of the checkpoints this instance wrote while holding the seat, by bucket (before replication)",
    labelNames: ["bucket"],
    registers: [registry],
    collect() {
      if (!provisioner) return;
      for (const [bucket, c] of Object.entries(provisioner.checkpoints.snapshot())) this.set({ bucket }, c.bytesWritten);
    },
  });
  new Gauge({
    name: "mesh_provisioner_watch_consumer_creations",
    help: "Consumer creations this instance's watches asked for, by bucket and outcome (retried: asked again for one that had timed out)",
    labelNames: ["bucket", "outcome"],
    registers: [registry],
    collect() {
      if (!provisioner) return;
      for (const [bucket, c] of Object.entries(provisioner.consumers.snapshot())) {
        for (const outcome of ["asked", "retried", "created", "timedOut", "failed"] as const) this.set({ bucket, outcome }, c[outcome]);
      }
    },
  });
  new Gauge({
    name: "mesh_provisioner_watch_lag",
    help: "Messages the bucket's stream holds beyond what the projection applied",
    labelNames: ["what"],
    registers: [registry],
    async collect() {
      if (!provisioner || !jsmRef) return;
      const p = provisioner;
      const jsm = jsmRef;
      // Unknown while the bus is away: never let a scrape wait on the bus (NaN, not a stale 0).
      if (!p.connected()) {
        for (const w of WHATS) this.set({ what: w }, Number.NaN);
        return;
      }
      const infos = await Promise.all(
        WHATS.map((w) =>
          Promise.race([
            jsm.streams.info(streamName(p.projections[w].store.spec.bucket)).catch(() => null),
            new Promise<null>((r) => setTimeout(() => r(null), 1000).unref()),
          ]),
        ),
      );
      WHATS.forEach((w, i) => {
        const info = infos[i];
        this.set({ what: w }, info ? Math.max(0, info.state.last_seq - p.projections[w].revision) : Number.NaN);
      });
    },
  });
  new Gauge({
    name: "mesh_provisioner_seat_holder",
    help: "1 while this instance holds the seat",
    registers: [registry],
    collect() {
      if (provisioner) this.set(provisioner.seat.isHolder ? 1 : 0);
    },
  });
  new Gauge({
    name: "mesh_provisioner_registry_writes",
    help: "Registry writes made by this instance, by operation",
    labelNames: ["op"],
    registers: [registry],
    collect() {
      if (!provisioner) return;
      for (const [op, n] of Object.entries(provisioner.reconciler.writes)) this.set({ op }, n);
    },
  });
  new Gauge({
    name: "mesh_provisioner_nodes_flooding",
    help: "Nodes over the flood limits (--flood-keys, --flood-bytes)",
    registers: [registry],
    collect() {
      if (provisioner) this.set(provisioner.overview.totals().nodesFlooding);
    },
  });
  // One series per flooding node (at most 20, the most keys first), so an alert names it; none while nobody floods.
  new Gauge({
    name: "mesh_provisioner_node_flooding",
    help: "Keys held by a node over the flood limits, by node (the 20 with the most keys)",
    labelNames: ["node"],
    registers: [registry],
    collect() {
      this.reset();
      if (!provisioner) return;
      for (const f of provisioner.overview.flooding(20)) this.set({ node: f.node }, f.keys);
    },
  });
  return {
    registry,
    observe(status, what, seconds) {
      requests.inc({ what, status: String(status) });
      if (status !== 200) errors.inc({ status: String(status) });
      latency.observe({ what }, seconds);
    },
    bind(p, jsm) {
      provisioner = p;
      jsmRef = jsm;
    },
  };
}
