/**
 * What a projection's readers may do with its store (types only): read it.
 * The store implements this; a projection hands it out typed as this, so the
 * verb, the feed, the dashboard, the dump and the reconciler cannot apply,
 * adopt or free anything without a cast. Readers import the store's types
 * from here, never from `store.ts`.
 *
 * Everything is read at the moment of the call: the store changes between
 * two turns of the event loop (the watch applies entries), never during one.
 */
import type { BucketSpec } from "./spec.js";
import type { OutOfShapeKey, Projected } from "./entry.js";
import type { SlotScan } from "./scan.js";

export type { Change, EntryJson, OutOfShapeKey, Projected, StoreObserver } from "./entry.js";
export type { SlotScan } from "./scan.js";

/** Where bytes lie: `start` to `end` (exclusive) of `buf`. A reader's own object, filled by the store. */
export interface ByteRange {
  buf: Buffer;
  start: number;
  end: number;
}

export interface StoreView {
  readonly spec: BucketSpec;
  /** The bucket's stream sequence the store has applied. */
  readonly revision: number;
  /** Entries in shape. */
  readonly size: number;
  readonly outOfShapeCount: number;

  get(key: string): Projected | undefined;
  /** The slot of `key`'s entry, or -1 (the registry's "is this kind answered"). */
  slotOf(key: string): number;
  /** Every entry in key order, as views made one at a time (dump, reconcile). */
  allEntries(): IterableIterator<Projected>;
  allOutOfShape(): IterableIterator<OutOfShapeKey>;
  /** Every entry's key in order (tests and small buckets: a string per key). */
  entryKeys(): string[];

  /** The slots a narrowing reads, strictly after `after`, in key order (a page of the verb). */
  scan(filters: Readonly<Record<string, string>>, after: string | undefined): SlotScan;
  /** Out-of-shape keys strictly after `after`, in key order. */
  oosAfter(after: string | undefined): { next(): OutOfShapeKey | undefined };
  /** The ids (as in `kindOfSlot`) of the kinds some entry names and `keep` keeps. */
  kindIdsWhere(keep: (kind: string) => boolean): number[];

  /*
   * Slot reads: a slot is a number a `scan` gave in this same turn (a slot is
   * reused once its entry goes). They read the store's columns and records in
   * place, so a page is built by copying bytes, with no object per entry.
   */
  keyOf(slot: number): string;
  /** Set `into` to where a slot's key lies in its record (ASCII bytes; the store's: copy them, never write them). */
  keyRange<R extends ByteRange>(slot: number, into: R): R;
  /** The length of a slot's key (ASCII: bytes and characters alike). */
  keyLength(slot: number): number;
  /** Code-unit order of `key` against a slot's key, read from its record. */
  compareKey(key: string, slot: number): number;
  /** The kind of an id `kindOfSlot` gave. */
  kindName(id: number): string | undefined;
  /** How many kind ids were given: every id `kindOfSlot` gives is below it. */
  readonly kindIds: number;
  /** The kind id of a slot's key (-1 where keys name none). */
  kindOfSlot(slot: number): number;
  /** The revision of a slot's entry. */
  revisionOf(slot: number): number;
  /** The keys whose last message is a delete or purge marker, in no order (a checkpoint holds them). */
  markerKeys(): IterableIterator<string>;
  /** The size in bytes of a slot's entry JSON. */
  jsonBytes(slot: number): number;
  /**
   * Set `into` to where a slot's entry JSON lies (a comma follows it), and
   * return it. The bytes are the store's: copy them, never write them.
   */
  jsonRange<R extends ByteRange>(slot: number, into: R): R;
  /** A slot's entry as a view (decodes its JSON). */
  entryAt(slot: number): Projected;
}
