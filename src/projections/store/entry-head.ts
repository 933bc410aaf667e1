/**
 * An entry's JSON up to its value, `{"key":"<key>",<fields>,"value":`, written
 * straight into a store's record. One is written for every entry a store
 * takes in (one per key in a first sync), so the common case
 * builds no string at all: where every field is one of the key's tokens,
 * verbatim and in order (needs, applied), the key is written once and each
 * field's bytes are copied from it. Building the same text as a string would
 * cost a concatenated string, its flattening and its encoding per entry, on
 * the first sync's clock (docs/benchmarks.md, "Start cost").
 */
import { DOT } from "./key-bytes.js";

export interface EntryHead {
  /** Its length in bytes for an entry whose key is in shape (`fields` read from it). */
  bytes(key: string, fields: Readonly<Record<string, string>>): number;
  /** Write it at `at` (room checked by the caller); returns the bytes written, the same as `bytes()`. */
  write(buf: Buffer, at: number, key: string, fields: Readonly<Record<string, string>>): number;
  /** Where the key's bytes alone make the head: how (a checkpoint then keeps the key, not the head). */
  readonly fromKey?: KeyBytesHead;
}

/** A head made from its key's bytes, with no string and no parse. */
export interface KeyBytesHead {
  /** The head's length for a key of `keyLength` bytes. */
  lengthFor(keyLength: number): number;
  /** Write the head of the key at `src[keyAt, keyAt + keyLength)` at `at` (room checked by the caller); returns `lengthFor(keyLength)`. */
  writeFromKey(buf: Uint8Array, at: number, src: Uint8Array, keyAt: number, keyLength: number): number;
}

const KEY_OPEN = Buffer.from('{"key":"', "latin1");

/**
 * The head of a bucket whose keys are dot-separated plain tokens (ASCII, never
 * escaped in JSON), each the field of the same rank in `fields`.
 */
export class TokenHead implements EntryHead, KeyBytesHead {
  readonly fromKey: KeyBytesHead = this;
  /** `","<field>":"` before each field's token, then `","value":` after the last: one run of bytes, */
  private readonly joins: Buffer;
  /** and where each join ends in it. */
  private readonly joinEnds: Int32Array;
  private readonly fixed: number;

  constructor(readonly fields: readonly string[]) {
    const joins = [...fields.map((f) => `","${f}":"`), '","value":'];
    this.joins = Buffer.from(joins.join(""), "latin1");
    let end = 0;
    this.joinEnds = Int32Array.from(joins, (j) => (end += j.length));
    this.fixed = KEY_OPEN.length + this.joins.length;
  }

  /** The key, then its tokens without their dots: twice the key less the dots. */
  bytes(key: string): number {
    return this.lengthFor(key.length);
  }

  lengthFor(keyLength: number): number {
    return this.fixed + 2 * keyLength - (this.fields.length - 1);
  }

  /** One pass over the key's characters for the key, one for its tokens; no call per token. */
  write(buf: Buffer, at: number, key: string): number {
    const start = at;
    for (let i = 0; i < KEY_OPEN.length; i++) buf[at++] = KEY_OPEN[i] as number;
    const length = key.length;
    for (let i = 0; i < length; i++) buf[at++] = key.charCodeAt(i);
    const joins = this.joins;
    const ends = this.joinEnds;
    const last = ends.length - 1;
    let j = 0;
    let k = 0;
    for (let f = 0; ; f++) {
      const end = ends[f] as number;
      while (j < end) buf[at++] = joins[j++] as number;
      if (f === last) break;
      for (let c: number; k < length && (c = key.charCodeAt(k++)) !== DOT;) buf[at++] = c;
    }
    return at - start;
  }

  /** `write`, from the key's bytes. */
  writeFromKey(buf: Uint8Array, at: number, src: Uint8Array, keyAt: number, keyLength: number): number {
    const start = at;
    for (let i = 0; i < KEY_OPEN.length; i++) buf[at++] = KEY_OPEN[i] as number;
    const keyEnd = keyAt + keyLength;
    for (let i = keyAt; i < keyEnd; i++) buf[at++] = src[i] as number;
    const joins = this.joins;
    const ends = this.joinEnds;
    const last = ends.length - 1;
    let j = 0;
    let k = keyAt;
    for (let f = 0; ; f++) {
      const end = ends[f] as number;
      while (j < end) buf[at++] = joins[j++] as number;
      if (f === last) break;
      for (let c: number; k < keyEnd && (c = src[k++] as number) !== DOT;) buf[at++] = c;
    }
    return at - start;
  }
}

/**
 * The head built as a string (a bucket with a field that is decoded from its
 * token, such as collect's =hex escaped collection name). The string of the
 * last key asked is kept for the write that follows its `bytes()`.
 */
export class StringHead implements EntryHead {
  private lastKey: string | undefined;
  private lastFields: Readonly<Record<string, string>> | undefined;
  private last = "";

  constructor(private readonly build: (key: string, fields: Readonly<Record<string, string>>) => string) {}

  bytes(key: string, fields: Readonly<Record<string, string>>): number {
    return Buffer.byteLength(this.text(key, fields));
  }

  write(buf: Buffer, at: number, key: string, fields: Readonly<Record<string, string>>): number {
    return buf.write(this.text(key, fields), at, "utf8");
  }

  private text(key: string, fields: Readonly<Record<string, string>>): string {
    if (key !== this.lastKey || fields !== this.lastFields) {
      this.last = this.build(key, fields);
      this.lastKey = key;
      this.lastFields = fields;
    }
    return this.last;
  }
}
