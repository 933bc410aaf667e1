/**
 * A store's slots and the records they point to (pure): the columns
 * (`Slots`) and the arena the records lie in (`RecordArena`), and the reads
 * of where a slot's key and JSON lie in its record, made in place with no
 * object per entry. `ProjectionStore` extends it with the key table, the key
 * order, the kinds and the writes; these reads are its own methods, so a
 * reader's loop over slots calls the store directly. It is abstract: only
 * stores are made, so every call of these reads sees one kind of object.
 *
 * A record is the key where it comes first (the registry), the entry's JSON,
 * then one comma (the layout `store.ts` and `record-write.ts` describe).
 */
import { RecordArena } from "./record-arena.js";
import { Slots } from "./slots.js";
import type { BucketSpec } from "./spec.js";
import type { ByteRange } from "./view.js";

export abstract class SlotRecords {
  protected slots = new Slots();
  protected arena: RecordArena;

  /**
   * The layout of every record: where the spec renders the whole JSON (the
   * registry) the key comes first; otherwise the JSON starts `{"key":"` and
   * the key follows those 8 bytes.
   */
  protected readonly keyFirst: boolean;
  protected readonly keyAt: number;

  /** `segmentBytes`: the record arena's segment size (tests make it small to compact often). */
  constructor(spec: BucketSpec, segmentBytes: number | undefined) {
    this.keyFirst = spec.head === undefined;
    this.keyAt = this.keyFirst ? 0 : 8;
    const slots = this.slots;
    this.arena = new RecordArena(
      {
        offsetIn: (slot, seg) => (slots.seg[slot] === seg ? (slots.off[slot] as number) : -1),
        lengthOf: (slot) => this.recordLength(slot),
        moved: (slot, seg, off) => {
          slots.seg[slot] = seg;
          slots.off[slot] = off;
        },
      },
      segmentBytes,
    );
  }

  kindOfSlot(slot: number): number {
    return this.slots.kind[slot] as number;
  }

  keyOf(slot: number): string {
    const s = this.slots;
    const at = (s.off[slot] as number) + this.keyAt;
    return (this.arena.segs[s.seg[slot] as number] as Buffer).toString("latin1", at, at + (s.keyLen[slot] as number));
  }

  /** Where a slot's JSON starts in its record. */
  protected jsonAt(slot: number): number {
    return this.keyFirst ? (this.slots.keyLen[slot] as number) : 0;
  }

  /** A record's length: the key where it comes first, the JSON, a comma. */
  protected recordLength(slot: number): number {
    return this.jsonAt(slot) + (this.slots.jsonLen[slot] as number) + 1;
  }

  keyRange<R extends ByteRange>(slot: number, into: R): R {
    into.buf = this.arena.segs[this.slots.seg[slot] as number] as Buffer;
    into.start = (this.slots.off[slot] as number) + this.keyAt;
    into.end = into.start + (this.slots.keyLen[slot] as number);
    return into;
  }

  keyLength(slot: number): number {
    return this.slots.keyLen[slot] as number;
  }

  revisionOf(slot: number): number {
    return this.slots.revision[slot] as number;
  }

  jsonRange<R extends ByteRange>(slot: number, into: R): R {
    into.buf = this.arena.segs[this.slots.seg[slot] as number] as Buffer;
    into.start = (this.slots.off[slot] as number) + this.jsonAt(slot);
    into.end = into.start + (this.slots.jsonLen[slot] as number);
    return into;
  }

  jsonBytes(slot: number): number {
    return this.slots.jsonLen[slot] as number;
  }

  /** Whether a slot still holds the entry at `revision`. */
  protected holdsAt(slot: number, revision: number): boolean {
    return this.slots.inUse(slot) && this.slots.revision[slot] === revision;
  }

  /** Code-unit order of `key` against a slot's key, read from its record (keys in shape are ASCII). */
  compareKey(key: string, slot: number): number {
    const s = this.slots;
    const buf = this.arena.segs[s.seg[slot] as number] as Buffer;
    const at = (s.off[slot] as number) + this.keyAt;
    const n = s.keyLen[slot] as number;
    const m = key.length;
    const l = m < n ? m : n;
    for (let k = 0; k < l; k++) {
      const d = key.charCodeAt(k) - (buf[at + k] as number);
      if (d !== 0) return d;
    }
    return m - n;
  }
}
