/**
 * The projections' metrics, by `what` (registry, needs, applied, collect):
 * what each holds, how far it has applied its bucket's stream, how far that
 * stream is (read from the bus, bounded), how it started, and the consumer
 * creations of their watches.
 */
import type { JetStreamManager, StreamInfo } from "@nats-io/jetstream";
import { BUCKETS, streamName, WHATS, type What } from "mesh-provisioner-client/keys";
import type { MetricsDef } from "./define.js";
import type { SourceOf } from "./source.js";
import { bounded, shared } from "./bus-read.js";

/** How a projection last started: from its checkpoint (proven), read whole, or a checkpoint still being proven. */
export const STARTS = ["checkpoint", "full", "pending"] as const;

const CREATION_OUTCOMES = ["asked", "retried", "created", "timedOut", "failed"] as const;

export function projectionMetrics(def: MetricsDef, source: SourceOf, jsmOf: () => JetStreamManager | undefined): void {
  const perWhat = (name: string, help: string, read: (w: What) => number): void => {
    def.gauge({
      name,
      help,
      labelNames: ["what"],
      collect() {
        const p = source();
        if (p) for (const w of WHATS) this.set({ what: w }, read(w));
      },
    });
  };
  const of = (w: What) => source()!.projections[w];
  perWhat("mesh_provisioner_projection_entries", "Entries in shape held by each projection", (w) => of(w).store.size);
  perWhat("mesh_provisioner_projection_out_of_shape_keys", "Keys out of their bucket's shape, by projection", (w) => of(w).store.outOfShapeCount);
  perWhat("mesh_provisioner_projection_revision", "The bucket's stream sequence each projection has applied", (w) => of(w).revision);
  perWhat("mesh_provisioner_projection_synced", "1 while the projection is caught up with its bucket", (w) => (of(w).isSynced ? 1 : 0));
  perWhat(
    "mesh_provisioner_projection_last_applied_timestamp_seconds",
    "Unix time at which the projection last applied an entry (0: never)",
    (w) => of(w).lastAppliedAt / 1000,
  );
  // By `bucket` (the projection's name, as the checkpoints' metrics name theirs): what an alert on a site's staleness joins on.
  const perBucket = (name: string, help: string, read: (w: What) => number): void => {
    def.gauge({
      name,
      help,
      labelNames: ["bucket"],
      collect() {
        const p = source();
        if (p) for (const w of WHATS) this.set({ bucket: w }, read(w));
      },
    });
  };
  perBucket(
    "mesh_provisioner_projection_heard_timestamp_seconds",
    "Unix time at which the projection last heard from its bucket's stream (a message, a heartbeat, a read of its state)",
    (w) => of(w).hearing.at / 1000,
  );
  perBucket(
    "mesh_provisioner_projection_stale",
    "1 while the projection has heard nothing from its bucket's stream for longer than --stale-after: its answers carry stale",
    (w) => (of(w).staleness() === undefined ? 0 : 1),
  );
  perWhat(
    "mesh_provisioner_projection_first_sync_expected_entries",
    "Entries the first sync's consumer said it would deliver (0 until it has said)",
    (w) => of(w).syncProgress.expected,
  );
  perWhat("mesh_provisioner_projection_first_sync_received_entries", "Entries the first sync has received so far", (w) => of(w).syncProgress.received);

  // The streams' state, read once per scrape for both gauges that need it; unknown (NaN) while the bus is away.
  const streams = shared(async (): Promise<(StreamInfo | undefined)[]> => {
    const p = source();
    const jsm = jsmOf();
    if (!p || !jsm || !p.connected()) return WHATS.map(() => undefined);
    return Promise.all(WHATS.map((w) => bounded(() => jsm.streams.info(streamName(BUCKETS[w])))));
  });
  const fromStreams = (name: string, help: string, read: (info: StreamInfo, w: What) => number): void => {
    def.gauge({
      name,
      help,
      labelNames: ["what"],
      async collect() {
        if (!source()) return;
        const infos = await streams();
        WHATS.forEach((w, i) => {
          const info = infos[i];
          this.set({ what: w }, info === undefined ? Number.NaN : read(info, w));
        });
      },
    });
  };
  fromStreams(
    "mesh_provisioner_projection_stream_last_sequence",
    "The bucket's stream's last sequence as last read (NaN while the bus does not answer)",
    (info) => info.state.last_seq,
  );
  fromStreams(
    "mesh_provisioner_projection_lag_messages",
    "Messages the bucket's stream holds beyond what the projection applied (NaN while the bus does not answer)",
    (info, w) => Math.max(0, info.state.last_seq - of(w).revision),
  );

  def.gauge({
    name: "mesh_provisioner_projection_start",
    help: "1 for how each projection last started: from its checkpoint, read whole (full), or from a checkpoint not yet proven (pending)",
    labelNames: ["what", "from"],
    collect() {
      const p = source();
      if (!p) return;
      const counts = p.checkpoints.snapshot();
      for (const w of WHATS) {
        const start = counts[w]?.start;
        // The registry has no checkpoint, and a node bucket without one reads its bucket whole.
        const from = start === "checkpoint" || start === "pending" ? start : "full";
        for (const s of STARTS) this.set({ what: w, from: s }, s === from ? 1 : 0);
      }
    },
  });

  def.tallyCounter(
    {
      name: "mesh_provisioner_watch_consumer_creations_total",
      help: "Consumer creations this instance's watches asked for, by bucket and outcome (retried: asked again for one that had timed out)",
      labelNames: ["bucket", "outcome"],
    },
    () => {
      const p = source();
      if (!p) return undefined;
      return Object.entries(p.consumers.snapshot()).flatMap(([bucket, c]) => CREATION_OUTCOMES.map((outcome) => [{ bucket, outcome }, c[outcome]] as const));
    },
  );
}
