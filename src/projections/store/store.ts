/**
 * The in-memory store of one bucket (pure): apply a watch entry, keep each
 * entry's JSON as the verb answers it, out-of-shape keys with their reasons,
 * the keys whose last message is a delete marker (a checkpoint's count
 * compares them with the stream), key order for paging (which also serves
 * narrowing by a key's leading tokens), an index per other narrowed field,
 * and the revision applied. No I/O, no clock.
 *
 * Entries are slots (columns of typed arrays, `Slots`) whose JSON lives as
 * bytes in a `RecordArena` outside the JS heap (both, and the reads of where
 * a slot's key and JSON lie, are `SlotRecords`, which the store extends); a
 * `KeyTable` finds a key's slot, `KeyOrders` keeps the slots in key order with
 * the indexes narrowing
 * reads (`scan.ts`), `KindCounts` the kinds entries name, and
 * `OutOfShapeKeys` the keys out of shape. A million entries are then a few
 * dozen objects for the garbage collector, and an answer is built by copying
 * bytes. What readers are handed (`entry.ts`) is made on demand, never kept.
 * A record is the key where it comes first (the registry), the entry's JSON,
 * then one comma: answers copy records that follow each other as one run.
 */
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { writeRecord } from "./record-write.js";
import { hashKey, KeyTable } from "./key-table.js";
import { KindCounts } from "./kind-counts.js";
import { OutOfShapeKeys } from "./out-of-shape.js";
import type { BucketSpec } from "./spec.js";
import type { Operation } from "../../streams/operation.js";
import { EntryPut, Projected, type Change, type EntryJson, type OutOfShapeKey, type StoreObserver } from "./entry.js";
import type { SlotScan } from "./scan.js";
import { KeyOrders } from "./key-orders.js";
import { loadRun, RunError, type RecordRun } from "./bulk-load.js";
import { replayTo } from "./replay.js";
import type { StoreView } from "./view.js";
import { SlotRecords } from "./slot-records.js";

export { Projected, type Change, type EntryJson, type OutOfShapeKey, type StoreObserver } from "./entry.js";
export type { SlotScan } from "./scan.js";

const EMPTY = Buffer.alloc(0);

/**
 * The store and its writers. Only its projection holds it as this type;
 * readers get it as a `StoreView`, where the reads are documented.
 */
export class ProjectionStore extends SlotRecords implements StoreView {
  readonly spec: BucketSpec;
  /** The bucket's stream sequence this store has applied. */
  revision = 0;
  synced = false;
  private table: KeyTable;
  /** Key order, and the indexes narrowing reads. */
  private orders: KeyOrders;
  /** Out-of-shape keys: few, kept as plain objects. */
  private oos = new OutOfShapeKeys();
  /** Parsed values, where the spec keeps them (the registry). */
  private values = new Map<string, unknown>();
  /** The kinds entries name (needs): id <-> name, and how many entries name each. */
  private kindCounts = new KindCounts();
  /** Keys whose last message is a delete or purge marker: the stream holds a message for each (see `heldKeys`). */
  private markers = new Set<string>();

  /** Told of what comes and goes (see StoreObserver); none for a store built aside. */
  private observer: StoreObserver | undefined;

  /** `segmentBytes`: the record arena's segment size (tests make it small to compact often). */
  constructor(spec: BucketSpec, opts: { segmentBytes?: number; observer?: StoreObserver } = {}) {
    super(spec, opts.segmentBytes);
    this.spec = spec;
    this.observer = opts.observer;
    const slots = this.slots;
    this.table = new KeyTable({ keyIs: (slot, key) => this.compareKey(key, slot) === 0, hashOf: (slot) => slots.hash[slot] as number });
    this.orders = new KeyOrders(spec, { compare: (key, slot) => this.compareKey(key, slot), keyOf: (slot) => this.keyOf(slot) });
  }

  get size(): number {
    return this.table.size;
  }

  /**
   * Hold `next`'s content from now on (a rebuild from a fresh snapshot), so
   * readers holding this store read it. `next` is spent: its parts are now
   * this store's (their callbacks go through `next`, which reads the same
   * parts). The observer is not told: the caller replays to it.
   */
  adopt(next: ProjectionStore): void {
    if (next.spec !== this.spec) throw new ProvisionerError("INTERNAL", `a ${next.spec.what} store cannot take the place of a ${this.spec.what} store`);
    this.slots = next.slots;
    this.arena = next.arena;
    this.table = next.table;
    this.orders = next.orders;
    this.oos = next.oos;
    this.values = next.values;
    this.kindCounts = next.kindCounts;
    this.markers = next.markers;
    this.revision = next.revision;
    this.synced = next.synced;
  }

  /** How many entries it has room for before its columns grow. */
  get capacity(): number {
    return this.slots.capacity;
  }

  /** `n` more entries are on their way (a snapshot's size): take room for them now rather than grow step by step. */
  expect(n: number): void {
    this.slots.reserve(n);
    this.table.reserve(n);
  }

  get outOfShapeCount(): number {
    return this.oos.size;
  }

  /**
   * The keys the bucket's stream holds a message for, as far as this store
   * knows: entries, out-of-shape keys and delete markers. In a bucket that
   * keeps one message per key it equals the stream's message count at the
   * revision applied, unless messages left the stream unseen (a purge).
   */
  get heldKeys(): number {
    return this.table.size + this.oos.size + this.markers.size;
  }

  /** The keys whose last message is a delete or purge marker, in no order. */
  markerKeys(): IterableIterator<string> {
    return this.markers.keys();
  }

  /** Note a marker read from elsewhere than the watch (a checkpoint). */
  addMarker(key: string): void {
    this.markers.add(key);
  }

  /** Bytes of live records the arena has moved to compact its segments, so far. */
  get compactedBytes(): number {
    return this.arena.compactedBytes;
  }

  slotOf(key: string): number {
    return this.table.get(key);
  }

  get(key: string): Projected | undefined {
    const slot = this.table.get(key);
    return slot < 0 ? undefined : this.entryAt(slot);
  }

  getOutOfShape(key: string): OutOfShapeKey | undefined {
    return this.oos.get(key);
  }

  *allEntries(): IterableIterator<Projected> {
    for (const slot of this.orders.all) yield this.entryAt(slot);
  }

  entryKeys(): string[] {
    return this.orders.all.keys();
  }

  /** Every out-of-shape key in order. */
  outOfShapeKeys(): string[] {
    return this.oos.keys();
  }

  allOutOfShape(): IterableIterator<OutOfShapeKey> {
    return this.oos.values();
  }

  /** The kinds the entries name (empty for buckets whose keys name none). */
  *kinds(): IterableIterator<string> {
    yield* this.kindCounts.named();
  }

  kindIdsWhere(keep: (kind: string) => boolean): number[] {
    return this.kindCounts.idsWhere(keep);
  }

  kindName(id: number): string | undefined {
    return this.kindCounts.nameOf(id);
  }

  get kindIds(): number {
    return this.kindCounts.idCount;
  }

  entryAt(slot: number): Projected {
    const key = this.keyOf(slot);
    const { buf, start, end } = this.jsonRange(slot, { buf: EMPTY, start: 0, end: 0 });
    return new Projected(key, this.revisionOf(slot), buf.toString("utf8", start, end), this.spec, this.values.get(key));
  }

  /** The view of a slot if it still holds the entry at `revision`. */
  viewIfAt(slot: number, revision: number): Projected | undefined {
    return this.holdsAt(slot, revision) ? this.entryAt(slot) : undefined;
  }

  /** A slot's JSON bytes (`jsonRange`) and the kind its key names, if it still holds the entry at `revision` (see `Change.entryJson`). */
  jsonIfAt(slot: number, revision: number): EntryJson | undefined {
    if (!this.holdsAt(slot, revision)) return undefined;
    const id = this.slots.kind[slot] as number;
    return this.jsonRange(slot, { buf: EMPTY, start: 0, end: 0, kind: id >= 0 ? this.kindCounts.nameOf(id) : undefined });
  }

  scan(filters: Readonly<Record<string, string>>, after: string | undefined): SlotScan {
    return this.orders.scan(filters, after, this.table);
  }

  oosAfter(after: string | undefined): { next(): OutOfShapeKey | undefined } {
    return this.oos.after(after);
  }

  /** Apply one entry of the watch. Entries at or below the applied revision are ignored (a resumed watch may repeat). */
  apply(operation: Operation, key: string, revision: number, value: Uint8Array): Change | null {
    if (revision <= this.revision) return null;
    this.revision = revision;
    if (operation !== "PUT") {
      this.markers.add(key);
      this.removeEntry(key, revision);
      this.removeOutOfShape(key, revision);
      return { op: "delete", key, revision, newlyOutOfShape: false };
    }
    if (this.markers.size !== 0) this.markers.delete(key);
    return this.put(key, revision, value);
  }

  /**
   * Take a run of a checkpoint's entries, laid out as this store keeps them,
   * every key after the last one held (see bulk-load.ts); throws RunError
   * when they are not. The observer is not told (see `observeWith`), and the
   * store's revision is the caller's to set.
   */
  loadRun(run: RecordRun): void {
    loadRun(
      {
        spec: this.spec,
        slots: this.slots,
        arena: this.arena,
        table: this.table,
        orders: this.orders,
        kindCounts: this.kindCounts,
        keyAt: this.keyAt,
        keyOf: (slot) => this.keyOf(slot),
      },
      run,
    );
  }

  /** Take a checkpoint's key out of shape (why is read again from the key); throws RunError if it is in shape. */
  loadOutOfShape(key: string, revision: number): void {
    if (this.put(key, revision, EMPTY).outOfShape === undefined) throw new RunError(`the key "${key}" listed out of shape is in shape`);
  }

  /** This store's id of `kind` (a checkpoint's kinds block), given now if it has none. */
  kindId(kind: string): number {
    return this.kindCounts.idFor(kind);
  }

  private put(key: string, revision: number, value: Uint8Array): Change {
    const d = this.spec.decode(key, value, revision);
    if (d.ok) {
      this.removeOutOfShape(key, revision);
      const hash = hashKey(key);
      let slot = this.table.get(key, hash);
      const isNew = slot < 0;
      const previousBytes = isNew ? 0 : (this.slots.jsonLen[slot] as number);
      if (slot >= 0) {
        // The new record first: the old one is then dead for any compaction its release sets off.
        const seg = this.slots.seg[slot] as number;
        const bytes = this.recordLength(slot);
        writeRecord(this.arena, this.slots, this.spec, slot, key, d, value, revision);
        this.arena.free(seg, bytes);
      } else {
        slot = this.slots.alloc();
        this.slots.hash[slot] = hash;
        writeRecord(this.arena, this.slots, this.spec, slot, key, d, value, revision);
        this.table.add(slot, hash);
        this.addToOrders(slot, key, d.fields);
      }
      if (d.value !== undefined) this.values.set(key, d.value);
      this.observer?.entryIn(key, d.fields, revision, this.slots.jsonLen[slot] as number, previousBytes);
      return new EntryPut(key, revision, this, slot);
    }
    this.removeEntry(key, revision);
    const json = JSON.stringify({ key, reason: d.reason });
    const rec: OutOfShapeKey = { key, revision, reason: d.reason, readable: d.readable, json, bytes: Buffer.byteLength(json) };
    const before = this.oos.put(rec);
    this.observer?.outOfShapeIn(rec, before === undefined);
    return { op: "put", key, revision, outOfShape: rec, newlyOutOfShape: before?.reason !== d.reason };
  }

  /** The first sync is complete: everything up to `lastSeq` of the stream is reflected. */
  markSynced(lastSeq: number): void {
    if (lastSeq > this.revision) this.revision = lastSeq;
    this.synced = true;
  }

  private addToOrders(slot: number, key: string, fields: Readonly<Record<string, string>>): void {
    this.orders.add(slot, key, fields);
    const kind = this.spec.kindOf?.(key);
    this.slots.kind[slot] = kind === undefined ? -1 : this.kindCounts.add(kind);
  }

  private removeEntry(key: string, revision: number): void {
    const slot = this.table.get(key);
    if (slot < 0) return;
    const fields = this.orders.indexed || this.observer !== undefined ? this.spec.fieldsOf(key) : {};
    this.observer?.entryOut(key, fields, revision, this.slots.jsonLen[slot] as number);
    this.orders.remove(key, fields);
    const id = this.slots.kind[slot] as number;
    if (id >= 0) this.kindCounts.remove(id);
    this.table.delete(key);
    this.values.delete(key);
    // Released first, so that a compaction the free sets off sees the record as dead.
    this.slots.release(slot);
    this.arena.free(this.slots.seg[slot] as number, this.recordLength(slot));
  }

  private removeOutOfShape(key: string, revision: number): void {
    const rec = this.oos.remove(key);
    if (rec !== undefined) this.observer?.outOfShapeOut(rec, revision);
  }

  /**
   * From now on tell `observer` of what comes and goes, after telling it of
   * every entry and out-of-shape key held now, as if each were put (a store
   * built aside and swapped in whole).
   */
  observeWith(observer: StoreObserver): void {
    this.observer = observer;
    replayTo(this, observer);
  }
}
