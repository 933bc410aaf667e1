/**
 * A store written out as a checkpoint (pure; the layout is format.ts's).
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
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import type { StoreView } from "../view.js";
import type { KeyBytesHead } from "../entry-head.js";
import {
  BLOCK_HEAD,
  CHECKPOINT_FORMAT_VERSION,
  COLUMNS,
  ENTRIES,
  KEYED,
  KINDS,
  MAGIC,
  MARKER,
  OUT_OF_SHAPE,
  PREAMBLE,
  TRAILER,
  WHOLE,
  type CheckpointMeta,
  type Encoder,
  type Header,
} from "./format.js";

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

  type(type: number): void {
    this.room(1);
    this.buf[this.at++] = type;
  }

  /** A key or name: its length u16, then its latin1 bytes. */
  key(key: string): void {
    this.room(2 + key.length);
    this.buf.writeUInt16LE(key.length, this.at);
    this.at += 2;
    this.at += this.buf.write(key, this.at, "latin1");
  }

  f64(n: number): void {
    this.room(8);
    this.at = this.buf.writeDoubleLE(n, this.at);
  }

  u32(n: number): void {
    this.room(4);
    this.at = this.buf.writeUInt32LE(n, this.at);
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
  private readonly out = new Out();
  private step: "preamble" | "entries" | "rest" | "done" = "preamble";
  private after: string | undefined;
  private readonly counts = { entries: 0, outOfShape: 0, markers: 0 };
  private readonly slots = new Int32Array(1024);
  private readonly range = { buf: Buffer.alloc(0), start: 0, end: 0 };
  /** Kind ids named so far: a kinds block names those from here on. */
  private kindsNamed = 0;

  constructor(
    private readonly store: StoreView,
    meta: CheckpointMeta,
  ) {
    if (store.spec.head === undefined)
      throw new ProvisionerError("INTERNAL", `the ${store.spec.what} store keeps the key before its JSON: it has no checkpoint`);
    this.revision = store.revision;
    const header: Header = {
      what: store.spec.what,
      bucket: store.spec.bucket,
      revision: this.revision,
      stream: meta.stream,
      writtenAt: meta.writtenAt,
      entries: store.size,
    };
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
    const { store, slots } = this;
    const scan = store.scan({}, this.after);
    let left = max;
    while (left > 0) {
      const n = scan.fill(left < slots.length ? slots.subarray(0, left) : slots);
      if (n === 0) {
        this.step = "rest";
        return;
      }
      this.block(n);
      this.counts.entries += n;
      left -= n;
    }
  }

  /** The kinds named since the last kinds block, then an entries block of `n` slots. */
  private block(n: number): void {
    const { store, out, slots } = this;
    if (store.kindIds > this.kindsNamed) {
      out.type(KINDS);
      out.u32(store.kindIds - this.kindsNamed);
      for (; this.kindsNamed < store.kindIds; this.kindsNamed++) out.key(store.kindName(this.kindsNamed) ?? "");
    }
    const keyed = store.spec.head?.fromKey;
    let recordBytes = 0;
    for (let i = 0; i < n; i++) {
      const slot = slots[i] as number;
      recordBytes += store.jsonBytes(slot) + 1;
      if (keyed !== undefined) recordBytes += store.keyLength(slot) - keyed.lengthFor(store.keyLength(slot));
    }
    out.room(BLOCK_HEAD + n * COLUMNS + recordBytes);
    const b = out.buf;
    b[out.at++] = ENTRIES;
    out.at = b.writeUInt32LE(n, out.at);
    out.at = b.writeUInt32LE(recordBytes, out.at);
    b[out.at++] = keyed === undefined ? WHOLE : KEYED;
    for (let i = 0; i < n; i++) {
      const slot = slots[i] as number;
      out.at = b.writeUInt16LE(store.keyLength(slot), out.at);
      out.at = b.writeUInt32LE(store.jsonBytes(slot), out.at);
      out.at = b.writeDoubleLE(store.revisionOf(slot), out.at);
      out.at = b.writeInt32LE(store.kindOfSlot(slot), out.at);
    }
    if (keyed !== undefined) this.keyedRecords(n, keyed);
    else this.wholeRecords(n);
    this.after = store.keyOf(slots[n - 1] as number);
  }

  /** Each record as its key, then its JSON after the head and the comma. */
  private keyedRecords(n: number, keyed: KeyBytesHead): void {
    const { store, out, slots, range } = this;
    const b = out.buf;
    for (let i = 0; i < n; i++) {
      const slot = slots[i] as number;
      store.keyRange(slot, range);
      out.at += range.buf.copy(b, out.at, range.start, range.end);
      const keyLength = range.end - range.start;
      store.jsonRange(slot, range);
      const from = range.start + keyed.lengthFor(keyLength);
      const to = range.end + 1;
      out.at += range.buf.copy(b, out.at, from, to);
    }
  }

  /** Each record whole: those that follow each other in the arena are copied as one run. */
  private wholeRecords(n: number): void {
    const { store, out, slots, range } = this;
    const b = out.buf;
    let from = -1;
    let to = -1;
    let src: Buffer | undefined;
    for (let i = 0; i < n; i++) {
      store.jsonRange(slots[i] as number, range);
      if (range.buf !== src || range.start !== to) {
        if (src !== undefined) out.at += src.copy(b, out.at, from, to);
        src = range.buf;
        from = range.start;
      }
      to = range.end + 1;
    }
    if (src !== undefined) out.at += src.copy(b, out.at, from, to);
  }

  private rest(): void {
    const { out, counts } = this;
    for (const o of this.store.allOutOfShape()) {
      out.type(OUT_OF_SHAPE);
      out.key(o.key);
      out.f64(o.revision);
      counts.outOfShape++;
    }
    for (const key of this.store.markerKeys()) {
      out.type(MARKER);
      out.key(key);
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
    return this.out.take();
  }
}

export function encodeStore(store: StoreView, meta: CheckpointMeta): CheckpointEncoder {
  return new CheckpointEncoder(store, meta);
}
