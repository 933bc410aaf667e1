/**
 * Where checkpoints live (I/O): one object per node bucket in the JetStream
 * object store bucket `mesh-provisioner_checkpoints`, named after the
 * projection (`needs`, `applied`, `collect`). Putting an object under a name
 * replaces the one before only once the new one is whole, so a reader always
 * gets one complete checkpoint, the newest.
 *
 * The bucket has a size limit and the node buckets' replicas. It is an
 * optimisation: when it cannot be made or reached, the service runs without
 * checkpoints (every start reads the buckets whole) and says so.
 */
import { Objm, StorageType, type ObjectStore } from "@nats-io/obj";
import type { JetStreamClient } from "@nats-io/jetstream";
import { CHECKPOINT_BUCKET } from "../keys/mod.js";
import type { Logger } from "../log.js";

export interface CheckpointObjects {
  /** The newest checkpoint of `name`, whole, or undefined when there is none. Rejects when it cannot be read. */
  read(name: string): Promise<Uint8Array | undefined>;
  /** Put `chunks` as the new checkpoint of `name`; `description` is shown by `nats object ls`. Returns the bytes written. */
  write(name: string, description: string, chunks: ReadableStream<Uint8Array>): Promise<number>;
  /** The newest checkpoint's description, or undefined. */
  describe(name: string): Promise<string | undefined>;
}

export interface ObjectsOptions {
  readonly replicas: number;
  readonly maxBytes: number;
}

/** Open (or create) the checkpoints' bucket; undefined, with a warning a person can act on, when it cannot be. */
export async function openCheckpointObjects(js: JetStreamClient, opts: ObjectsOptions, log: Logger): Promise<CheckpointObjects | undefined> {
  let os: ObjectStore;
  try {
    os = await new Objm(js).create(CHECKPOINT_BUCKET, {
      description: "mesh-provisioner: checkpoints of its projections, written by the seat's holder",
      storage: StorageType.File,
      replicas: opts.replicas,
      max_bytes: opts.maxBytes,
    });
  } catch (err) {
    log.warn(
      { bucket: CHECKPOINT_BUCKET, err: (err as Error).message, maxBytes: opts.maxBytes },
      "cannot create or open the checkpoints' bucket: every start reads the node buckets whole; give JetStream room for --checkpoint-max-bytes, or check the grant",
    );
    return undefined;
  }
  return {
    async read(name) {
      const got = await os.getBlob(name);
      return got ?? undefined;
    },
    async write(name, description, chunks) {
      const info = await os.put({ name, description }, chunks);
      return info.size;
    },
    async describe(name) {
      const info = await os.info(name);
      return info === null || info.deleted ? undefined : info.description;
    },
  };
}
