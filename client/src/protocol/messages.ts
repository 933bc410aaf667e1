/**
 * The shapes a client reads (types only): what the verb answers and what the
 * feed carries, per bucket. docs/protocol.md describes each field.
 */
import type { What } from "./what.js";

export type { What };

interface Entry {
  /** The value: parsed JSON, or the string as stored when it is not JSON (absent when `valueTooLarge`). */
  readonly value?: unknown;
  /** The revision of the bucket's stream at which this value was written. */
  readonly revision: number;
  /** Set (true) instead of `value` when the value alone is over the connection's max payload. */
  readonly valueTooLarge?: true;
  readonly valueBytes?: number;
  readonly [field: string]: unknown;
}

/** An entry of a node bucket: its key as stored. */
interface NodeEntry extends Entry {
  /** The key as stored in the bucket. */
  readonly key: string;
}

/**
 * A registry entry: which domain answers a kind of placeholder, and where its
 * values live. Its key in the bucket is its `kind`; `key`, when present, is
 * the shape of the keys its domain answers with.
 */
export interface RegistryEntry extends Entry {
  readonly kind: string;
  readonly key?: string;
  readonly module?: string;
  readonly bucket?: string;
  readonly verb?: string;
}

/** A need: `<node>.<module>.<kind>.<name>`; `answered: false` when no domain answers its kind. */
export interface NeedsEntry extends NodeEntry {
  readonly node: string;
  readonly module: string;
  readonly kind: string;
  readonly name: string;
  readonly answered?: false;
}

/** What a node applied for a module: `<node>.<module>`. */
export interface AppliedEntry extends NodeEntry {
  readonly node: string;
  readonly module: string;
}

/** A collect item: `<node>.<collection as =hex>.<contributor>`; `collection` is the decoded name. */
export interface CollectEntry extends NodeEntry {
  readonly node: string;
  readonly collection: string;
  readonly contributor: string;
}

export interface EntryOf {
  registry: RegistryEntry;
  needs: NeedsEntry;
  applied: AppliedEntry;
  collect: CollectEntry;
}

export type AnyEntry = EntryOf[What];

/** A key out of its bucket's shape, with a reason a person can act on. */
export interface OutOfShape {
  readonly key: string;
  readonly reason: string;
}

/** The narrowing each bucket takes. */
export interface FiltersOf {
  registry: Record<never, never>;
  needs: { node?: string; module?: string };
  applied: { node?: string; module?: string };
  collect: { node?: string; contributor?: string; collection?: string };
}

/** A request to the verb: what, its narrowing, and `minRevision` (answer only once the projection reached it). */
export type ProvisionerRequest<W extends What = What> = { readonly what?: W; readonly minRevision?: number } & Readonly<FiltersOf[W]>;

/**
 * Said by an answer (and an error) whose projection has heard nothing from
 * its bucket's stream for longer than the instance's `--stale-after`: its
 * entries may be behind the bucket (an instance at a site cut off from its
 * hub). docs/protocol.md, "Stale answers".
 */
export interface Staleness {
  /** The last moment the projection heard from its stream: ISO 8601, UTC, milliseconds. */
  readonly since: string;
  /** How long before the answer that was, in ms, on the answering instance's own clock. */
  readonly silentMs: number;
  /** The revision the projection holds (the answer's). */
  readonly revision: number;
}

/** One page as the verb answers it. */
export interface Page<W extends What = What> {
  readonly what: W;
  readonly revision: number;
  /** Present only when the answer may be stale. */
  readonly stale?: Staleness;
  readonly entries: EntryOf[W][];
  readonly outOfShape: OutOfShape[];
  readonly next?: string;
}

/** Every page of an answer, merged. */
export interface Answer<W extends What = What> {
  readonly what: W;
  /** The highest revision any page was answered at. */
  readonly revision: number;
  readonly entries: EntryOf[W][];
  readonly outOfShape: OutOfShape[];
}

/** An event of the feed (`mesh-provisioner.feed.<what>.<key>`). */
export interface FeedEvent<W extends What = What> {
  readonly what: W;
  readonly op: "put" | "delete";
  readonly key: string;
  readonly revision: number;
  readonly entry?: EntryOf[W];
  readonly outOfShape?: OutOfShape;
}

/** The current view of what a watch asked for. */
export interface View<W extends What = What> {
  /** The highest revision of the bucket reflected. */
  readonly revision: number;
  /** False until the first snapshot is in, and while a fresh one is taken. */
  readonly synced: boolean;
  readonly entries: ReadonlyMap<string, EntryOf[W]>;
  readonly outOfShape: ReadonlyMap<string, OutOfShape>;
}
