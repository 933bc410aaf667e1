/**
 * A run of a checkpoint's entries taken into a store at once (pure): the
 * records come laid out as the store keeps them, in key order, so whole ones
 * are copied into the arena a segment's run at a time (keyed ones get their
 * head written from the key's bytes, then the rest copied), and the key
 * order is built by appending, with no key string, no parse and no JSON
 * built per entry. What is made per entry is numbers in typed arrays: the
 * slot's columns, its hash (read from the key's bytes) and its place in the
 * key table.
 */
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { hashKeyBytes, type KeyTable } from "./key-table.js";
import type { KeyOrders } from "./key-orders.js";
import type { KindCounts } from "./kind-counts.js";
import type { RecordArena } from "./record-arena.js";
import type { Slots } from "./slots.js";
import type { BucketSpec } from "./spec.js";
import type { KeyBytesHead } from "./entry-head.js";
import { sameBytes, tokensLength } from "./key-bytes.js";

/** Entries of a checkpoint, as columns and their records back to back (`records[start, end)`). */
export interface RecordRun {
  readonly n: number;
  readonly keyLen: Int32Array;
  readonly jsonLen: Int32Array;
  readonly revision: Float64Array;
  /** The kind id each key names, in the store's own ids (-1: none). */
  readonly kind: Int32Array;
  /** Set where each record comes as its key then the JSON after its head, which this writes from the key; else records are whole. */
  readonly keyed?: KeyBytesHead | undefined;
  readonly records: Buffer;
  readonly start: number;
  readonly end: number;
}

/** The parts of a store a run is written into. */
export interface LoadTarget {
  readonly spec: BucketSpec;
  readonly slots: Slots;
  readonly arena: RecordArena;
  readonly table: KeyTable;
  readonly orders: KeyOrders;
  readonly kindCounts: KindCounts;
  /** Where a record's key starts (after `{"key":"`). */
  readonly keyAt: number;
  keyOf(slot: number): string;
}

/** Why a run cannot be taken: the store built from it is to be dropped. */
export class RunError extends Error {
  override readonly name = "RunError";
}

/** Whether the key at `a` sorts strictly before the key at `b` (bytes, as code units of ASCII keys). */
function before(buf: Buffer, a: number, aLen: number, bBuf: Buffer, b: number, bLen: number): boolean {
  const l = aLen < bLen ? aLen : bLen;
  for (let k = 0; k < l; k++) {
    const d = (buf[a + k] as number) - (bBuf[b + k] as number);
    if (d !== 0) return d < 0;
  }
  return aLen < bLen;
}

/**
 * Take `run` into `t`: every key after the last one held, each once. Throws
 * RunError when the run is not what a checkpoint's writer makes (keys out
 * of order, lengths that do not add up).
 */
export function loadRun(t: LoadTarget, run: RecordRun): void {
  if (t.spec.head === undefined) throw new ProvisionerError("INTERNAL", `the ${t.spec.what} store keeps the key before its JSON: it is not loaded in bulk`);
  const placed = new Int32Array(run.n);
  const end = run.keyed === undefined ? placeWhole(t, run, placed) : placeKeyed(t, run, run.keyed, placed);
  if (end !== run.end) throw new RunError("the records do not add up to the run's bytes");
  indexRun(t, run, placed);
}

/** A slot for entry `i` of `run` with a record of `bytes` reserved in the arena (`seg`, `off` in its columns), the rest of its columns set. */
function place(t: LoadTarget, run: RecordRun, i: number, bytes: number): number {
  const { slots } = t;
  const slot = slots.alloc();
  const p = t.arena.reserve(slot, bytes);
  slots.seg[slot] = p.seg;
  slots.off[slot] = p.off;
  slots.keyLen[slot] = run.keyLen[i] as number;
  slots.jsonLen[slot] = run.jsonLen[i] as number;
  slots.revision[slot] = run.revision[i] as number;
  slots.kind[slot] = run.kind[i] as number;
  return slot;
}

/** Whole records, copied a segment's run at a time; returns where they end. */
function placeWhole(t: LoadTarget, run: RecordRun, placed: Int32Array): number {
  const segs = t.arena.segs;
  let at = run.start;
  // Records are reserved one by one (the arena starts a segment when one is full) and copied a segment's run at a time.
  let copyFrom = at;
  let copySeg = -1;
  let copyTo = 0;
  let copyEnd = 0;
  for (let i = 0; i < run.n; i++) {
    const keyLen = run.keyLen[i] as number;
    const jsonLen = run.jsonLen[i] as number;
    const bytes = jsonLen + 1;
    if (keyLen < 1 || t.keyAt + keyLen >= jsonLen || at + bytes > run.end) throw new RunError("an entry's lengths do not fit its record");
    const slot = place(t, run, i, bytes);
    const seg = t.slots.seg[slot] as number;
    const off = t.slots.off[slot] as number;
    if (seg !== copySeg || off !== copyEnd) {
      if (copySeg >= 0) run.records.copy(segs[copySeg] as Buffer, copyTo, copyFrom, at);
      copySeg = seg;
      copyTo = off;
      copyFrom = at;
    }
    copyEnd = off + bytes;
    at += bytes;
    placed[i] = slot;
  }
  if (copySeg >= 0) run.records.copy(segs[copySeg] as Buffer, copyTo, copyFrom, at);
  return at;
}

/** Records as a key then the JSON after the head: the head written from the key, the rest copied; returns where they end. */
function placeKeyed(t: LoadTarget, run: RecordRun, keyed: KeyBytesHead, placed: Int32Array): number {
  const { records } = run;
  let at = run.start;
  for (let i = 0; i < run.n; i++) {
    const keyLen = run.keyLen[i] as number;
    const jsonLen = run.jsonLen[i] as number;
    const head = keyed.lengthFor(keyLen);
    // The key, then the JSON after its head, then a comma.
    const rest = jsonLen - head + 1;
    if (keyLen < 1 || rest < 2 || at + keyLen + rest > run.end) throw new RunError("an entry's lengths do not fit its record");
    const slot = place(t, run, i, jsonLen + 1);
    const seg = t.arena.segs[t.slots.seg[slot] as number] as Buffer;
    const off = t.slots.off[slot] as number;
    keyed.writeFromKey(seg, off, records, at, keyLen);
    at += keyLen;
    records.copy(seg, off + head, at, at + rest);
    at += rest;
    placed[i] = slot;
  }
  return at;
}

/** Hash, order, count and index the slots just placed. */
function indexRun(t: LoadTarget, run: RecordRun, placed: Int32Array): void {
  const { slots, arena, keyAt, table, orders, kindCounts, spec } = t;
  const lastSlot = orders.all.last() ?? -1;
  let prevBuf = lastSlot >= 0 ? (arena.segs[slots.seg[lastSlot] as number] as Buffer) : undefined;
  let prevAt = lastSlot >= 0 ? (slots.off[lastSlot] as number) + keyAt : 0;
  let prevLen = lastSlot >= 0 ? (slots.keyLen[lastSlot] as number) : 0;
  const leading = spec.leadingField !== undefined;
  let leadBuf: Buffer | undefined;
  let leadAt = 0;
  let leadLen = 0;
  let leadCount = 0;
  const flushLead = (): void => {
    if (leadBuf !== undefined && leadCount > 0) orders.addLeading(leadBuf.toString("latin1", leadAt, leadAt + leadLen), leadCount);
  };
  for (let i = 0; i < run.n; i++) {
    const slot = placed[i] as number;
    const buf = arena.segs[slots.seg[slot] as number] as Buffer;
    const at = (slots.off[slot] as number) + keyAt;
    const len = slots.keyLen[slot] as number;
    if (prevBuf !== undefined && !before(prevBuf, prevAt, prevLen, buf, at, len)) throw new RunError("its keys are not in order");
    const hash = hashKeyBytes(buf, at, len);
    slots.hash[slot] = hash;
    table.add(slot, hash);
    const kind = slots.kind[slot] as number;
    if (kind >= 0) kindCounts.addId(kind);
    if (leading) {
      // The leading field is the key's first token.
      const l = tokensLength(buf, at, len, 1);
      if (leadBuf === undefined || l !== leadLen || !sameBytes(buf, at, leadBuf, leadAt, l)) {
        flushLead();
        leadBuf = buf;
        leadAt = at;
        leadLen = l;
        leadCount = 0;
      }
      leadCount++;
    }
    prevBuf = buf;
    prevAt = at;
    prevLen = len;
  }
  flushLead();
  orders.appendSorted(placed, run.n);
  if (orders.indexed) {
    for (let i = 0; i < run.n; i++) {
      const slot = placed[i] as number;
      const key = t.keyOf(slot);
      orders.addToIndexes(slot, key, spec.fieldsOf(key));
    }
  }
}
