/**
 * A checkpoint read back (pure, but for awaiting its bytes; the layout is
 * format.ts's), as its unpacked bytes arrive in chunks of any size: the
 * preamble and header are read and checked (magic, format version, bucket)
 * before anything is loaded, then the blocks are loaded one by one into a
 * new store, each entries block in bulk (../bulk-load.ts), and last the
 * trailer's counts are checked and the bytes read to their end.
 */
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { ProjectionStore } from "../store.js";
import { RunError } from "../bulk-load.js";
import type { BucketSpec } from "../spec.js";
import { ChunkCursor, type Run } from "./chunks.js";
import {
  CHECKPOINT_FORMAT_VERSION,
  CheckpointError,
  COLUMNS,
  corrupt,
  ENTRIES,
  KEYED,
  KINDS,
  MAGIC,
  MARKER,
  OUT_OF_SHAPE,
  PREAMBLE,
  TRAILER,
  TRAILER_COUNTS,
  WHOLE,
  type CheckpointMeta,
  type Header,
} from "./format.js";

/** A decoded checkpoint: its revision, the stream it names, and a store holding it, at its revision, not synced. */
export interface Seed extends CheckpointMeta {
  readonly revision: number;
  readonly store: ProjectionStore;
}

/** A checkpoint whose preamble and header have been read and checked: what it says, and its records to load. */
export interface OpenedCheckpoint extends CheckpointMeta {
  readonly revision: number;
  /** The entries its header says it holds: a size to plan by (its trailer's counts are what is checked). */
  readonly entries: number;
  /**
   * Load its records into `store` (new, empty, of the same spec), reading its
   * bytes to their end, and set the store's revision; rejects with a
   * CheckpointError when they do not make a checkpoint, or with the bytes'
   * own error. The store is for the caller to drop then.
   */
  loadInto(store: ProjectionStore): Promise<void>;
}

/** An entries block's size at most: more than any writer makes (a slice of entries of the largest messages). */
const MAX_BLOCK_ENTRIES = 1 << 20;
const MAX_BLOCK_BYTES = 1 << 30;

/** Room made ahead for a header's `entries` at most: a larger figure is grown into. */
const MAX_EXPECTED = 1 << 24;

type Chunks = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

function iteratorOf(chunks: Chunks): AsyncIterator<Uint8Array> {
  if (Symbol.asyncIterator in chunks) return chunks[Symbol.asyncIterator]();
  const it = chunks[Symbol.iterator]();
  return { next: () => Promise.resolve(it.next()) };
}

async function need(cur: ChunkCursor, n: number, what: string): Promise<Run> {
  const run = await cur.next(n);
  if (run === undefined) throw corrupt(`it ends within ${what}, after ${cur.taken} bytes`);
  return run;
}

/** Read a checkpoint's preamble and header for `spec` (magic, format version, bucket) without loading its records; throws CheckpointError. */
export async function openCheckpoint(chunks: Chunks, spec: BucketSpec): Promise<OpenedCheckpoint> {
  const cur = new ChunkCursor(iteratorOf(chunks));
  const pre = await need(cur, PREAMBLE, "its preamble");
  if (!pre.buf.subarray(pre.at, pre.at + MAGIC.length).equals(MAGIC)) throw corrupt("it does not start as one");
  const version = pre.buf.readUInt32LE(pre.at + MAGIC.length);
  if (version !== CHECKPOINT_FORMAT_VERSION) {
    throw new CheckpointError("format-version", `the checkpoint's format is version ${version}; this service reads version ${CHECKPOINT_FORMAT_VERSION}`);
  }
  const headerLen = pre.buf.readUInt32LE(pre.at + MAGIC.length + 4);
  if (headerLen > 1 << 20) throw corrupt(`its header's length ${headerLen}`);
  const h = await need(cur, headerLen, "its header");
  let header: Header;
  try {
    header = JSON.parse(h.buf.toString("utf8", h.at, h.at + headerLen)) as Header;
  } catch {
    throw corrupt("its header is not JSON");
  }
  if (header.what !== spec.what || header.bucket !== spec.bucket) {
    throw new CheckpointError("foreign", `the checkpoint is of ${header.what} (${header.bucket}), not of ${spec.what} (${spec.bucket})`);
  }
  if (!Number.isSafeInteger(header.revision) || header.revision < 0 || typeof header.stream !== "object" || header.stream === null)
    throw corrupt("its header lacks a revision or a stream");
  const revision = header.revision;
  const expected = Number.isSafeInteger(header.entries) && header.entries > 0 ? Math.min(header.entries, MAX_EXPECTED) : 0;
  return {
    revision,
    entries: expected,
    stream: header.stream,
    writtenAt: header.writtenAt,
    loadInto: async (store) => {
      try {
        await readRecords(cur, store, expected);
      } catch (err) {
        throw err instanceof RunError ? corrupt(err.message) : err;
      }
      store.revision = revision;
    },
  };
}

/** Read a checkpoint's bytes back into a new store of `spec` at the checkpoint's revision (not synced); rejects with a CheckpointError. */
export async function decodeStore(chunks: Chunks, spec: BucketSpec): Promise<Seed> {
  const opened = await openCheckpoint(chunks, spec);
  const store = new ProjectionStore(spec);
  await opened.loadInto(store);
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

async function readRecords(cur: ChunkCursor, store: ProjectionStore, expected: number): Promise<void> {
  if (store.size !== 0 || store.outOfShapeCount !== 0) throw new ProvisionerError("INTERNAL", "a checkpoint is loaded into an empty store only");
  store.expect(expected);
  const cols = new Columns();
  /** The writer's kind ids -> this store's. */
  const kinds: number[] = [];
  const counts = { entries: 0, outOfShape: 0, markers: 0 };
  const readKey = async (what: string): Promise<string> => {
    const l = await need(cur, 2, what);
    const len = l.buf.readUInt16LE(l.at);
    const k = await need(cur, len, what);
    return k.buf.toString("latin1", k.at, k.at + len);
  };
  for (;;) {
    const t = await need(cur, 1, "a record's type");
    const type = t.buf[t.at] as number;
    if (type === TRAILER) break;
    if (type === KINDS) {
      const c = await need(cur, 4, "a kinds block");
      const n = c.buf.readUInt32LE(c.at);
      for (let i = 0; i < n; i++) kinds.push(store.kindId(await readKey("a kinds block")));
    } else if (type === ENTRIES) {
      const head = await need(cur, 9, "an entries block");
      const n = head.buf.readUInt32LE(head.at);
      const recordBytes = head.buf.readUInt32LE(head.at + 4);
      const layout = head.buf[head.at + 8] as number;
      if (layout !== WHOLE && layout !== KEYED) throw corrupt(`an entries block of an unknown layout ${layout}`);
      const keyed = layout === KEYED ? store.spec.head?.fromKey : undefined;
      if (layout === KEYED && keyed === undefined) throw corrupt(`its ${store.spec.what} records are written without the head their keys do not make`);
      if (n > MAX_BLOCK_ENTRIES || n * COLUMNS + recordBytes > MAX_BLOCK_BYTES) throw corrupt(`an entries block of ${n} entries and ${recordBytes} bytes`);
      const { buf: b, at: from } = await need(cur, n * COLUMNS + recordBytes, "an entries block");
      cols.fit(n);
      let at = from;
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
      store.loadRun({
        n,
        keyLen: cols.keyLen,
        jsonLen: cols.jsonLen,
        revision: cols.revision,
        kind: cols.kind,
        keyed,
        records: b,
        start: at,
        end: at + recordBytes,
      });
      counts.entries += n;
    } else if (type === OUT_OF_SHAPE) {
      const key = await readKey("a key out of shape");
      const r = await need(cur, 8, "a key out of shape");
      const rev = r.buf.readDoubleLE(r.at);
      if (!Number.isSafeInteger(rev) || rev < 1) throw corrupt(`a record's revision ${rev}`);
      store.loadOutOfShape(key, rev);
      counts.outOfShape++;
    } else if (type === MARKER) {
      store.addMarker(await readKey("a delete marker"));
      counts.markers++;
    } else throw corrupt(`a record of an unknown type ${type}`);
  }
  const c = await need(cur, TRAILER_COUNTS, "its trailer");
  const [entries, outOfShape, markers] = [c.buf.readUInt32LE(c.at), c.buf.readUInt32LE(c.at + 4), c.buf.readUInt32LE(c.at + 8)];
  if (counts.entries !== entries || counts.outOfShape !== outOfShape || counts.markers !== markers) throw corrupt("its counts do not match its records");
  if (store.outOfShapeCount !== outOfShape || store.size !== entries) throw corrupt("a key is written twice");
  if (!(await cur.atEnd())) throw corrupt("bytes follow its trailer");
}
