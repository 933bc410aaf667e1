/**
 * A start from a checkpoint (I/O: the object store, the stream's state).
 *
 * For each node bucket, the newest checkpoint is read as it arrives: its
 * chunks are unpacked as they come (gunzip, in libuv's thread pool) and
 * decoded as they are unpacked, so reading, unpacking and loading overlap
 * and no buffer the size of the checkpoint is ever made. Its header is
 * checked against the stream as it is now (`refuseCheckpoint`) before any
 * record is loaded; its records go into a store of their own, which seeds
 * the projection only once the last byte is in and every check has passed:
 * gzip's CRC-32 of each member, the object's digest, the trailer's counts.
 * The projection's watch then reads the bucket from the checkpoint's
 * revision + 1, and its first sync waits for the count (`prove.ts`).
 * Anything else means the bucket is read whole, as without a checkpoint:
 * logged in one line that says why and what to do, and counted.
 */
import { once } from "node:events";
import { createGunzip } from "node:zlib";
import type { StreamInfo } from "@nats-io/jetstream";
import type { Logger } from "../log.js";
import type { Projection, SeedOutcome } from "../projections/projection.js";
import type { BucketSpec } from "../projections/store/spec.js";
import { CheckpointError } from "../projections/store/checkpoint/format.js";
import type { OpenedCheckpoint } from "../projections/store/checkpoint/decode.js";
import type { CheckpointObjects, StoredCheckpoint } from "./objects.js";
import { asStreamIdentity, refuseCheckpoint, type FallbackReason, type Refusal } from "./stream-identity.js";
import type { CheckpointTally } from "./tally.js";

/** Reads a checkpoint's header for `spec`, ready to load the rest; rejects with an error whose `reason` is a fallback reason when it cannot be used. */
export type CheckpointOpener = (chunks: AsyncIterable<Uint8Array>, spec: BucketSpec) => Promise<OpenedCheckpoint>;

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

/**
 * zlib's output chunk: each is a round trip between libuv's thread pool and
 * the event loop, so a checkpoint of a hundred MiB or more is unpacked in
 * chunks of a MiB rather than zlib's default 16 KiB.
 */
const UNPACK_CHUNK_BYTES = 1 << 20;

/**
 * When a watch may start while its checkpoint loads: with at most this many
 * messages to deliver meanwhile (held in memory until the load ends), and a
 * load of at most this many entries. A longer load keeps the event loop so
 * busy that the watch, its delivery slowed, is taken for stalled and made
 * again and again; a stream further ahead, or a larger checkpoint, is read
 * once the load has ended.
 */
const EARLY_WATCH = { maxCatchUp: 50_000, maxEntries: 2_000_000 } as const;

/** The stored bytes failed (not their unpacking): the checkpoint is unreadable, not corrupt. */
class StoredError extends Error {
  override readonly name = "StoredError";
}

/** The load was stopped because the checkpoint was refused meanwhile (the refusal says why). */
class CancelledError extends Error {
  override readonly name = "CancelledError";
}

/**
 * A checkpoint's stored chunks unpacked as they arrive (gzip, a member per
 * slice as the writer stored them); a gzip error is a corrupt checkpoint,
 * an error of the stored chunks a StoredError. A consumer that stops early
 * stops the reading too, and so does `cancel` (the checkpoint was refused
 * while it loaded): the reader's next chunk then rejects with its reason.
 */
export async function* unpacked(stored: AsyncIterable<Uint8Array>, cancel: AbortSignal): AsyncGenerator<Uint8Array> {
  const gz = createGunzip({ chunkSize: UNPACK_CHUNK_BYTES });
  const stop = new AbortController();
  let storedErr: Error | undefined;
  const onCancel = (): void => {
    gz.destroy(new CancelledError(String(cancel.reason)));
  };
  cancel.addEventListener("abort", onCancel, { once: true });
  // Feeds the stored chunks in; gz ends only after the last one, and so after the object's digest has passed.
  void (async () => {
    try {
      for await (const chunk of stored) {
        if (stop.signal.aborted) return;
        if (!gz.write(chunk)) await once(gz, "drain", { signal: stop.signal });
      }
      gz.end();
    } catch (err) {
      if (stop.signal.aborted) return;
      storedErr = new StoredError((err as Error).message);
      gz.destroy(storedErr);
    }
  })();
  try {
    for await (const out of gz) yield out as Uint8Array;
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    if (storedErr !== undefined) throw storedErr;
    throw new CheckpointError("corrupt", `the checkpoint does not unpack: ${(err as Error).message}`);
  } finally {
    cancel.removeEventListener("abort", onCancel);
    stop.abort();
    gz.destroy();
  }
}

/** Why a checkpoint that failed to open or load is not used: its error's own reason (a CheckpointError's), else corrupt. */
function refusalOf(err: unknown): Refusal {
  if (err instanceof StoredError) return { reason: "unreadable", detail: err.message };
  const r = (err as { reason?: unknown })?.reason;
  return { reason: r === "format-version" || r === "foreign" ? r : "corrupt", detail: (err as Error).message };
}

/** Why the stream as it is now rules out the checkpoint, against what it recorded of the stream; undefined when it may be used (pure). */
function checkStream(opened: OpenedCheckpoint, si: StreamInfo): Refusal | undefined {
  const recorded = asStreamIdentity(opened.stream);
  if (recorded === undefined) return { reason: "corrupt", detail: "the checkpoint does not name the stream it was taken from" };
  return refuseCheckpoint(recorded, opened.revision, si);
}

/**
 * Seed `p` from the newest checkpoint named `name` when it may be used;
 * returns why not otherwise. Once its header (format, bucket) is in, the
 * projection begins its seed (`beginSeed`) and its records load while the
 * stream is compared with it; a refusal stops the load. `begun` is called
 * once the projection's watch may start: as soon as the stream is found
 * close enough to a checkpoint small enough (EARLY_WATCH), so that the
 * writes since arrive while the rest loads; else when this ends.
 * The bytes' own checks (gzip's CRC-32, the object's digest) pass on its
 * last byte, before the seed is taken. A seed begun and then refused is
 * dropped (`dropSeed`: the watch reads the bucket whole).
 */
export async function seedFromCheckpoint(p: Projection, name: string, deps: LoadDeps, begun: () => void = () => undefined): Promise<Refusal | undefined> {
  const t0 = deps.now();
  /** How long each step took (ms) from the start, for the log line: the header in, the stream compared, the rest read and loaded. */
  const steps = { open: 0, check: 0, load: 0 };
  const since = (): number => deps.now() - t0;
  let refusal: Refusal | undefined;
  let opened: OpenedCheckpoint | undefined;
  let stored: StoredCheckpoint | undefined;
  try {
    stored = await deps.objects.read(name);
  } catch (err) {
    refusal = { reason: "unreadable", detail: (err as Error).message };
  }
  if (refusal === undefined && stored === undefined) refusal = { reason: "missing", detail: "there is no checkpoint" };
  const cancel = new AbortController();
  const bytes = stored === undefined ? undefined : unpacked(stored.chunks, cancel.signal);
  if (bytes !== undefined) {
    // The stream as it is now the checkpoint's object is found, asked while its header arrives.
    const streamNow = deps.streamInfo(name);
    streamNow.catch(() => undefined);
    try {
      const o = await deps.open(bytes, p.store.spec);
      opened = o;
      steps.open = since();
      p.beginSeed(o.revision);
      const checked = streamNow.then(
        (si): Refusal | undefined => {
          steps.check = since();
          const r = checkStream(o, si);
          if (r !== undefined) cancel.abort(r.reason);
          // A short catch-up is read while a short load runs; else after it (EARLY_WATCH).
          else if (si.state.last_seq - o.revision <= EARLY_WATCH.maxCatchUp && o.entries <= EARLY_WATCH.maxEntries) begun();
          return r;
        },
        (err: unknown): Refusal => {
          steps.check = since();
          cancel.abort("unreadable");
          return { reason: "unreadable", detail: `the stream's state could not be read to compare it: ${(err as Error).message}` };
        },
      );
      const load = p.seedFrom((store) => o.loadInto(store));
      let outcome: SeedOutcome | undefined;
      try {
        outcome = await load;
        steps.load = since();
      } catch (err) {
        refusal = (await checked) ?? refusalOf(err);
      }
      refusal ??= await checked;
      // Stopping, or dropped by whoever said why: nothing more to do or say.
      if (outcome === "stopped" || outcome === "dropped")
        return refusal ?? { reason: "unreadable", detail: `the seed was ${outcome} while the checkpoint loaded` };
      if (outcome === "rebuilding") refusal ??= { reason: "history-gone", detail: "the writes since the checkpoint left the stream while it loaded" };
    } catch (err) {
      refusal = refusalOf(err);
    } finally {
      // A checkpoint refused before its end is not read further.
      await bytes.return(undefined);
    }
  }
  if (refusal !== undefined || opened === undefined) {
    const why = refusal ?? { reason: "corrupt" as const, detail: "nothing decoded" };
    p.dropSeed(`the checkpoint was not used (${why.reason})`);
    fellBack(name, why, deps);
    return why;
  }
  deps.tally.loading(name, opened.revision);
  deps.log.info(
    {
      checkpoint: name,
      revision: opened.revision,
      entries: p.store.size,
      bytes: stored?.size,
      writtenAt: new Date(opened.writtenAt).toISOString(),
      ms: deps.now() - t0,
      steps,
    },
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
