/**
 * What a projection needs to know about its bucket: how to decode one key and
 * value (pure), which request fields narrow it, and which indexes serve them.
 */
import type { What } from "mesh-provisioner-client/keys";
import type { EntryHead } from "./entry-head.js";

export interface Decoded {
  readonly ok: true;
  /** Fields read from the key (node, module, …), also the index values. */
  readonly fields: Readonly<Record<string, string>>;
  /**
   * The entry's whole JSON, where the spec builds it itself (the registry).
   * Otherwise the store writes `head(key, fields)`, the value and the
   * revision straight into its records, with the value's own bytes when they
   * are JSON: no string per entry is ever kept.
   */
  readonly json?: string;
  /** The parsed value, kept only where the service itself reads it (the registry). */
  readonly value?: unknown;
}

export interface Rejected {
  readonly ok: false;
  readonly reason: string;
  /** The key's tokens that could still be read, to match them against a narrowing. */
  readonly readable: Readonly<Partial<Record<string, string>>>;
}

/**
 * How a narrowing is served from the bucket's key order, where the key's
 * leading tokens are narrowed: every key starting with `prefix`, or the one
 * key `exact`. `covered` lists the fields that this settles; the others are
 * checked on each entry.
 */
export interface KeyRange {
  readonly prefix?: string;
  readonly exact?: string;
  readonly covered: readonly string[];
}

export interface BucketSpec {
  readonly what: What;
  readonly bucket: string;
  /** The request fields that may narrow this bucket, in the order of the key. */
  readonly filters: readonly string[];
  /** Fields that are not leading tokens of the key yet are narrowed often: each gets an index (value -> keys in order). */
  readonly indexes: readonly string[];
  decode(key: string, value: Uint8Array, revision: number): Decoded | Rejected;
  /**
   * The fields of a key already known to be in shape, read again from the key:
   * entries do not keep them, which saves a record and its strings per key.
   */
  fieldsOf(key: string): Readonly<Record<string, string>>;
  /** The kind of a key already known to be in shape, where the bucket's keys name one (needs): read without building the fields. */
  kindOf?(key: string): string;
  /**
   * The key's leading tokens that observers count entries by (the overview:
   * node, module and kind of a need): keys sharing them are told to an
   * observer as one run (`StoreObserver.entriesIn`). Undefined: every key
   * on its own.
   */
  readonly countedTokens?: number;
  /** Writes the entry's JSON up to its value: `{"key":"<key>",<fields>,"value":` (the key first, unescaped: keys in shape are ASCII tokens). */
  readonly head?: EntryHead;
  /** The part of the key order a narrowing covers (undefined: no leading token is narrowed). */
  range?(filters: Readonly<Record<string, string>>): KeyRange | undefined;
  /**
   * The field that is the key's first token (node), whose entries the store
   * counts per value: a range narrowed by it alone then ends that many
   * entries after it starts, found without a second search.
   */
  readonly leadingField?: string;
}

export const utf8 = new TextDecoder("utf-8");

/**
 * The value as it goes into an answer: the stored text itself when it is JSON
 * (so it is parsed exactly once, by the reader), else the text as a JSON string.
 */
export function valueFragment(text: string): string {
  if (text.length > 0) {
    try {
      JSON.parse(text);
      return text;
    } catch {
      // not JSON: answered as the string stored
    }
  }
  return JSON.stringify(text);
}

/**
 * `{"key":"<key>",<fields>,"value":` (hot path: one per applied entry). Keys
 * and the fields read from them are plain tokens, which JSON writes as they
 * are; only a field listed in `free` (a collection's decoded name) is escaped.
 */
export function entryHead(key: string, fields: readonly (readonly [string, string])[], free?: string): string {
  let s = '{"key":"' + key + '"';
  for (const [name, v] of fields) s += name === free ? ',"' + name + '":' + JSON.stringify(v) : ',"' + name + '":"' + v + '"';
  return s + ',"value":';
}
