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
import { CheckpointError, type Seed } from "../projections/store/checkpoint-codec.js";
import type { CheckpointObjects } from "./objects.js";
import { asStreamIdentity, refuseCheckpoint, type FallbackReason, type Refusal } from "./stream-identity.js";
import type { CheckpointTally } from "./tally.js";

/** Decodes a checkpoint's bytes for `spec`; throws an error whose `reason` is a fallback reason when it cannot. */
export type CheckpointDecoder = (bytes: Uint8Array, spec: BucketSpec) => Seed;

export interface LoadDeps {
  readonly objects: CheckpointObjects;
  readonly decode: CheckpointDecoder;
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

/** A checkpoint as the writer gzipped it, unpacked in libuv's thread pool; a gzip error is a corrupt checkpoint. */
async function gunzipped(stored: Uint8Array): Promise<Uint8Array> {
  try {
    return await gunzip(stored);
  } catch (err) {
    throw new CheckpointError("corrupt", `the checkpoint does not unpack: ${(err as Error).message}`);
  }
}

function reasonOf(err: unknown): FallbackReason {
  const r = (err as { reason?: unknown })?.reason;
  return r === "format-version" || r === "foreign" ? r : "corrupt";
}

/** Seed `p` from the newest checkpoint named `name` when it may be used; returns why not otherwise. */
export async function seedFromCheckpoint(p: Projection, name: string, deps: LoadDeps): Promise<Refusal | undefined> {
  const t0 = deps.now();
  let refusal: Refusal | undefined;
  let decoded: Seed | undefined;
  try {
    const stored = await deps.objects.read(name);
    if (stored === undefined) refusal = { reason: "missing", detail: "there is no checkpoint" };
    else {
      try {
        decoded = deps.decode(await gunzipped(stored), p.store.spec);
      } catch (err) {
        refusal = { reason: reasonOf(err), detail: (err as Error).message };
      }
    }
  } catch (err) {
    refusal = { reason: "unreadable", detail: (err as Error).message };
  }
  if (decoded !== undefined) {
    const recorded = asStreamIdentity(decoded.stream);
    refusal =
      recorded === undefined
        ? { reason: "corrupt", detail: "the checkpoint does not name the stream it was taken from" }
        : refuseCheckpoint(recorded, decoded.revision, await deps.streamInfo(name));
  }
  if (refusal !== undefined || decoded === undefined) {
    const why = refusal ?? { reason: "corrupt" as const, detail: "nothing decoded" };
    fellBack(name, why, deps);
    return why;
  }
  deps.tally.loading(name, decoded.revision);
  p.seedWith(decoded.store);
  deps.log.info(
    { checkpoint: name, revision: decoded.revision, entries: decoded.store.size, writtenAt: new Date(decoded.writtenAt).toISOString(), ms: deps.now() - t0 },
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
