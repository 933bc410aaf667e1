/**
 * A start from a checkpoint (I/O: the object store, the stream's state).
 *
 * For each node bucket, the newest checkpoint is read, decoded and checked
 * against the stream as it is now (`refuseCheckpoint`); one that passes
 * seeds the projection, whose watch then reads the bucket from the
 * checkpoint's revision + 1, and whose first sync waits for the count
 * (`prove.ts`). Anything else means the bucket is read whole, as without a
 * checkpoint: logged in one line that says why and what to do, and counted.
 */
import { promisify } from "node:util";
import { gunzip as zlibGunzip } from "node:zlib";
import type { StreamInfo } from "@nats-io/jetstream";
import type { Logger } from "../log.js";
import type { Projection } from "../projections/projection.js";
import type { BucketSpec } from "../projections/store/spec.js";
import { CheckpointError } from "../projections/store/checkpoint/format.js";
import type { OpenedCheckpoint } from "../projections/store/checkpoint/decode.js";
import type { CheckpointObjects } from "./objects.js";
import { asStreamIdentity, refuseCheckpoint, type FallbackReason, type Refusal } from "./stream-identity.js";
import type { CheckpointTally } from "./tally.js";

/** Checks a checkpoint's bytes for `spec`, ready to load; throws an error whose `reason` is a fallback reason when they cannot be used. */
export type CheckpointOpener = (bytes: Uint8Array, spec: BucketSpec) => OpenedCheckpoint;

export interface LoadDeps {
  readonly objects: CheckpointObjects;
  readonly open: CheckpointOpener;
  readonly streamInfo: (name: string) => Promise<StreamInfo>;
  readonly tally: CheckpointTally;
  readonly log: Logger;
  readonly now: () => number;
}

/** What to do about each reason: the second half of the log line. */
const ADVICE: Record<FallbackReason, string> = {
  missing: "none was written yet (the seat's holder writes one every --checkpoint-every)",
  unreadable: "check the checkpoints' bucket and the grant (the provisioner's reaches it)",
  corrupt: "it is replaced by the holder's next checkpoint",
  "format-version": "it was written by another version of the service; the holder's next checkpoint replaces it",
  foreign: "it is not of this bucket; the holder's next checkpoint replaces it",
  recreated: "the holder's next checkpoint is of the new stream",
  settings: "the holder's next checkpoint records the new settings",
  ahead: "the stream lost writes the checkpoint holds (restored from a backup?); the holder's next checkpoint replaces it",
  "history-gone": "the writes since the checkpoint are no longer in the stream",
  "history-kept": "checkpoints are used only for buckets that keep one message per key",
  count: "a key deleted since the checkpoint had its delete removed from the stream (a purge); reading the bucket whole is what is right",
};

const gunzip = promisify(zlibGunzip);

/**
 * zlib's output chunk: each is a round trip between libuv's thread pool and
 * the event loop, so a checkpoint of a hundred MiB or more is unpacked in
 * chunks of a MiB rather than zlib's default 16 KiB.
 */
const UNPACK_CHUNK_BYTES = 1 << 20;

/** A checkpoint as the writer gzipped it, unpacked in libuv's thread pool; a gzip error is a corrupt checkpoint. */
async function gunzipped(stored: Uint8Array): Promise<Uint8Array> {
  try {
    return await gunzip(stored, { chunkSize: UNPACK_CHUNK_BYTES });
  } catch (err) {
    throw new CheckpointError("corrupt", `the checkpoint does not unpack: ${(err as Error).message}`);
  }
}

function reasonOf(err: unknown): FallbackReason {
  const r = (err as { reason?: unknown })?.reason;
  return r === "format-version" || r === "foreign" ? r : "corrupt";
}

/**
 * Seed `p` from the newest checkpoint named `name` when it may be used;
 * returns why not otherwise. Its bytes are checked (digest, format, bucket)
 * and the stream's identity compared before any record is loaded.
 */
export async function seedFromCheckpoint(p: Projection, name: string, deps: LoadDeps): Promise<Refusal | undefined> {
  const t0 = deps.now();
  /** How long each step took (ms), for the log line. */
  const steps = { read: 0, unpack: 0, check: 0, load: 0 };
  let at = t0;
  const step = (which: keyof typeof steps): void => {
    const t = deps.now();
    steps[which] = t - at;
    at = t;
  };
  let refusal: Refusal | undefined;
  let opened: OpenedCheckpoint | undefined;
  let streamNow: Promise<StreamInfo> | undefined;
  try {
    const stored = await deps.objects.read(name);
    step("read");
    if (stored === undefined) refusal = { reason: "missing", detail: "there is no checkpoint" };
    else {
      // The stream as it is once the checkpoint is read, asked while it unpacks (the unpacking is off the event loop).
      streamNow = deps.streamInfo(name);
      streamNow.catch(() => undefined);
      const bytes = await gunzipped(stored);
      step("unpack");
      opened = deps.open(bytes, p.store.spec);
    }
  } catch (err) {
    refusal = err instanceof CheckpointError ? { reason: reasonOf(err), detail: err.message } : { reason: "unreadable", detail: (err as Error).message };
  }
  if (opened !== undefined) {
    const recorded = asStreamIdentity(opened.stream);
    refusal =
      recorded === undefined
        ? { reason: "corrupt", detail: "the checkpoint does not name the stream it was taken from" }
        : refuseCheckpoint(recorded, opened.revision, await (streamNow ?? deps.streamInfo(name)));
    step("check");
  }
  if (refusal === undefined && opened !== undefined) {
    try {
      p.seedFrom((store) => (opened as OpenedCheckpoint).loadInto(store));
      step("load");
    } catch (err) {
      refusal = { reason: reasonOf(err), detail: (err as Error).message };
    }
  }
  if (refusal !== undefined || opened === undefined) {
    const why = refusal ?? { reason: "corrupt" as const, detail: "nothing decoded" };
    fellBack(name, why, deps);
    return why;
  }
  deps.tally.loading(name, opened.revision);
  deps.log.info(
    { checkpoint: name, revision: opened.revision, entries: p.store.size, writtenAt: new Date(opened.writtenAt).toISOString(), ms: deps.now() - t0, steps },
    "loaded a checkpoint: the bucket is read from its revision on, and answered once a count proves it",
  );
  return undefined;
}

/** A start reads the bucket whole: say why in one line, and count it. */
export function fellBack(name: string, refusal: Refusal, deps: Pick<LoadDeps, "tally" | "log">): void {
  deps.tally.fellBack(name, refusal.reason);
  const line = { checkpoint: name, reason: refusal.reason, detail: refusal.detail };
  const message = `not starting from the checkpoint (${refusal.reason}): reading the bucket whole; ${ADVICE[refusal.reason]}`;
  if (refusal.reason === "missing") deps.log.info(line, message);
  else deps.log.warn(line, message);
}
