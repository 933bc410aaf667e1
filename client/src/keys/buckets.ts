/**
 * The buckets' names (pure), as the contract fixes them, and the stream a
 * KV bucket is stored in. Every reader of a bucket's stream (the watch's
 * consumer, a lag, a grant, a bucket's settings) names it through
 * `streamName`, so the one convention lives here.
 */
import type { What } from "../protocol/what.js";

export const BUCKETS: Readonly<Record<What, string>> = Object.freeze({
  registry: "mesh-provisioner_registry",
  needs: "mesh-provisioner_needs",
  applied: "mesh-provisioner_applied",
  collect: "mesh-provisioner_collect",
});

export const SEAT_BUCKET = "mesh-provisioner_seat";

/** The object store bucket where the seat's holder keeps a checkpoint of each node bucket's projection. */
export const CHECKPOINT_BUCKET = "mesh-provisioner_checkpoints";

/** The JetStream stream an object store bucket lives in. */
export function objectStreamName(bucket: string): string {
  return `OBJ_${bucket}`;
}

/** The JetStream stream a KV bucket lives in. */
export function streamName(bucket: string): string {
  return `KV_${bucket}`;
}
