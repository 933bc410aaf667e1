/**
 * What a projection needs to know about its bucket: how to decode one key and
 * value (pure), which request fields narrow it, and which indexes serve them.
 */
import type { What } from "../keys/mod.js";

export interface Decoded {
  readonly ok: true;
  /** Fields read from the key (node, module, …), also the index values. */
  readonly fields: Readonly<Record<string, string>>;
  /**
   * What the store keeps to answer the entry: the value's text as stored. The
   * entry's JSON is rendered from it (by `render`) only when first answered,
   * so a bucket's snapshot costs no JSON work and no second copy per key.
   */
  readonly text: string;
  /** The parsed value, kept only where the service itself reads it (the registry). */
  readonly value?: unknown;
}

export interface Rejected {
  readonly ok: false;
  readonly reason: string;
  /** The key's tokens that could still be read, to match them against a narrowing. */
  readonly readable: Readonly<Partial<Record<string, string>>>;
}

export interface BucketSpec {
  readonly what: What;
  readonly bucket: string;
  /** The request fields that may narrow this bucket, in the order of the key. */
  readonly filters: readonly string[];
  /** Composite indexes, each a list of fields; the verb picks the most specific that applies. */
  readonly indexes: readonly (readonly string[])[];
  decode(key: string, value: Uint8Array, revision: number): Decoded | Rejected;
  /**
   * The fields of a key already known to be in shape, read again from the key:
   * entries do not keep them, which saves a record and its strings per key.
   */
  fieldsOf(key: string): Readonly<Record<string, string>>;
  /** The kind of a key already known to be in shape, where the bucket's keys name one (needs): read without building the fields. */
  kindOf?(key: string): string;
  /** The entry exactly as the verb answers it, as JSON text (without `answered`), from what decode kept. */
  render(key: string, fields: Readonly<Record<string, string>>, text: string, revision: number): string;
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

/** `{"key":…,<fields>,"value":…,"revision":N}` built by concatenation (hot path). */
export function entryJson(key: string, fields: readonly (readonly [string, string])[], valueFrag: string, revision: number): string {
  let s = `{"key":${JSON.stringify(key)}`;
  for (const [name, v] of fields) s += `,"${name}":${JSON.stringify(v)}`;
  return `${s},"value":${valueFrag},"revision":${revision}}`;
}
