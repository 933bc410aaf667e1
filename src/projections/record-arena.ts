/**
 * Where a store keeps its entries' bytes: fixed-size segments of memory
 * outside the JS heap, each holding records one after the other. A record is
 * an 8-byte header (the slot that owns it, its length) and the bytes the slot
 * answers with. Records are only ever appended; a record replaced or deleted
 * is dead space in its segment, and a segment that is more than half dead is
 * compacted: its live records are copied to the head segment (the owner is
 * told where each one moved) and the segment is reused.
 *
 * Why: a million entries as JS objects and strings are millions of objects
 * for every mark-compact to trace (one took ~80 ms at 1M keys). Here the bytes
 * of every entry are a few dozen Buffers, and an answer is built by copying
 * them.
 */

/** The size of a segment: a compaction copies at most this much at once. */
export const SEGMENT_BYTES = 4 * 1024 * 1024;
export const HEADER_BYTES = 8;

export interface ArenaOwner {
  /** Whether the record at (seg, off) is still the one `slot` answers with. */
  isLive(slot: number, seg: number, off: number): boolean;
  /** The record of `slot` moved to (seg, off). */
  moved(slot: number, seg: number, off: number): void;
}

export interface Place {
  seg: number;
  off: number;
}

export class RecordArena {
  /** The segments by index (undefined: free index). */
  readonly segs: (Buffer | undefined)[] = [];
  private used: number[] = [];
  private dead: number[] = [];
  private head = -1;
  private readonly spare: Buffer[] = [];
  private readonly freeIndexes: number[] = [];
  /** Bytes moved by compactions so far (for tests and metrics). */
  compactedBytes = 0;

  constructor(
    private readonly owner: ArenaOwner,
    private readonly segmentBytes = SEGMENT_BYTES,
  ) {}

  /** Bytes held in segments, live or dead. */
  get allocatedBytes(): number {
    let n = 0;
    for (const s of this.segs) n += s?.length ?? 0;
    return n;
  }

  /** Room for a record of `bodyBytes` owned by `slot`: its header is written; the body starts at off + HEADER_BYTES. */
  reserve(slot: number, bodyBytes: number): Place {
    const total = HEADER_BYTES + bodyBytes;
    let seg: number;
    if (total > this.segmentBytes) {
      // A record larger than a segment gets a segment of its own, freed with it.
      seg = this.newSegment(Buffer.allocUnsafeSlow(total));
    } else {
      if (this.head < 0 || (this.used[this.head] as number) + total > this.segmentBytes) {
        this.head = this.newSegment(this.spare.pop() ?? Buffer.allocUnsafeSlow(this.segmentBytes));
      }
      seg = this.head;
    }
    const off = this.used[seg] as number;
    const buf = this.segs[seg] as Buffer;
    buf.writeInt32LE(slot, off);
    buf.writeInt32LE(total, off + 4);
    this.used[seg] = off + total;
    return { seg, off };
  }

  /** The record at (seg, off) is dead: count it, and compact its segment when that frees enough. */
  free(seg: number, off: number): void {
    const buf = this.segs[seg] as Buffer;
    const total = buf.readInt32LE(off + 4);
    const dead = (this.dead[seg] = (this.dead[seg] as number) + total);
    const used = this.used[seg] as number;
    if (seg === this.head) return;
    if (dead >= used) this.release(seg);
    else if (dead * 2 > used) this.compact(seg);
  }

  /** Copy the live records of `seg` to the head and release it. */
  private compact(seg: number): void {
    const buf = this.segs[seg] as Buffer;
    const used = this.used[seg] as number;
    for (let off = 0; off < used; ) {
      const slot = buf.readInt32LE(off);
      const total = buf.readInt32LE(off + 4);
      if (this.owner.isLive(slot, seg, off)) {
        const to = this.reserve(slot, total - HEADER_BYTES);
        buf.copy(this.segs[to.seg] as Buffer, to.off + HEADER_BYTES, off + HEADER_BYTES, off + total);
        this.compactedBytes += total;
        this.owner.moved(slot, to.seg, to.off);
      }
      off += total;
    }
    this.release(seg);
  }

  private release(seg: number): void {
    const buf = this.segs[seg] as Buffer;
    // Keep one standard segment for reuse; let the rest go back to the system.
    if (buf.length === this.segmentBytes && this.spare.length === 0) this.spare.push(buf);
    this.segs[seg] = undefined;
    this.used[seg] = 0;
    this.dead[seg] = 0;
    this.freeIndexes.push(seg);
  }

  private newSegment(buf: Buffer): number {
    const seg = this.freeIndexes.pop() ?? this.segs.length;
    this.segs[seg] = buf;
    this.used[seg] = 0;
    this.dead[seg] = 0;
    return seg;
  }
}
