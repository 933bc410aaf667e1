/**
 * The seat's holder writes checkpoints (I/O at the edges: the object store,
 * the stream's identity; the schedule is `isDue`).
 *
 * Every `everyMs` it looks at each node bucket's projection and writes a new
 * checkpoint of it when it is due: never by a standby, never of a
 * projection that is not synced, never when nothing changed since the last
 * one, and, when little changed, only every `QUIET_PERIODS` periods. A
 * graceful stop of the holder writes the checkpoints that are behind before
 * the seat is handed over.
 *
 * A checkpoint is encoded a slice of entries at a time, each slice in one
 * turn of the event loop, as the object store asks for bytes: the verb and
 * the feed go on between slices. It is stored gzipped, a gzip member per
 * slice. The holder checks it still holds the seat before each slice; a
 * write it loses the seat during is abandoned (the previous checkpoint stays
 * whole).
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import type { StreamInfo } from "@nats-io/jetstream";
import type { Logger } from "../log.js";
import type { Projection } from "../projections/projection.js";
import type { StoreView } from "../projections/store/view.js";
import type { CheckpointObjects } from "./objects.js";
import { streamIdentity } from "./stream-identity.js";
import type { CheckpointMeta, Encoder } from "../projections/store/checkpoint/format.js";
import type { CheckpointTally } from "./tally.js";

/** Entries encoded in one turn of the event loop. */
export const SLICE_ENTRIES = 2048;
/** A projection that changed by less than 1/QUIET_SHARE of its entries is written only every QUIET_PERIODS periods. */
export const QUIET_SHARE = 100;
export const QUIET_PERIODS = 4;
/** gzip's fastest level: most of what a slower one saves, for a third of its time. */
export const GZIP_LEVEL = 1;

export type EncoderFactory = (store: StoreView, meta: CheckpointMeta) => Encoder;

export interface WriterDeps {
  readonly objects: CheckpointObjects;
  /** The projections checkpointed, by name (the object's name). */
  readonly projections: Readonly<Record<string, Projection>>;
  readonly isHolder: () => boolean;
  readonly streamInfo: (name: string) => Promise<StreamInfo>;
  readonly encode: EncoderFactory;
  readonly now: () => number;
  readonly log: Logger;
  readonly tally: CheckpointTally;
  readonly everyMs: number;
}

interface Written {
  readonly revision: number;
  readonly at: number;
}

/** Whether a projection at `revision` with `size` entries is due a checkpoint, after `last` (none yet: undefined). */
export function isDue(revision: number, size: number, last: Written | undefined, now: number, everyMs: number): boolean {
  if (last === undefined) return revision > 0;
  if (revision <= last.revision) return false;
  const changed = revision - last.revision;
  return changed * QUIET_SHARE >= size || now - last.at >= QUIET_PERIODS * everyMs;
}

/** What a checkpoint's object description records: shown by `nats object ls`, read back by a new holder. */
export function describeCheckpoint(revision: number, writtenAt: number): string {
  return JSON.stringify({ revision, writtenAt: new Date(writtenAt).toISOString() });
}

function parseDescription(text: string | undefined): Written | undefined {
  try {
    const o = JSON.parse(text ?? "") as { revision?: unknown; writtenAt?: unknown };
    const at = Date.parse(String(o.writtenAt));
    return typeof o.revision === "number" && Number.isFinite(at) ? { revision: o.revision, at } : undefined;
  } catch {
    return undefined;
  }
}

export class CheckpointWriter {
  private readonly last = new Map<string, Written>();
  private readonly known = new Set<string>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: WriterDeps) {}

  start(): void {
    if (this.deps.everyMs <= 0) return;
    this.timer = setInterval(() => void this.round(false), this.deps.everyMs);
    this.timer.unref();
  }

  /** Stop the schedule; when `final`, first write every checkpoint that is behind (the holder's graceful stop). */
  async stop(final: boolean): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    // `--checkpoint-every 0` means never, at a graceful stop too.
    if (final && !this.stopped && this.deps.everyMs > 0) await this.round(true);
    this.stopped = true;
  }

  /** One look at every projection (one round at a time); `all` writes every one that changed at all. */
  round(all: boolean): Promise<void> {
    if (this.running !== undefined || this.stopped) return this.running ?? Promise.resolve();
    this.running = (async () => {
      for (const name of Object.keys(this.deps.projections)) {
        if (!this.deps.isHolder()) return;
        await this.maybeWrite(name, all).catch((err: unknown) => {
          this.deps.tally.writeFailed(name);
          this.deps.log.warn(
            { checkpoint: name, err: (err as Error).message },
            "could not write a checkpoint; the next start reads more of the bucket, and the next round tries again",
          );
        });
      }
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async maybeWrite(name: string, all: boolean): Promise<void> {
    const { deps } = this;
    const p = deps.projections[name] as Projection;
    if (!p.isSynced) return;
    if (!this.known.has(name)) {
      // A new holder goes on from the checkpoint its predecessor wrote.
      const previous = parseDescription(await deps.objects.describe(name));
      if (previous !== undefined) this.last.set(name, previous);
      this.known.add(name);
    }
    const now = deps.now();
    const last = this.last.get(name);
    const due = all ? p.revision > (last?.revision ?? 0) : isDue(p.revision, p.store.size, last, now, deps.everyMs);
    if (!due) return;
    const identity = streamIdentity(await deps.streamInfo(name));
    const t0 = deps.now();
    const encoder = deps.encode(p.store, { stream: { ...identity }, writtenAt: now });
    // Slices are encoded as the object store asks for bytes, one turn of the event loop each. Each is gzipped at
    // once, as a gzip member of its own (a gzip file is a series of members, RFC 1952), while it is still the
    // encoder's buffer: no buffer the size of a slice is made per slice, only its gzipped bytes, a fraction of it.
    async function* gzippedSlices(): AsyncGenerator<Uint8Array> {
      for (;;) {
        await nextTurn();
        if (!deps.isHolder()) throw new ProvisionerError("INTERNAL", "the seat was lost during the write: the checkpoint is abandoned");
        const slice = encoder.next(SLICE_ENTRIES);
        if (slice === null) return;
        yield gzipSync(slice, { level: GZIP_LEVEL });
      }
    }
    // A slice that throws (the seat lost) errors the stream, and with it the object's write.
    const chunks = Readable.toWeb(Readable.from(gzippedSlices())) as ReadableStream<Uint8Array>;
    const bytes = await deps.objects.write(name, describeCheckpoint(encoder.revision, now), chunks);
    const ms = deps.now() - t0;
    this.last.set(name, { revision: encoder.revision, at: now });
    deps.tally.wrote(name, encoder.revision, bytes, ms, new Date(now));
    deps.log.info({ checkpoint: name, revision: encoder.revision, bytes, ms }, "wrote a checkpoint of the projection");
  }
}
