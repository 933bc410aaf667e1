/**
 * How a store writes an entry's record into its arena (pure): the layout
 * `store.ts` describes.
 */
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { copySmall, wholeDigits, writeWhole } from "../../bytes.js";
import { isJsonUtf8 } from "./json-bytes.js";
import type { RecordArena } from "./record-arena.js";
import type { Slots } from "./slots.js";
import { utf8, valueFragment, type BucketSpec, type Decoded } from "./spec.js";

/** What follows an entry's value in its JSON: its revision, then the end of the object. */
const REVISION_OPEN = Buffer.from(',"revision":', "latin1");

/**
 * Write the slot's record: the spec's own JSON (the registry: the key, then
 * the JSON), or `head`, the value and the revision, where the value goes in
 * as its own bytes when they are JSON in UTF-8 and as a JSON string of its
 * text otherwise; then a comma.
 */
export function writeRecord(arena: RecordArena, s: Slots, spec: BucketSpec, slot: number, key: string, d: Decoded, value: Uint8Array, revision: number): void {
  s.revision[slot] = revision;
  s.keyLen[slot] = key.length;
  if (d.json !== undefined || spec.head === undefined) {
    if (d.json === undefined) throw new ProvisionerError("INTERNAL", `the ${spec.what} bucket's spec gives neither an entry's JSON nor its head`);
    const json = d.json;
    const jsonLen = Buffer.byteLength(json);
    const p = arena.reserve(slot, key.length + jsonLen + 1);
    const buf = arena.segs[p.seg] as Buffer;
    buf.write(key, p.off, "latin1");
    buf.write(json, p.off + key.length, "utf8");
    buf[p.off + key.length + jsonLen] = 0x2c;
    s.seg[slot] = p.seg;
    s.off[slot] = p.off;
    s.jsonLen[slot] = jsonLen;
    return;
  }
  const head = spec.head;
  // The slow path (a value that is not JSON, or not UTF-8): the value goes in as a JSON string of its text.
  const raw = isJsonUtf8(value);
  const fragment = raw ? undefined : valueFragment(utf8.decode(value));
  const valueLen = raw ? value.length : Buffer.byteLength(fragment as string);
  const jsonLen = head.bytes(key, d.fields) + valueLen + REVISION_OPEN.length + wholeDigits(revision) + 1;
  const p = arena.reserve(slot, jsonLen + 1);
  const buf = arena.segs[p.seg] as Buffer;
  let at = p.off;
  at += head.write(buf, at, key, d.fields);
  if (raw) {
    buf.set(value, at);
    at += value.length;
  } else at += buf.write(fragment as string, at, "utf8");
  at += copySmall(REVISION_OPEN, 0, REVISION_OPEN.length, buf, at);
  at += writeWhole(buf, revision, at);
  buf[at++] = 0x7d;
  buf[at] = 0x2c;
  s.seg[slot] = p.seg;
  s.off[slot] = p.off;
  s.jsonLen[slot] = jsonLen;
}
