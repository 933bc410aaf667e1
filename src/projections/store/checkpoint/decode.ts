/**
 * A checkpoint read back (pure; the layout is format.ts's): checked whole
 * (magic, format version, digest, header, bucket) before anything is
 * loaded, then loaded into a new store a block at a time, each entries
 * block in bulk (../bulk-load.ts).
 */
import { createHash } from "node:crypto";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { ProjectionStore } from "../store.js";
import { RunError } from "../bulk-load.js";
import type { BucketSpec } from "../spec.js";
import {
  CHECKPOINT_FORMAT_VERSION,
  CheckpointError,
  COLUMNS,
  corrupt,
  DIGEST,
  ENTRIES,
  KEYED,
  KINDS,
  MAGIC,
  MARKER,
  OUT_OF_SHAPE,
  PREAMBLE,
  TRAILER,
  TRAILER_BYTES,
  WHOLE,
  type CheckpointMeta,
  type Header,
} from "./format.js";

/** A decoded checkpoint: its revision, the stream it names, and a store holding it, at its revision, not synced. */
export interface Seed extends CheckpointMeta {
  readonly revision: number;
  readonly store: ProjectionStore;
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
    loadInto: (store) => {
      try {
        readRecords(b, bodyAt, trailerAt, store, revision);
      } catch (err) {
        throw err instanceof RunError ? corrupt(err.message) : err;
      }
    },
  };
}

/** Read a checkpoint's bytes back into a new store of `spec` at the checkpoint's revision (not synced); throws CheckpointError. */
export function decodeStore(bytes: Uint8Array, spec: BucketSpec): Seed {
  const opened = openCheckpoint(bytes, spec);
  const store = new ProjectionStore(spec);
  opened.loadInto(store);
  return { revision: opened.revision, stream: opened.stream, writtenAt: opened.writtenAt, store };
}

/** Reusable columns for one entries block at a time. */
class Columns {
  keyLen = new Int32Array(0);
  jsonLen = new Int32Array(0);
  revision = new Float64Array(0);
  kind = new Int32Array(0);

  fit(n: number): void {
    if (this.keyLen.length >= n) return;
    this.keyLen = new Int32Array(n);
    this.jsonLen = new Int32Array(n);
    this.revision = new Float64Array(n);
    this.kind = new Int32Array(n);
  }
}

function readRecords(b: Buffer, from: number, to: number, store: ProjectionStore, revision: number): void {
  if (store.size !== 0 || store.outOfShapeCount !== 0) throw new ProvisionerError("INTERNAL", "a checkpoint is loaded into an empty store only");
  const entries = b.readUInt32LE(to + 1);
  const outOfShape = b.readUInt32LE(to + 5);
  const markers = b.readUInt32LE(to + 9);
  store.expect(entries);
  // The digest has passed, so the bytes are as written; the bounds are checked all the same, and the store being
  // built is dropped with any error.
  const cols = new Columns();
  /** The writer's kind ids -> this store's. */
  const kinds: number[] = [];
  const counts = { entries: 0, outOfShape: 0, markers: 0 };
  let at = from;
  const need = (n: number): void => {
    if (at + n > to) throw corrupt("a record runs past the end");
  };
  const readKey = (): string => {
    need(2);
    const len = b.readUInt16LE(at);
    at += 2;
    need(len);
    const key = b.toString("latin1", at, at + len);
    at += len;
    return key;
  };
  while (at < to) {
    const type = b[at++] as number;
    if (type === KINDS) {
      need(4);
      const n = b.readUInt32LE(at);
      at += 4;
      for (let i = 0; i < n; i++) kinds.push(store.kindId(readKey()));
    } else if (type === ENTRIES) {
      need(9);
      const n = b.readUInt32LE(at);
      const recordBytes = b.readUInt32LE(at + 4);
      const layout = b[at + 8] as number;
      at += 9;
      if (layout !== WHOLE && layout !== KEYED) throw corrupt(`an entries block of an unknown layout ${layout}`);
      const keyed = layout === KEYED ? store.spec.head?.fromKey : undefined;
      if (layout === KEYED && keyed === undefined) throw corrupt(`its ${store.spec.what} records are written without the head their keys do not make`);
      need(n * COLUMNS + recordBytes);
      cols.fit(n);
      for (let i = 0; i < n; i++, at += COLUMNS) {
        cols.keyLen[i] = b.readUInt16LE(at);
        cols.jsonLen[i] = b.readUInt32LE(at + 2);
        const rev = b.readDoubleLE(at + 6);
        if (!Number.isSafeInteger(rev) || rev < 1) throw corrupt(`an entry's revision ${rev}`);
        cols.revision[i] = rev;
        const kind = b.readInt32LE(at + 14);
        if (kind < -1 || kind >= kinds.length) throw corrupt(`an entry names a kind id ${kind} no kinds block named`);
        cols.kind[i] = kind < 0 ? -1 : (kinds[kind] as number);
      }
      const run = {
        n,
        keyLen: cols.keyLen,
        jsonLen: cols.jsonLen,
        revision: cols.revision,
        kind: cols.kind,
        keyed,
        records: b,
        start: at,
        end: at + recordBytes,
      };
      store.loadRun(run);
      at += recordBytes;
      counts.entries += n;
    } else if (type === OUT_OF_SHAPE) {
      const key = readKey();
      need(8);
      const rev = b.readDoubleLE(at);
      at += 8;
      if (!Number.isSafeInteger(rev) || rev < 1) throw corrupt(`a record's revision ${rev}`);
      store.loadOutOfShape(key, rev);
      counts.outOfShape++;
    } else if (type === MARKER) {
      store.addMarker(readKey());
      counts.markers++;
    } else throw corrupt(`a record of an unknown type ${type}`);
  }
  if (counts.entries !== entries || counts.outOfShape !== outOfShape || counts.markers !== markers) throw corrupt("its counts do not match its records");
  if (store.outOfShapeCount !== outOfShape || store.size !== entries) throw corrupt("a key is written twice");
  store.revision = revision;
}
