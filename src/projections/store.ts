/**
 * The in-memory store of one bucket (pure): apply a watch entry, keep each
 * entry's JSON as the verb answers it, out-of-shape keys with their reasons,
 * key order for paging (which also serves narrowing by a key's leading
 * tokens), an index per other narrowed field, and the revision applied. No
 * I/O, no clock.
 *
 * Entries are slots (columns of typed arrays, `Slots`) whose JSON lives as
 * bytes in a `RecordArena` outside the JS heap; a `KeyTable` finds a key's
 * slot and an `OrderedSet` of slots keeps key order. A million entries are
 * then a few dozen objects for the garbage collector, and an answer is built
 * by copying bytes. `Projected` is a view of one entry made on demand (the
 * feed, the reconciler, the dump), never kept by the store.
 */
import { ProvisionerError } from "../protocol/errors.js";
import { copySmall, readAscii, readUtf8, wholeDigits, writeAscii, writeUtf8, writeWhole } from "../bytes.js";
import { hashKey, KeyTable } from "./key-table.js";
import { isJsonUtf8 } from "./json-bytes.js";
import { OrderedSet, STRING_ORDER, type Cursor, type Order } from "./ordered.js";
import { RecordArena } from "./record-arena.js";
import { Slots } from "./slots.js";
import { utf8, valueFragment, type BucketSpec, type Decoded } from "./spec.js";
import type { Operation } from "../streams/operation.js";

/** One entry in shape, as read from the store at one moment. */
export class Projected {
  constructor(
    readonly key: string,
    readonly revision: number,
    /** The entry as the verb answers it (JSON text, without `answered`). */
    readonly json: string,
    private readonly spec: BucketSpec,
    readonly value?: unknown,
  ) {}

  /** The fields of the key (node, module, …), read from the key. */
  get fields(): Readonly<Record<string, string>> {
    return this.spec.fieldsOf(this.key);
  }

  /** The kind its key names (needs); undefined where keys name none. */
  get kind(): string | undefined {
    return this.spec.kindOf?.(this.key);
  }

  /** The size of `json` in UTF-8 bytes. */
  get bytes(): number {
    return Buffer.byteLength(this.json);
  }
}

export { ANSWERED_FALSE } from "../protocol/answered.js";

export interface OutOfShapeKey {
  readonly key: string;
  readonly revision: number;
  readonly reason: string;
  readonly readable: Readonly<Partial<Record<string, string>>>;
  /** `{"key":…,"reason":…}` as answered, and its size in UTF-8 bytes. */
  readonly json: string;
  readonly bytes: number;
}

export interface Change {
  readonly op: "put" | "delete";
  readonly key: string;
  readonly revision: number;
  /**
   * What the key holds after the change (none for a delete). Read from the
   * store when first asked: read it before the store applies another change
   * to the key (it is undefined once the key has moved on).
   */
  readonly entry?: Projected;
  readonly outOfShape?: OutOfShapeKey;
  /** True the first time a key is seen out of shape with this reason (log it once). */
  readonly newlyOutOfShape: boolean;
  /**
   * The entry's JSON as the store holds it (bytes, no view made), with the
   * kind its key names: undefined where `entry` is. Read it at once, as
   * `entry`: the bytes are the store's and move with its next change.
   */
  entryJson?(): EntryJson | undefined;
}

/** An entry's JSON in the store's records: bytes `start` to `end` of `buf`, and the kind its key names (needs). */
export interface EntryJson {
  readonly buf: Buffer;
  readonly start: number;
  readonly end: number;
  readonly kind: string | undefined;
}

/**
 * Told of every entry and out-of-shape key that comes into or goes out of a
 * store, as it is applied (the snapshot included): what keeps counts that
 * follow the store, such as the mesh overview, without a scan per read.
 */
export interface StoreObserver {
  /**
   * An entry in shape was put: `bytes` is the size of its entry as answered,
   * `previousBytes` that of the entry it replaced (0: the key held no entry).
   */
  entryIn(key: string, fields: Readonly<Record<string, string>>, revision: number, bytes: number, previousBytes: number): void;
  /** An entry in shape of `bytes` left the store (deleted, or now out of shape), at `revision`. */
  entryOut(key: string, fields: Readonly<Record<string, string>>, revision: number, bytes: number): void;
  /** A key out of shape was put; `isNew` when it was not out of shape before. */
  outOfShapeIn(rec: OutOfShapeKey, isNew: boolean): void;
  /** A key out of shape left (deleted, or now in shape), at `revision`. */
  outOfShapeOut(rec: OutOfShapeKey, revision: number): void;
}

/** The slots a narrowing reads, in key order, in batches: `fill(out)` copies the next ones into `out` and says how many (0: done). */
export interface SlotScan {
  fill(out: Int32Array): number;
  /** One at a time (tests, small scans): the next slot, or -1. */
  next(): number;
  /** Narrowed fields the scan does not settle: check them on each entry. */
  readonly residual: readonly (readonly [string, string])[];
}

/** `next()`'s one-slot batch: scans are read synchronously, one at a time (a typed array per scan costs more than the scan). */
const ONE = new Int32Array(1);

/** What follows an entry's value in its JSON: its revision, then the end of the object. */
const REVISION_OPEN = Buffer.from(',"revision":', "latin1");

/** A scan over [from, to) of an ordered set of slots. */
class RangeScan implements SlotScan {

  constructor(
    private readonly set: OrderedSet<number> | undefined,
    private readonly from: Cursor,
    private readonly to: Cursor | undefined,
    readonly residual: readonly (readonly [string, string])[],
  ) {}

  fill(out: Int32Array): number {
    return this.set === undefined ? 0 : this.set.fill(this.from, this.to, out);
  }

  next(): number {
    return this.fill(ONE) === 1 ? (ONE[0] as number) : -1;
  }
}

/** A scan of one known slot. */
class OneScan implements SlotScan {
  private done = false;

  constructor(
    private readonly slot: number,
    readonly residual: readonly (readonly [string, string])[],
  ) {}

  fill(out: Int32Array): number {
    if (out.length === 0) return 0;
    const slot = this.next();
    if (slot < 0) return 0;
    out[0] = slot;
    return 1;
  }

  next(): number {
    if (this.done) return -1;
    this.done = true;
    return this.slot;
  }
}

const NO_SLOTS: SlotScan = new RangeScan(undefined, { leaf: 0, pos: 0 }, undefined, []);

/** The first key after every key that starts with `prefix` (which ends with "."): the same with its last character raised. */
function pastPrefix(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** A put of an entry in shape: its view is made only if someone reads it (a snapshot's puts are never read). */
class EntryPut implements Change {
  readonly op = "put";
  readonly newlyOutOfShape = false;
  private view: Projected | undefined;

  constructor(
    readonly key: string,
    readonly revision: number,
    private readonly store: ProjectionStore,
    private readonly slot: number,
  ) {}

  get entry(): Projected | undefined {
    return (this.view ??= this.store.viewIfAt(this.slot, this.revision));
  }

  entryJson(): EntryJson | undefined {
    return this.store.jsonIfAt(this.slot, this.revision);
  }
}


export class ProjectionStore {
  readonly spec: BucketSpec;
  /** The bucket's stream sequence this store has applied. */
  revision = 0;
  synced = false;
  private readonly slots = new Slots();
  private readonly arena: RecordArena;
  private readonly table: KeyTable;
  private readonly slotOrder: Order<number>;
  /** Every entry's slot in key order. */
  private readonly order: OrderedSet<number>;
  /** Out-of-shape keys: few, kept as plain objects. */
  private readonly oos = new Map<string, OutOfShapeKey>();
  readonly oosOrder = new OrderedSet<string>(STRING_ORDER);
  /** Entries per value of the spec's leading field (the key's first token): where a node's range ends. */
  private readonly leadingCounts = new Map<string, number>();
  /** Per indexed field: value -> slots in key order. */
  private readonly indexes: { readonly field: string; readonly byValue: Map<string, OrderedSet<number>> }[];
  /** Parsed values, where the spec keeps them (the registry). */
  private readonly values = new Map<string, unknown>();
  /** The kinds entries name (needs): id <-> name, and how many entries name each. */
  private readonly kindIds = new Map<string, number>();
  private readonly kindNames: string[] = [];
  private readonly kindCounts: number[] = [];

  /**
   * The layout of every record of this store: where the spec renders the
   * whole JSON itself (the registry) the key comes first and the JSON after
   * it; otherwise the JSON starts `{"key":"` and the key follows those 8
   * bytes. A comma ends each record.
   */
  private readonly keyFirst: boolean;
  private readonly keyAt: number;

  /** Told of what comes and goes (see StoreObserver); none for a store built aside. */
  private observer: StoreObserver | undefined;

  /**
   * `segmentBytes`: the size of the record arena's segments (tests make them
   * small to compact often); `observer`: told of what comes and goes.
   */
  constructor(spec: BucketSpec, opts: { segmentBytes?: number; observer?: StoreObserver } = {}) {
    this.spec = spec;
    this.observer = opts.observer;
    this.keyFirst = spec.head === undefined;
    this.keyAt = this.keyFirst ? 0 : 8;
    const slots = this.slots;
    this.arena = new RecordArena({
      offsetIn: (slot, seg) => (slots.seg[slot] === seg ? (slots.off[slot] as number) : -1),
      lengthOf: (slot) => this.recordLength(slot),
      moved: (slot, seg, off) => {
        slots.seg[slot] = seg;
        slots.off[slot] = off;
      },
    }, opts.segmentBytes);
    this.table = new KeyTable({ keyIs: (slot, key) => this.compareKey(key, slot) === 0, hashOf: (slot) => slots.hash[slot] as number });
    this.slotOrder = { compare: (key, slot) => this.compareKey(key, slot), keyOf: (slot) => this.keyOf(slot) };
    this.order = new OrderedSet(this.slotOrder);
    this.indexes = spec.indexes.map((field) => ({ field, byValue: new Map() }));
  }

  get size(): number {
    return this.table.size;
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

  /** Bytes of live records the arena has moved to compact its segments, so far. */
  get compactedBytes(): number {
    return this.arena.compactedBytes;
  }

  /** The slot of `key`'s entry, or -1. */
  slotOf(key: string): number {
    return this.table.get(key);
  }

  get(key: string): Projected | undefined {
    const slot = this.table.get(key);
    return slot < 0 ? undefined : this.view(slot);
  }

  getOutOfShape(key: string): OutOfShapeKey | undefined {
    return this.oos.get(key);
  }

  /** Every entry, as views made one at a time (dump, reconcile, rebuild): in key order. */
  *allEntries(): IterableIterator<Projected> {
    for (const slot of this.order) yield this.view(slot);
  }

  /** Every entry's key in order (tests and small buckets: a string per key). */
  entryKeys(): string[] {
    return this.order.keys();
  }

  /** Every out-of-shape key in order. */
  outOfShapeKeys(): string[] {
    return this.oosOrder.keys();
  }

  allOutOfShape(): IterableIterator<OutOfShapeKey> {
    return this.oos.values();
  }

  /** The kinds the entries name (empty for buckets whose keys name none). */
  *kinds(): IterableIterator<string> {
    for (let id = 0; id < this.kindNames.length; id++) if ((this.kindCounts[id] as number) > 0) yield this.kindNames[id] as string;
  }

  /** The ids (as in `kindOfSlot`) of the kinds some entry names and `keep` keeps: no generator, no string array, per answer. */
  kindIdsWhere(keep: (kind: string) => boolean): number[] {
    const out: number[] = [];
    for (let id = 0; id < this.kindNames.length; id++) if ((this.kindCounts[id] as number) > 0 && keep(this.kindNames[id] as string)) out.push(id);
    return out;
  }

  /** The id of `kind` in `kindOfSlot` (-1: no entry names it). */
  kindId(kind: string): number {
    return this.kindIds.get(kind) ?? -1;
  }

  /** The kind id of a slot's key (-1 where keys name none). */
  kindOfSlot(slot: number): number {
    return this.slots.kind[slot] as number;
  }

  keyOf(slot: number): string {
    const s = this.slots;
    const at = (s.off[slot] as number) + this.keyAt;
    return readAscii(this.arena.segs[s.seg[slot] as number] as Buffer, at, at + (s.keyLen[slot] as number));
  }

  /** Where a slot's JSON starts in its record. */
  private jsonAt(slot: number): number {
    return this.keyFirst ? (this.slots.keyLen[slot] as number) : 0;
  }

  /** A record's length: the key where it comes first, the JSON, a comma. */
  private recordLength(slot: number): number {
    return this.jsonAt(slot) + (this.slots.jsonLen[slot] as number) + 1;
  }

  /** The length of a slot's key (ASCII: bytes and characters alike). */
  keyLength(slot: number): number {
    return this.slots.keyLen[slot] as number;
  }

  revisionOf(slot: number): number {
    return this.slots.revision[slot] as number;
  }

  /** The buffer of a slot's record (see `jsonStart`). */
  bufferOf(slot: number): Buffer {
    return this.arena.segs[this.slots.seg[slot] as number] as Buffer;
  }

  /** Where a slot's entry JSON starts in `bufferOf(slot)`; it takes `jsonBytes(slot)` bytes, and a comma follows. */
  jsonStart(slot: number): number {
    return (this.slots.off[slot] as number) + this.jsonAt(slot);
  }

  /** Where a slot's entry JSON is: its segment and byte range (a comma follows it). */
  jsonOf(slot: number): { buf: Buffer; start: number; end: number } {
    const start = this.jsonStart(slot);
    return { buf: this.bufferOf(slot), start, end: start + this.jsonBytes(slot) };
  }

  jsonBytes(slot: number): number {
    return this.slots.jsonLen[slot] as number;
  }

  /** The entry of a slot as a view (decodes its JSON once). */
  view(slot: number): Projected {
    const key = this.keyOf(slot);
    const { buf, start, end } = this.jsonOf(slot);
    return new Projected(key, this.revisionOf(slot), readUtf8(buf, start, end), this.spec, this.values.get(key));
  }

  /** Whether a slot still holds the entry at `revision`. */
  private holdsAt(slot: number, revision: number): boolean {
    return this.slots.inUse(slot) && this.slots.revision[slot] === revision;
  }

  /** The view of a slot if it still holds the entry at `revision`. */
  viewIfAt(slot: number, revision: number): Projected | undefined {
    return this.holdsAt(slot, revision) ? this.view(slot) : undefined;
  }

  /** A slot's JSON bytes (`jsonOf`) and the kind its key names, if it still holds the entry at `revision` (see `Change.entryJson`). */
  jsonIfAt(slot: number, revision: number): EntryJson | undefined {
    if (!this.holdsAt(slot, revision)) return undefined;
    const id = this.slots.kind[slot] as number;
    return { ...this.jsonOf(slot), kind: id >= 0 ? this.kindNames[id] : undefined };
  }

  /**
   * The slots a narrowing reads, strictly after `after`, in key order: a
   * range of the key order when the key's leading tokens are narrowed, else
   * an index, else every slot; `residual` says what is left to check.
   */
  scan(filters: Readonly<Record<string, string>>, after: string | undefined): SlotScan {
    const names = Object.keys(filters);
    const range = names.length > 0 ? this.spec.range?.(filters) : undefined;
    const residualBut = (covered: readonly string[]): [string, string][] =>
      names.filter((f) => !covered.includes(f)).map((f): [string, string] => [f, filters[f] as string]);
    if (range?.exact !== undefined) {
      const slot = this.table.get(range.exact);
      if (slot < 0 || (after !== undefined && range.exact <= after)) return NO_SLOTS;
      return new OneScan(slot, residualBut(range.covered));
    }
    if (range?.prefix !== undefined) {
      const prefix = range.prefix;
      const fromStart = after === undefined || after < prefix;
      const from = fromStart ? this.order.seek(prefix, true) : this.order.seek(after);
      // A range of the leading field alone, from its start: it holds exactly that value's count of entries.
      const lead = this.spec.leadingField;
      const whole = fromStart && lead !== undefined && range.covered.length === 1 && range.covered[0] === lead;
      const to = whole ? this.order.ahead(from, this.leadingCounts.get(filters[lead] as string) ?? 0) : this.order.seek(pastPrefix(prefix), true);
      return new RangeScan(this.order, from, to, residualBut(range.covered));
    }
    for (const ix of this.indexes) {
      const v = filters[ix.field];
      if (v === undefined) continue;
      const set = ix.byValue.get(v);
      if (set === undefined) return NO_SLOTS;
      return new RangeScan(set, set.seek(after), undefined, residualBut([ix.field]));
    }
    return new RangeScan(this.order, this.order.seek(after), undefined, residualBut([]));
  }

  /** Out-of-shape keys strictly after `after`, in key order. */
  oosAfter(after: string | undefined): { next(): OutOfShapeKey | undefined } {
    const c = this.oosOrder.seek(after);
    return {
      next: () => {
        const key = this.oosOrder.at(c);
        if (key === undefined) return undefined;
        this.oosOrder.advance(c);
        return this.oos.get(key);
      },
    };
  }

  /** Apply one entry of the watch. Entries at or below the applied revision are ignored (a resumed watch may repeat). */
  apply(operation: Operation, key: string, revision: number, value: Uint8Array): Change | null {
    if (revision <= this.revision) return null;
    this.revision = revision;
    if (operation !== "PUT") {
      this.removeEntry(key, revision);
      this.removeOutOfShape(key, revision);
      return { op: "delete", key, revision, newlyOutOfShape: false };
    }
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
        this.write(slot, key, d, value, revision);
        this.arena.free(seg, bytes);
      } else {
        slot = this.slots.alloc();
        this.slots.hash[slot] = hash;
        this.write(slot, key, d, value, revision);
        this.table.add(slot, hash);
        this.addToOrders(slot, key, d.fields);
      }
      if (d.value !== undefined) this.values.set(key, d.value);
      this.observer?.entryIn(key, d.fields, revision, this.slots.jsonLen[slot] as number, previousBytes);
      return new EntryPut(key, revision, this, slot);
    }
    this.removeEntry(key, revision);
    const before = this.oos.get(key);
    const json = JSON.stringify({ key, reason: d.reason });
    const rec: OutOfShapeKey = { key, revision, reason: d.reason, readable: d.readable, json, bytes: Buffer.byteLength(json) };
    if (before === undefined) this.oosOrder.insert(key, key);
    this.oos.set(key, rec);
    this.observer?.outOfShapeIn(rec, before === undefined);
    return { op: "put", key, revision, outOfShape: rec, newlyOutOfShape: before?.reason !== d.reason };
  }

  /** The first sync is complete: everything up to `lastSeq` of the stream is reflected. */
  markSynced(lastSeq: number): void {
    if (lastSeq > this.revision) this.revision = lastSeq;
    this.synced = true;
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

  /**
   * Write the slot's record: the spec's own JSON (the registry: the key, then
   * the JSON), or `head`, the value and the revision, where the value goes in
   * as its own bytes when they are JSON in UTF-8 and as a JSON string of its
   * text otherwise; then a comma.
   */
  private write(slot: number, key: string, d: Decoded, value: Uint8Array, revision: number): void {
    const s = this.slots;
    s.revision[slot] = revision;
    s.keyLen[slot] = key.length;
    if (d.json !== undefined || this.spec.head === undefined) {
      if (d.json === undefined) throw new ProvisionerError("INTERNAL", `the ${this.spec.what} bucket's spec gives neither an entry's JSON nor its head`);
      const json = d.json;
      const jsonLen = Buffer.byteLength(json);
      const p = this.arena.reserve(slot, key.length + jsonLen + 1);
      const buf = this.arena.segs[p.seg] as Buffer;
      writeAscii(buf, key, p.off);
      writeUtf8(buf, json, p.off + key.length);
      buf[p.off + key.length + jsonLen] = 0x2c;
      s.seg[slot] = p.seg;
      s.off[slot] = p.off;
      s.jsonLen[slot] = jsonLen;
      return;
    }
    const head = this.spec.head;
    // The slow path (a value that is not JSON, or not UTF-8) decodes it as the answers always did.
    const raw = isJsonUtf8(value);
    const fragment = raw ? undefined : valueFragment(utf8.decode(value));
    const valueLen = raw ? value.length : Buffer.byteLength(fragment as string);
    const jsonLen = head.bytes(key, d.fields) + valueLen + REVISION_OPEN.length + wholeDigits(revision) + 1;
    const p = this.arena.reserve(slot, jsonLen + 1);
    const buf = this.arena.segs[p.seg] as Buffer;
    let at = p.off;
    at += head.write(buf, at, key, d.fields);
    if (raw) {
      buf.set(value, at);
      at += value.length;
    } else at += writeUtf8(buf, fragment as string, at);
    at += copySmall(REVISION_OPEN, 0, REVISION_OPEN.length, buf, at);
    at += writeWhole(buf, revision, at);
    buf[at++] = 0x7d;
    buf[at] = 0x2c;
    s.seg[slot] = p.seg;
    s.off[slot] = p.off;
    s.jsonLen[slot] = jsonLen;
  }

  private addToOrders(slot: number, key: string, fields: Readonly<Record<string, string>>): void {
    this.order.insert(key, slot);
    const lead = this.spec.leadingField;
    if (lead !== undefined) {
      const v = fields[lead] as string;
      this.leadingCounts.set(v, (this.leadingCounts.get(v) ?? 0) + 1);
    }
    const kind = this.spec.kindOf?.(key);
    let id = -1;
    if (kind !== undefined) {
      id = this.kindIds.get(kind) ?? -1;
      if (id < 0) {
        id = this.kindNames.length;
        this.kindIds.set(kind, id);
        this.kindNames.push(kind);
        this.kindCounts.push(0);
      }
      this.kindCounts[id] = (this.kindCounts[id] as number) + 1;
    }
    this.slots.kind[slot] = id;
    for (const ix of this.indexes) {
      const v = fields[ix.field] as string;
      let set = ix.byValue.get(v);
      if (set === undefined) ix.byValue.set(v, (set = new OrderedSet(this.slotOrder)));
      set.insert(key, slot);
    }
  }

  private removeEntry(key: string, revision: number): void {
    const slot = this.table.get(key);
    if (slot < 0) return;
    const fields = this.indexes.length > 0 || this.observer !== undefined ? this.spec.fieldsOf(key) : {};
    this.observer?.entryOut(key, fields, revision, this.slots.jsonLen[slot] as number);
    for (const ix of this.indexes) {
      const v = fields[ix.field] as string;
      const set = ix.byValue.get(v);
      if (set === undefined) continue;
      set.remove(key);
      if (set.size === 0) ix.byValue.delete(v);
    }
    this.order.remove(key);
    if (this.spec.leadingField !== undefined) {
      // The leading field is the key's first token.
      const v = key.slice(0, key.indexOf("."));
      const n = (this.leadingCounts.get(v) ?? 0) - 1;
      if (n > 0) this.leadingCounts.set(v, n);
      else this.leadingCounts.delete(v);
    }
    const id = this.slots.kind[slot] as number;
    if (id >= 0) this.kindCounts[id] = (this.kindCounts[id] as number) - 1;
    this.table.delete(key);
    this.values.delete(key);
    // Released first, so that a compaction the free sets off sees the record as dead.
    this.slots.release(slot);
    this.arena.free(this.slots.seg[slot] as number, this.recordLength(slot));
  }

  private removeOutOfShape(key: string, revision: number): void {
    if (this.oos.size === 0) return;
    const rec = this.oos.get(key);
    if (rec === undefined) return;
    this.oos.delete(key);
    this.oosOrder.remove(key);
    this.observer?.outOfShapeOut(rec, revision);
  }

  /**
   * From now on tell `observer` of what comes and goes, after telling it of
   * every entry and out-of-shape key held now, as if each were put (a store
   * built aside and swapped in whole).
   */
  observeWith(observer: StoreObserver): void {
    this.observer = observer;
    for (const slot of this.order) {
      const key = this.keyOf(slot);
      observer.entryIn(key, this.spec.fieldsOf(key), this.slots.revision[slot] as number, this.slots.jsonLen[slot] as number, 0);
    }
    for (const rec of this.oos.values()) observer.outOfShapeIn(rec, true);
  }
}
