/**
 * What a store hands its readers (pure): a view of one entry made on demand,
 * an out-of-shape key, a change as it was applied, and the observer told of
 * every entry that comes and goes. None of them is kept by the store.
 */
import type { BucketSpec } from "./spec.js";

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
  /**
   * `count` entries in shape, new to the observer, whose keys share the
   * leading tokens their bucket is counted by (`BucketSpec.countedTokens`):
   * `fields` are the first one's, and only those tokens' fields hold for all;
   * `revision` is the greatest of theirs, `bytes` the size of their entries.
   * A store tells a whole content so (see `replay.ts`).
   */
  entriesIn(fields: Readonly<Record<string, string>>, count: number, revision: number, bytes: number): void;
  /** An entry in shape of `bytes` left the store (deleted, or now out of shape), at `revision`. */
  entryOut(key: string, fields: Readonly<Record<string, string>>, revision: number, bytes: number): void;
  /** A key out of shape was put; `isNew` when it was not out of shape before. */
  outOfShapeIn(rec: OutOfShapeKey, isNew: boolean): void;
  /** A key out of shape left (deleted, or now in shape), at `revision`. */
  outOfShapeOut(rec: OutOfShapeKey, revision: number): void;
}

/** What a put reads its entry through, once asked: the store, while the slot still holds the entry at that revision. */
export interface EntryReader {
  viewIfAt(slot: number, revision: number): Projected | undefined;
  jsonIfAt(slot: number, revision: number): EntryJson | undefined;
}

/** A put of an entry in shape: its view is made only if someone reads it (a snapshot's puts are never read). */
export class EntryPut implements Change {
  readonly op = "put";
  readonly newlyOutOfShape = false;
  private view: Projected | undefined;

  constructor(
    readonly key: string,
    readonly revision: number,
    private readonly store: EntryReader,
    private readonly slot: number,
  ) {}

  get entry(): Projected | undefined {
    return (this.view ??= this.store.viewIfAt(this.slot, this.revision));
  }

  entryJson(): EntryJson | undefined {
    return this.store.jsonIfAt(this.slot, this.revision);
  }
}
