/**
 * A checkpoint's bytes (pure): one projection's store written out and read
 * back.
 *
 *   "MPCK" | format version u32 | header length u32 | header (JSON)
 *   records: 1 entry   | key length u16 | key | revision f64 | value length u32 | value
 *            2 out of shape | key length u16 | key | revision f64
 *            3 delete marker | key length u16 | key
 *   trailer: 0xff | entries u32 | out of shape u32 | markers u32 | SHA-256 of all before the digest
 *
 * Numbers are little-endian. An entry's value is the fragment its JSON holds
 * (the stored JSON, or the JSON string of a value that is not JSON), which
 * applied again makes the same JSON.
 *
 * Encoding goes a slice of entries at a time, each slice read from the store
 * as it is at that moment, continuing after the last key written: the store
 * may change between slices. Each entry is written with the revision it has
 * then, and the checkpoint's revision R is the store's when encoding began.
 * A replay of the bucket from R + 1 over it converges to the bucket: the
 * bucket keeps one message per key, so every write after R that still
 * matters is in that replay, and a key's last write wins whatever the
 * checkpoint held of it.
 */
import { createHash, type Hash } from "node:crypto";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { ProjectionStore } from "./store.js";
import type { BucketSpec } from "./spec.js";
import type { StoreView } from "./view.js";

/** What the writer of a checkpoint says of the stream it was taken from: carried as it is, compared by the reader. */
export type StreamMark = Readonly<Record<string, unknown>>;

/** What a checkpoint's header records besides its content. */
export interface CheckpointMeta {
  readonly stream: StreamMark;
  /** When the write began (ms since the epoch). */
  readonly writtenAt: number;
}

/** A decoded checkpoint: its revision, the stream it names, and a store holding it, at its revision, not synced. */
export interface Seed extends CheckpointMeta {
  readonly revision: number;
  readonly store: ProjectionStore;
}

/** Encodes one store, a slice at a time. */
export interface Encoder {
  /** The store's revision when encoding began: the checkpoint's revision. */
  readonly revision: number;
  /**
   * The next slice of at most `maxEntries` entries (then the rest), or null
   * once all is out. The slice is a view of the encoder's own buffer, valid
   * until the next call, which writes over it: a caller keeping it copies it.
   */
  next(maxEntries: number): Uint8Array | null;
}

export const CHECKPOINT_FORMAT_VERSION = 1;
const MAGIC = Buffer.from("MPCK", "latin1");
const PREAMBLE = MAGIC.length + 8;
const ENTRY = 1;
const OUT_OF_SHAPE = 2;
const MARKER = 3;
const TRAILER = 0xff;
const DIGEST = 32;
const TRAILER_BYTES = 1 + 12 + DIGEST;
const VALUE_OPEN = Buffer.from(',"value":', "latin1");
const REVISION_OPEN = Buffer.from(',"revision":', "latin1");

export type CheckpointErrorReason = "corrupt" | "format-version" | "foreign";

/** A checkpoint's bytes that cannot be used, and why. */
export class CheckpointError extends Error {
  override readonly name = "CheckpointError";
  constructor(
    readonly reason: CheckpointErrorReason,
    message: string,
  ) {
    super(message);
  }
}

interface Header {
  what: string;
  bucket: string;
  revision: number;
  stream: StreamMark;
  writtenAt: number;
}

/** Appends records to a growing buffer. */
class Out {
  buf = Buffer.allocUnsafe(1 << 16);
  at = 0;

  room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  key(type: number, key: string): void {
    this.room(3 + key.length);
    this.buf[this.at++] = type;
    this.buf.writeUInt16LE(key.length, this.at);
    this.at += 2;
    this.at += this.buf.write(key, this.at, "latin1");
  }

  f64(n: number): void {
    this.room(8);
    this.at = this.buf.writeDoubleLE(n, this.at);
  }

  bytes(src: Buffer, start: number, end: number): void {
    this.room(4 + end - start);
    this.at = this.buf.writeUInt32LE(end - start, this.at);
    this.at += src.copy(this.buf, this.at, start, end);
  }

  /** What was appended since the last call, as a view of the buffer: the next append writes over it. */
  take(): Buffer {
    const out = this.buf.subarray(0, this.at);
    this.at = 0;
    return out;
  }
}

export class CheckpointEncoder implements Encoder {
  readonly revision: number;
  private readonly hash: Hash = createHash("sha256");
  private readonly out = new Out();
  private step: "preamble" | "entries" | "rest" | "done" = "preamble";
  private after: string | undefined;
  private readonly counts = { entries: 0, outOfShape: 0, markers: 0 };
  private readonly slots = new Int32Array(1024);
  private readonly range = { buf: Buffer.alloc(0), start: 0, end: 0 };

  constructor(
    private readonly store: StoreView,
    meta: CheckpointMeta,
  ) {
    this.revision = store.revision;
    const header: Header = { what: store.spec.what, bucket: store.spec.bucket, revision: this.revision, stream: meta.stream, writtenAt: meta.writtenAt };
    const json = Buffer.from(JSON.stringify(header), "utf8");
    const o = this.out;
    o.room(PREAMBLE + json.length);
    o.at += MAGIC.copy(o.buf, o.at);
    o.at = o.buf.writeUInt32LE(CHECKPOINT_FORMAT_VERSION, o.at);
    o.at = o.buf.writeUInt32LE(json.length, o.at);
    o.at += json.copy(o.buf, o.at);
  }

  next(maxEntries: number): Uint8Array | null {
    if (this.step === "done") return null;
    if (this.step === "preamble") this.step = "entries";
    else if (this.step === "entries") this.entries(maxEntries);
    else this.rest();
    return this.emit();
  }

  private entries(max: number): void {
    const { store, out, slots, range } = this;
    const scan = store.scan({}, this.after);
    let left = max;
    while (left > 0) {
      const n = scan.fill(left < slots.length ? slots.subarray(0, left) : slots);
      if (n === 0) {
        this.step = "rest";
        return;
      }
      for (let i = 0; i < n; i++) {
        const slot = slots[i] as number;
        const key = store.keyOf(slot);
        store.jsonRange(slot, range);
        const from = range.buf.indexOf(VALUE_OPEN, range.start) + VALUE_OPEN.length;
        const to = range.buf.lastIndexOf(REVISION_OPEN, range.end);
        out.key(ENTRY, key);
        out.f64(store.revisionOf(slot));
        out.bytes(range.buf, from, to);
        this.after = key;
      }
      this.counts.entries += n;
      left -= n;
    }
  }

  private rest(): void {
    const { out, counts } = this;
    for (const o of this.store.allOutOfShape()) {
      out.key(OUT_OF_SHAPE, o.key);
      out.f64(o.revision);
      counts.outOfShape++;
    }
    for (const key of this.store.markerKeys()) {
      out.key(MARKER, key);
      counts.markers++;
    }
    out.room(1 + 12);
    out.buf[out.at++] = TRAILER;
    out.at = out.buf.writeUInt32LE(counts.entries, out.at);
    out.at = out.buf.writeUInt32LE(counts.outOfShape, out.at);
    out.at = out.buf.writeUInt32LE(counts.markers, out.at);
    this.step = "done";
  }

  private emit(): Uint8Array {
    const chunk = this.out.take();
    this.hash.update(chunk);
    if (this.step !== "done") return chunk;
    return Buffer.concat([chunk, this.hash.digest()]);
  }
}

export function encodeStore(store: StoreView, meta: CheckpointMeta): CheckpointEncoder {
  return new CheckpointEncoder(store, meta);
}

function corrupt(message: string): CheckpointError {
  return new CheckpointError("corrupt", `the checkpoint is not whole or not a checkpoint: ${message}`);
}

/** A checkpoint whose digest, format and bucket have been checked: what it says, and its records to load. */
export interface OpenedCheckpoint extends CheckpointMeta {
  readonly revision: number;
  /** Load its records into `store` (new, empty, of the same spec) and set the store's revision; throws CheckpointError. */
  loadInto(store: ProjectionStore): void;
}

/** Check a checkpoint's bytes for `spec` (magic, format version, digest, header, bucket) without loading them; throws CheckpointError. */
export function openCheckpoint(bytes: Uint8Array, spec: BucketSpec): OpenedCheckpoint {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < PREAMBLE + TRAILER_BYTES || !b.subarray(0, MAGIC.length).equals(MAGIC)) throw corrupt("it does not start as one");
  const version = b.readUInt32LE(MAGIC.length);
  if (version !== CHECKPOINT_FORMAT_VERSION) {
    throw new CheckpointError("format-version", `the checkpoint's format is version ${version}; this service reads version ${CHECKPOINT_FORMAT_VERSION}`);
  }
  const digestAt = b.length - DIGEST;
  if (!createHash("sha256").update(b.subarray(0, digestAt)).digest().equals(b.subarray(digestAt))) throw corrupt("its digest does not match its content");
  const headerLen = b.readUInt32LE(MAGIC.length + 4);
  const bodyAt = PREAMBLE + headerLen;
  const trailerAt = digestAt - 13;
  if (bodyAt > trailerAt || b[trailerAt] !== TRAILER) throw corrupt("its parts do not add up");
  let header: Header;
  try {
    header = JSON.parse(b.toString("utf8", PREAMBLE, bodyAt)) as Header;
  } catch {
    throw corrupt("its header is not JSON");
  }
  if (header.what !== spec.what || header.bucket !== spec.bucket) {
    throw new CheckpointError("foreign", `the checkpoint is of ${header.what} (${header.bucket}), not of ${spec.what} (${spec.bucket})`);
  }
  if (!Number.isSafeInteger(header.revision) || header.revision < 0 || typeof header.stream !== "object" || header.stream === null)
    throw corrupt("its header lacks a revision or a stream");
  const revision = header.revision;
  return {
    revision,
    stream: header.stream,
    writtenAt: header.writtenAt,
    loadInto: (store) => readRecords(b, bodyAt, trailerAt, store, revision),
  };
}

/** Read a checkpoint's bytes back into a new store of `spec` at the checkpoint's revision (not synced); throws CheckpointError. */
export function decodeStore(bytes: Uint8Array, spec: BucketSpec): Seed {
  const opened = openCheckpoint(bytes, spec);
  const store = new ProjectionStore(spec);
  opened.loadInto(store);
  return { revision: opened.revision, stream: opened.stream, writtenAt: opened.writtenAt, store };
}

function readRecords(b: Buffer, from: number, to: number, store: ProjectionStore, revision: number): void {
  if (store.size !== 0 || store.outOfShapeCount !== 0) throw new ProvisionerError("INTERNAL", "a checkpoint is loaded into an empty store only");
  const entries = b.readUInt32LE(to + 1);
  const outOfShape = b.readUInt32LE(to + 5);
  const markers = b.readUInt32LE(to + 9);
  store.expect(entries);
  const none = new Uint8Array(0);
  // The digest has passed, so the bytes are as written; the bounds are checked all the same, and the store being
  // built is dropped with any error. Keys come in key order, as written: each is appended to the store's order.
  let seen = 0;
  let marked = 0;
  let at = from;
  const need = (n: number): void => {
    if (at + n > to) throw corrupt("a record runs past the end");
  };
  while (at < to) {
    const type = b[at] as number;
    need(3);
    const keyLen = b.readUInt16LE(at + 1);
    at += 3;
    need(keyLen);
    const key = b.toString("latin1", at, at + keyLen);
    at += keyLen;
    if (type === MARKER) {
      store.addMarker(key);
      marked++;
      continue;
    }
    if (type !== ENTRY && type !== OUT_OF_SHAPE) throw corrupt(`a record of an unknown type ${type}`);
    need(8);
    const rev = b.readDoubleLE(at);
    at += 8;
    if (!Number.isSafeInteger(rev) || rev < 1) throw corrupt(`a record's revision ${rev}`);
    let value: Uint8Array = none;
    if (type === ENTRY) {
      need(4);
      const len = b.readUInt32LE(at);
      at += 4;
      need(len);
      value = b.subarray(at, at + len);
      at += len;
    }
    store.load(key, rev, value);
    seen++;
  }
  if (seen !== entries + outOfShape || marked !== markers) throw corrupt("its counts do not match its records");
  if (store.size + store.outOfShapeCount !== seen) throw corrupt("a key is written twice");
  store.revision = revision;
}
