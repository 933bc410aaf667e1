/**
 * Where a store keeps its entries' bytes: fixed-size segments of memory
 * outside the JS heap, each holding records one after the other, and beside
 * each segment the list of the slots it was given, in order. Records are
 * only ever appended; a record replaced or deleted is dead space in its
 * segment, and a segment that is more than half dead is compacted: its live
 * records are copied, in their order, to the head segment (the owner is told
 * where each one moved) and the segment is reused.
 *
 * Why: a million entries as JS objects and strings are millions of objects
 * for every mark-compact to trace. Here the bytes of every entry are a few
 * dozen Buffers, and an answer is built by copying them. Records carry no header, so records appended one after the other
 * (a node writing its keys in order, a snapshot) sit back to back, and an
 * answer copies such a run at once.
 */

/** The size of a segment: a compaction copies at most this much at once. */
export const SEGMENT_BYTES = 4 * 1024 * 1024;

export interface ArenaOwner {
  /** Where `slot`'s live record is in `seg`, or -1 when it is not in that segment. */
  offsetIn(slot: number, seg: number): number;
  /** The length in bytes of `slot`'s record. */
  lengthOf(slot: number): number;
  /** The record of `slot` moved to (seg, off). */
  moved(slot: number, seg: number, off: number): void;
}

export interface Place {
  seg: number;
  off: number;
}

/**
 * The slots of one segment's records, in the order they were written. A slot
 * written twice into one segment is listed twice; only its last record is
 * live, and the owner's (segment, offset) says which.
 */
class Ledger {
  slots = new Int32Array(1024);
  length = 0;

  push(slot: number): void {
    if (this.length === this.slots.length) {
      const wider = new Int32Array(this.slots.length * 2);
      wider.set(this.slots);
      this.slots = wider;
    }
    this.slots[this.length++] = slot;
  }
}

export class RecordArena {
  /** The segments by index (undefined: free index). */
  readonly segs: (Buffer | undefined)[] = [];
  private readonly ledgers: (Ledger | undefined)[] = [];
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

  /** Room for a record of `bytes` owned by `slot`, right after the previous record when it fits. */
  reserve(slot: number, bytes: number): Place {
    let seg: number;
    if (bytes > this.segmentBytes) {
      // A record larger than a segment gets a segment of its own, freed with it.
      seg = this.newSegment(Buffer.allocUnsafeSlow(bytes));
    } else {
      if (this.head < 0 || (this.used[this.head] as number) + bytes > this.segmentBytes) {
        this.head = this.newSegment(this.spare.pop() ?? Buffer.allocUnsafeSlow(this.segmentBytes));
      }
      seg = this.head;
    }
    const off = this.used[seg] as number;
    this.used[seg] = off + bytes;
    (this.ledgers[seg] as Ledger).push(slot);
    return { seg, off };
  }

  /** A record of `bytes` in `seg` is dead: count it, and compact the segment when that frees enough. */
  free(seg: number, bytes: number): void {
    const dead = (this.dead[seg] = (this.dead[seg] as number) + bytes);
    const used = this.used[seg] as number;
    if (seg === this.head) return;
    if (dead >= used) this.release(seg);
    else if (dead * 2 > used) this.compact(seg);
  }

  /** Copy the live records of `seg` to the head, in their order, and release it. */
  private compact(seg: number): void {
    const buf = this.segs[seg] as Buffer;
    const { slots, length } = this.ledgers[seg] as Ledger;
    for (let i = 0; i < length; i++) {
      const slot = slots[i] as number;
      const off = this.owner.offsetIn(slot, seg);
      // Not in this segment any more (moved, rewritten elsewhere, deleted), or already moved by an earlier listing.
      if (off < 0) continue;
      const bytes = this.owner.lengthOf(slot);
      const to = this.reserve(slot, bytes);
      buf.copy(this.segs[to.seg] as Buffer, to.off, off, off + bytes);
      this.compactedBytes += bytes;
      this.owner.moved(slot, to.seg, to.off);
    }
    this.release(seg);
  }

  private release(seg: number): void {
    const buf = this.segs[seg] as Buffer;
    // Keep one standard segment for reuse; let the rest go back to the system.
    if (buf.length === this.segmentBytes && this.spare.length === 0) this.spare.push(buf);
    this.segs[seg] = undefined;
    this.ledgers[seg] = undefined;
    this.used[seg] = 0;
    this.dead[seg] = 0;
    this.freeIndexes.push(seg);
  }

  private newSegment(buf: Buffer): number {
    const seg = this.freeIndexes.pop() ?? this.segs.length;
    this.segs[seg] = buf;
    this.ledgers[seg] = new Ledger();
    this.used[seg] = 0;
    this.dead[seg] = 0;
    return seg;
  }
}
