/**
 * An entry's JSON up to its value, `{"key":"<key>",<fields>,"value":`, written
 * straight into a store's record. One is written for every entry a store
 * takes in (100k of them in a first sync at 100k keys), so the common case
 * builds no string at all: where every field is one of the key's tokens,
 * verbatim and in order (needs, applied), the key is written once and each
 * field's bytes are copied from it. Building the same text as a string cost a
 * concatenated string, its flattening and its encoding per entry, about a
 * third of the store's time in a first sync (docs/benchmarks.md, "Start cost").
 */
import { copySmall, writeAscii, writeUtf8 } from "./bytes.js";

export interface EntryHead {
  /** Its length in bytes for an entry whose key is in shape (`fields` read from it). */
  bytes(key: string, fields: Readonly<Record<string, string>>): number;
  /** Write it at `at` (room checked by the caller); returns the bytes written, the same as `bytes()`. */
  write(buf: Buffer, at: number, key: string, fields: Readonly<Record<string, string>>): number;
}

const KEY_OPEN = Buffer.from('{"key":"', "latin1");
const DOT = 0x2e;

/**
 * The head of a bucket whose keys are dot-separated plain tokens (ASCII, never
 * escaped in JSON), each the field of the same rank in `fields`.
 */
export class TokenHead implements EntryHead {
  /** `","<field>":"` before each field's token, then `","value":` after the last. */
  private readonly joins: Buffer[];
  private readonly fixed: number;

  constructor(readonly fields: readonly string[]) {
    this.joins = [...fields.map((f) => Buffer.from(`","${f}":"`, "latin1")), Buffer.from('","value":', "latin1")];
    this.fixed = KEY_OPEN.length + this.joins.reduce((n, j) => n + j.length, 0);
  }

  /** The key, then its tokens without their dots: twice the key less the dots. */
  bytes(key: string): number {
    return this.fixed + 2 * key.length - (this.fields.length - 1);
  }

  write(buf: Buffer, at: number, key: string): number {
    const start = at;
    at += copySmall(KEY_OPEN, 0, KEY_OPEN.length, buf, at);
    const keyAt = at;
    at += writeAscii(buf, key, at);
    const keyEnd = at;
    let from = keyAt;
    for (const join of this.joins) {
      at += copySmall(join, 0, join.length, buf, at);
      if (from > keyEnd) break;
      let to = from;
      while (to < keyEnd && buf[to] !== DOT) to++;
      at += copySmall(buf, from, to, buf, at);
      from = to + 1;
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
    return writeUtf8(buf, this.text(key, fields), at);
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
