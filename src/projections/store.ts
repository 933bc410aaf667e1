/**
 * The in-memory store of one bucket (pure): apply a watch entry, keep entries
 * decoded once, out-of-shape keys with their reasons, one index per narrowing,
 * key order for paging, and the revision applied. No I/O, no clock.
 */
import type { BucketSpec } from "./spec.js";
import { SortedKeys } from "./sorted-keys.js";

export type Operation = "PUT" | "DEL" | "PURGE";

/**
 * One entry in shape. It keeps the value's text as stored and renders the
 * entry's JSON (as the verb answers it) the first time it is asked for, then
 * keeps that: entries never answered cost no JSON work and no second copy.
 */
export class Projected {
  private rendered: string | undefined;

  constructor(
    readonly key: string,
    readonly revision: number,
    private readonly text: string,
    private readonly spec: BucketSpec,
    readonly value?: unknown,
  ) {}

  /** The fields of the key (node, module, …), read from the key when asked: not kept per entry. */
  get fields(): Readonly<Record<string, string>> {
    return this.spec.fieldsOf(this.key);
  }

  /** The entry as the verb answers it (JSON text, without `answered`). */
  get json(): string {
    return (this.rendered ??= this.spec.render(this.key, this.fields, this.text, this.revision));
  }

  /** The kind its key names (needs), read from the key without building the fields; undefined where keys name none. */
  get kind(): string | undefined {
    return this.spec.kindOf?.(this.key);
  }

  /** The size of `json` in UTF-8 bytes. */
  get bytes(): number {
    return Buffer.byteLength(this.json);
  }
}

/** What replaces an entry JSON's closing brace when the registry does not answer its kind (needs). */
export const ANSWERED_FALSE = ',"answered":false}';

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
  /** What the key holds after the change (none for a delete). */
  readonly entry?: Projected;
  readonly outOfShape?: OutOfShapeKey;
  /** True the first time a key is seen out of shape with this reason (log it once). */
  readonly newlyOutOfShape: boolean;
}

interface Index {
  readonly fields: readonly string[];
  readonly name: string;
  readonly byValue: Map<string, SortedKeys>;
}

/** The index key of some field values: joined by a byte no token or name of ours uses alone. */
export const indexValue = (values: readonly string[]): string => values.join("\u0000");

export class ProjectionStore {
  readonly spec: BucketSpec;
  /** The bucket's stream sequence this store has applied. */
  revision = 0;
  synced = false;
  readonly keys = new SortedKeys();
  readonly oosKeys = new SortedKeys();
  private readonly entries = new Map<string, Projected>();
  private readonly oos = new Map<string, OutOfShapeKey>();
  private readonly indexes: Index[];
  /** How many entries name each kind (buckets whose keys name one): a page checks `answered` per kind, not per entry. */
  private readonly kindCounts = new Map<string, number>();

  constructor(spec: BucketSpec) {
    this.spec = spec;
    this.indexes = spec.indexes.map((fields) => ({ fields, name: fields.join("+"), byValue: new Map() }));
  }

  get size(): number {
    return this.entries.size;
  }

  get outOfShapeCount(): number {
    return this.oos.size;
  }

  get(key: string): Projected | undefined {
    return this.entries.get(key);
  }

  getOutOfShape(key: string): OutOfShapeKey | undefined {
    return this.oos.get(key);
  }

  allEntries(): IterableIterator<Projected> {
    return this.entries.values();
  }

  allOutOfShape(): IterableIterator<OutOfShapeKey> {
    return this.oos.values();
  }

  /** The kinds the entries name (empty for buckets whose keys name none). */
  kinds(): IterableIterator<string> {
    return this.kindCounts.keys();
  }

  /** Apply one entry of the watch. Entries at or below the applied revision are ignored (a resumed watch may repeat). */
  apply(operation: Operation, key: string, revision: number, value: Uint8Array): Change | null {
    if (revision <= this.revision) return null;
    this.revision = revision;
    if (operation !== "PUT") {
      this.removeEntry(key);
      this.removeOutOfShape(key);
      return { op: "delete", key, revision, newlyOutOfShape: false };
    }
    const d = this.spec.decode(key, value, revision);
    if (d.ok) {
      this.removeOutOfShape(key);
      const entry = new Projected(key, revision, d.text, this.spec, d.value);
      if (!this.entries.has(key)) this.addToIndexes(key, d.fields);
      this.entries.set(key, entry);
      return { op: "put", key, revision, entry, newlyOutOfShape: false };
    }
    this.removeEntry(key);
    const before = this.oos.get(key);
    const json = JSON.stringify({ key, reason: d.reason });
    const rec: OutOfShapeKey = { key, revision, reason: d.reason, readable: d.readable, json, bytes: Buffer.byteLength(json) };
    if (before === undefined) this.oosKeys.add(key, !this.synced);
    this.oos.set(key, rec);
    return { op: "put", key, revision, outOfShape: rec, newlyOutOfShape: before?.reason !== d.reason };
  }

  /** The first sync is complete: everything up to `lastSeq` of the stream is reflected. */
  markSynced(lastSeq: number): void {
    if (lastSeq > this.revision) this.revision = lastSeq;
    this.synced = true;
  }

  /**
   * The keys to scan for a narrowing, in key order: the most specific index
   * whose fields are all narrowed, else every key. `residual` lists the
   * narrowing fields the caller must still check on each entry.
   */
  candidates(filters: Readonly<Record<string, string>>): { keys: readonly string[]; residual: [string, string][] } {
    const narrowed = Object.keys(filters);
    let best: Index | undefined;
    for (const ix of this.indexes) {
      if (!ix.fields.every((f) => f in filters)) continue;
      if (best === undefined || ix.fields.length > best.fields.length) best = ix;
      else if (ix.fields.length === best.fields.length) {
        const a = ix.byValue.get(indexValue(ix.fields.map((f) => filters[f] as string)))?.size ?? 0;
        const b = best.byValue.get(indexValue(best.fields.map((f) => filters[f] as string)))?.size ?? 0;
        if (a < b) best = ix;
      }
    }
    const covered = new Set(best?.fields ?? []);
    const residual = narrowed.filter((f) => !covered.has(f)).map((f): [string, string] => [f, filters[f] as string]);
    if (best === undefined) return { keys: this.keys.view(), residual };
    const set = best.byValue.get(indexValue(best.fields.map((f) => filters[f] as string)));
    return { keys: set === undefined ? [] : set.view(), residual };
  }

  private addToIndexes(key: string, fields: Readonly<Record<string, string>>): void {
    const bulk = !this.synced;
    this.keys.add(key, bulk);
    const kind = this.spec.kindOf?.(key);
    if (kind !== undefined) this.kindCounts.set(kind, (this.kindCounts.get(kind) ?? 0) + 1);
    for (const ix of this.indexes) {
      const v = indexValue(ix.fields.map((f) => fields[f] as string));
      let set = ix.byValue.get(v);
      if (set === undefined) ix.byValue.set(v, (set = new SortedKeys()));
      set.add(key, bulk);
    }
  }

  private removeEntry(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.keys.remove(key);
    const kind = this.spec.kindOf?.(key);
    if (kind !== undefined) {
      const left = (this.kindCounts.get(kind) ?? 1) - 1;
      if (left > 0) this.kindCounts.set(kind, left);
      else this.kindCounts.delete(kind);
    }
    const fields = this.indexes.length > 0 ? e.fields : {};
    for (const ix of this.indexes) {
      const v = indexValue(ix.fields.map((f) => fields[f] as string));
      const set = ix.byValue.get(v);
      if (set === undefined) continue;
      set.remove(key);
      if (set.size === 0) ix.byValue.delete(v);
    }
  }

  private removeOutOfShape(key: string): void {
    if (this.oos.delete(key)) this.oosKeys.remove(key);
  }
}
