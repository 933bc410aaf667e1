/**
 * The checkpoints' metrics, by node bucket (`needs`, `applied`, `collect`):
 * what this instance wrote (only the seat's holder writes), why its start
 * fell back to reading a bucket whole, and the newest checkpoint in the
 * checkpoints' bucket (its age and size, read from the bus, bounded), which
 * every instance sees alike.
 */
import type { Objm, ObjectInfo, ObjectStore } from "@nats-io/obj";
import { CHECKPOINT_BUCKET } from "mesh-provisioner-client/keys";
import { FALLBACK_REASONS } from "../checkpoints/stream-identity.js";
import type { MetricsDef } from "./define.js";
import type { SourceOf } from "./source.js";
import { bounded, shared } from "./bus-read.js";

export const CHECKPOINTED = ["needs", "applied", "collect"] as const;

export function checkpointMetrics(def: MetricsDef, source: SourceOf, objmOf: () => Objm | undefined): void {
  const counts = () => source()?.checkpoints.snapshot();
  def.tallyCounter(
    {
      name: "mesh_provisioner_checkpoint_writes_total",
      help: "Checkpoints this instance wrote while holding the seat, by bucket and result (ok, error)",
      labelNames: ["bucket", "result"],
    },
    () => {
      const c = counts();
      return (
        c &&
        CHECKPOINTED.flatMap((bucket) => [
          [{ bucket, result: "ok" }, c[bucket]?.written ?? 0] as const,
          [{ bucket, result: "error" }, c[bucket]?.failed ?? 0] as const,
        ])
      );
    },
  );
  def.tallyCounter(
    {
      name: "mesh_provisioner_checkpoint_written_bytes_total",
      help: "Bytes of the checkpoints this instance wrote while holding the seat, by bucket (before replication)",
      labelNames: ["bucket"],
    },
    () => {
      const c = counts();
      return c && CHECKPOINTED.map((bucket) => [{ bucket }, c[bucket]?.bytesWritten ?? 0] as const);
    },
  );
  def.tallyCounter(
    {
      name: "mesh_provisioner_checkpoint_fallbacks_total",
      help: "Starts of a node bucket's projection that read the bucket whole instead of its checkpoint, by bucket and reason",
      labelNames: ["bucket", "reason"],
    },
    () => {
      const c = counts();
      return c && CHECKPOINTED.flatMap((bucket) => FALLBACK_REASONS.map((reason) => [{ bucket, reason }, c[bucket]?.fallbacks[reason] ?? 0] as const));
    },
  );
  def.gauge({
    name: "mesh_provisioner_checkpoint_last_written_timestamp_seconds",
    help: "Unix time at which this instance last wrote a checkpoint of the bucket (0: never; only the seat's holder writes)",
    labelNames: ["bucket"],
    collect() {
      const c = counts();
      if (!c) return;
      for (const bucket of CHECKPOINTED) {
        const at = c[bucket]?.lastWrittenAt;
        this.set({ bucket }, at === undefined ? 0 : Date.parse(at) / 1000);
      }
    },
  });

  // The checkpoints' bucket is opened at the first scrape that needs it, and again after a failure.
  let store: Promise<ObjectStore | undefined> | undefined;
  const objects = (objm: Objm): Promise<ObjectStore | undefined> =>
    (store ??= bounded(() => objm.open(CHECKPOINT_BUCKET)).then((os) => {
      if (os === undefined) store = undefined;
      return os;
    }));
  const newest = shared(async (): Promise<(ObjectInfo | null | undefined)[]> => {
    const p = source();
    const objm = objmOf();
    if (!p || !objm || !p.connected()) return CHECKPOINTED.map(() => undefined);
    const os = await objects(objm);
    if (os === undefined) return CHECKPOINTED.map(() => undefined);
    return Promise.all(CHECKPOINTED.map((name) => bounded(() => os.info(name))));
  });
  const fromBucket = (name: string, help: string, read: (info: ObjectInfo) => number): void => {
    def.gauge({
      name,
      help,
      labelNames: ["bucket"],
      async collect() {
        if (!source()) return;
        const infos = await newest();
        CHECKPOINTED.forEach((bucket, i) => {
          const info = infos[i];
          this.set({ bucket }, info === undefined || info === null || info.deleted ? Number.NaN : read(info));
        });
      },
    });
  };
  fromBucket(
    "mesh_provisioner_checkpoint_age_seconds",
    "Seconds since the newest checkpoint of the bucket was written, as the checkpoints' bucket says (NaN: none, or the bus does not answer)",
    (info) => Math.max(0, (Date.now() - Date.parse(info.mtime)) / 1000),
  );
  fromBucket(
    "mesh_provisioner_checkpoint_size_bytes",
    "Size of the newest checkpoint of the bucket in the checkpoints' bucket (NaN: none, or the bus does not answer)",
    (info) => info.size,
  );
}
