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
import { setSha256Backend, StorageType, type Objm, type ObjectResult, type ObjectStore } from "@nats-io/obj";
import { CHECKPOINT_BUCKET } from "mesh-provisioner-client/keys";
import type { Logger } from "../log.js";
import { Failure } from "../failure.js";

/** A checkpoint's stored bytes, as they arrive. */
export interface StoredCheckpoint {
  /** The object's size in bytes. */
  readonly size: number;
  /**
   * Its chunks, each once; the iteration throws when they stop coming or,
   * at the end, when they do not match the object's digest. Read once.
   */
  readonly chunks: AsyncIterable<Uint8Array>;
}

export interface CheckpointObjects {
  /** The newest checkpoint of `name`, or undefined when there is none. Rejects when it cannot be read. */
  read(name: string): Promise<StoredCheckpoint | undefined>;
  /** Put `chunks` as the new checkpoint of `name`; `description` is shown by `nats object ls`. Returns the bytes written. */
  write(name: string, description: string, chunks: ReadableStream<Uint8Array>): Promise<number>;
  /** The newest checkpoint's description, or undefined. */
  describe(name: string): Promise<string | undefined>;
}

export interface ObjectsOptions {
  readonly replicas: number;
  readonly maxBytes: number;
  /** A read that receives nothing for this long is given up (READ_IDLE_MS by default). */
  readonly idleMs?: number;
  /** False: open the bucket only, never create it (an instance that never holds the seat). True when absent. */
  readonly create?: boolean;
}

/**
 * A checkpoint's chunks stop arriving when the object is replaced while it is
 * read (its old chunks are purged under the reader): a read that receives
 * nothing for this long is given up, and the start reads the bucket whole.
 */
export const READ_IDLE_MS = 5_000;

/** Every chunk of an object, checked against its digest by the client at the end; throws when the chunks stop coming. */
async function* chunksOf(got: ObjectResult, idleMs: number): AsyncGenerator<Uint8Array> {
  const reader = got.data.getReader();
  let size = 0;
  let whole = false;
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<"idle">((r) => (timer = setTimeout(() => r("idle"), idleMs)));
      const next = await Promise.race([reader.read(), idle]).finally(() => clearTimeout(timer));
      if (next === "idle")
        throw new Failure("BUCKET", `the checkpoint ${got.info.name} stopped arriving after ${size} of ${got.info.size} bytes (replaced while it was read?)`);
      if (next.done) break;
      size += next.value.length;
      yield next.value;
    }
    whole = true;
  } finally {
    // A reader that stops early (or chunks that stopped coming) leaves the rest unread.
    if (!whole) await reader.cancel().catch(() => undefined);
  }
  const err = await got.error;
  if (err) throw err;
}

/**
 * Open (or create) the checkpoints' bucket, through the process's object store manager (its JetStream, or domain:
 * src/streams/jetstream-access.ts); undefined, with a warning a person can act on, when it cannot be.
 */
export async function openCheckpointObjects(objm: Objm, opts: ObjectsOptions, log: Logger): Promise<CheckpointObjects | undefined> {
  // The object store digests every object it puts and gets; its default SHA-256 is written in JavaScript for
  // browsers, and a start reads its checkpoints whole: on Node, the runtime's own (the client's documented choice).
  setSha256Backend("native");
  let os: ObjectStore;
  try {
    os =
      opts.create === false
        ? await objm.open(CHECKPOINT_BUCKET)
        : await objm.create(CHECKPOINT_BUCKET, {
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
      const got = await os.get(name);
      if (got === null) return undefined;
      return { size: got.info.size, chunks: chunksOf(got, opts.idleMs ?? READ_IDLE_MS) };
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
