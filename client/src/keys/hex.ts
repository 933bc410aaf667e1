/**
 * The =hex escaping of collection names (docs/protocol.md, "Keys"): every byte of the name's
 * UTF-8 form that is not one of `A-Z a-z 0-9 - _ /` is written `=` and two
 * upper-case hex digits. Only that one spelling is valid, so decodeName is strict
 * and decodeName(s).ok implies encodeName(decoded) === s.
 *
 * Both directions run for every key of a bucket: they use lookup tables, a fast
 * path for names that need no escaping, and no regex per byte.
 */

import { ProvisionerError } from "../protocol/errors.js";

/** 1 for the ASCII codes written as themselves: A-Z a-z 0-9 - _ / */
const UNESCAPED = new Uint8Array(128);
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_/") {
  UNESCAPED[ch.charCodeAt(0)] = 1;
}

/** ESCAPE[b] is "=XX" for byte b (upper-case hex). */
const ESCAPE: readonly string[] = Array.from({ length: 256 }, (_, b) => "=" + b.toString(16).toUpperCase().padStart(2, "0"));

/** Value of a hex digit (either case) by char code, else -1. */
const HEX = new Int8Array(128).fill(-1);
for (let v = 0; v < 16; v++) {
  const d = v.toString(16);
  HEX[d.charCodeAt(0)] = v;
  HEX[d.toUpperCase().charCodeAt(0)] = v;
}

const EQ = 0x3d; // "="

// ignoreBOM: keep a leading U+FEFF as part of the name (the default would strip it).
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Scratch buffer for decoding; grown on demand (decoding is synchronous). */
let scratch = new Uint8Array(256);

/** Escape a collection name for its key token. Throws BAD_REQUEST when it cannot be encoded. */
export function encodeName(name: string): string {
  const n = name.length;
  if (n === 0) throw new ProvisionerError("BAD_REQUEST", "a collection name must not be empty");
  let i = 0;
  while (i < n) {
    const c = name.charCodeAt(i);
    if (c >= 128 || UNESCAPED[c] === 0) break;
    i++;
  }
  if (i === n) return name; // fast path: nothing to escape

  let out = name.slice(0, i);
  for (; i < n; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x80) {
      out += UNESCAPED[c] === 1 ? name[i] : ESCAPE[c];
    } else if (c < 0x800) {
      out += ESCAPE[0xc0 | (c >> 6)]! + ESCAPE[0x80 | (c & 0x3f)]!;
    } else if (c < 0xd800 || c > 0xdfff) {
      out += ESCAPE[0xe0 | (c >> 12)]! + ESCAPE[0x80 | ((c >> 6) & 0x3f)]! + ESCAPE[0x80 | (c & 0x3f)]!;
    } else {
      const d = i + 1 < n ? name.charCodeAt(i + 1) : 0;
      if (c > 0xdbff || d < 0xdc00 || d > 0xdfff) {
        throw new ProvisionerError(
          "BAD_REQUEST",
          `collection name has a lone surrogate U+${c.toString(16).toUpperCase()} at character ${i + 1}; it cannot be written as UTF-8`,
        );
      }
      const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      out += ESCAPE[0xf0 | (cp >> 18)]! + ESCAPE[0x80 | ((cp >> 12) & 0x3f)]! + ESCAPE[0x80 | ((cp >> 6) & 0x3f)]! + ESCAPE[0x80 | (cp & 0x3f)]!;
      i++;
    }
  }
  return out;
}

export type Decoded = { ok: true; name: string } | { ok: false; reason: string };

const fail = (reason: string): Decoded => ({ ok: false, reason });

/** Read back a name from its escaped form; only the canonical spelling is accepted. */
export function decodeName(escaped: string): Decoded {
  const n = escaped.length;
  if (n === 0) return fail("the escaped name is empty");
  let i = 0;
  while (i < n) {
    const c = escaped.charCodeAt(i);
    if (c >= 128 || UNESCAPED[c] === 0) break;
    i++;
  }
  if (i === n) return { ok: true, name: escaped }; // fast path: no escapes

  if (scratch.length < n) scratch = new Uint8Array(Math.max(n, scratch.length * 2));
  const bytes = scratch;
  let k = 0;
  for (let j = 0; j < i; j++) bytes[k++] = escaped.charCodeAt(j);
  for (; i < n; i++) {
    const c = escaped.charCodeAt(i);
    if (c < 128 && UNESCAPED[c] === 1) {
      bytes[k++] = c;
      continue;
    }
    if (c !== EQ) return fail(badCharacter(escaped, i));
    const h = i + 1 < n ? escaped.charCodeAt(i + 1) : 128;
    const l = i + 2 < n ? escaped.charCodeAt(i + 2) : 128;
    const hv = h < 128 ? HEX[h]! : -1;
    const lv = l < 128 ? HEX[l]! : -1;
    if (hv < 0 || lv < 0) {
      return fail(`${seqAt(escaped, i)}: "=" must be followed by two upper-case hex digits (write "=3D" for "=" itself)`);
    }
    const b = (hv << 4) | lv;
    if (b < 128 && UNESCAPED[b] === 1) {
      const ch = String.fromCharCode(b);
      return fail(`${seqAt(escaped, i)} escapes "${ch}", which needs no escape; write "${ch}" itself`);
    }
    if (h >= 0x61 || l >= 0x61) {
      return fail(`${seqAt(escaped, i)} uses lower-case hex; write "${ESCAPE[b]}"`);
    }
    bytes[k++] = b;
    i += 2;
  }
  try {
    return { ok: true, name: UTF8.decode(bytes.subarray(0, k)) };
  } catch {
    return fail(explainUtf8(escaped, bytes.subarray(0, k)));
  }
}

/** The escape sequence starting at i, quoted, with its 1-based position. */
function seqAt(s: string, i: number): string {
  return `${JSON.stringify(s.slice(i, i + 3))} at character ${i + 1}`;
}

function badCharacter(s: string, i: number): string {
  const cp = s.codePointAt(i)!;
  const ch = String.fromCodePoint(cp);
  const u = "U+" + cp.toString(16).toUpperCase().padStart(4, "0");
  const lone = cp >= 0xd800 && cp <= 0xdfff;
  const hint = lone ? "" : `; write it as ${JSON.stringify(encodeName(ch))}`;
  return `character ${i + 1} ${JSON.stringify(ch)} (${u}) is not allowed in an escaped name (only A-Z a-z 0-9 - _ / and =XX escapes)${hint}`;
}

/**
 * Slow path, only for names that failed to decode: find the first ill-formed UTF-8
 * sequence (Unicode Table 3-7) and name it by its escaped spelling and position.
 */
function explainUtf8(escaped: string, bytes: Uint8Array): string {
  const bad = firstIllFormed(bytes);
  if (bad === null) return "the escaped bytes are not valid UTF-8";
  // Map byte offsets back to positions in `escaped`: each byte is one char or one "=XX".
  let pos = 0;
  for (let b = 0; b < bad.start; b++) pos += escaped.charCodeAt(pos) === EQ ? 3 : 1;
  let end = pos;
  for (let b = bad.start; b < bad.end; b++) end += escaped.charCodeAt(end) === EQ ? 3 : 1;
  return `bytes are not valid UTF-8: ${JSON.stringify(escaped.slice(pos, end))} at character ${pos + 1} ${bad.why}`;
}

type IllFormed = { start: number; end: number; why: string };

function firstIllFormed(bytes: Uint8Array): IllFormed | null {
  const k = bytes.length;
  let i = 0;
  while (i < k) {
    const b0 = bytes[i]!;
    if (b0 < 0x80) {
      i++;
      continue;
    }
    if (b0 < 0xc0) return { start: i, end: i + 1, why: "is a continuation byte without a lead byte" };
    if (b0 < 0xc2) return { start: i, end: i + 1, why: "starts an overlong encoding" };
    if (b0 > 0xf4) return { start: i, end: i + 1, why: "is a byte that never appears in UTF-8" };
    const need = b0 < 0xe0 ? 1 : b0 < 0xf0 ? 2 : 3;
    // The second byte's range is narrower after some lead bytes (Table 3-7).
    let lo = 0x80;
    let hi = 0xbf;
    let narrowWhy = "";
    if (b0 === 0xe0) {
      lo = 0xa0;
      narrowWhy = "is an overlong encoding";
    } else if (b0 === 0xed) {
      hi = 0x9f;
      narrowWhy = "encodes a surrogate (U+D800-U+DFFF)";
    } else if (b0 === 0xf0) {
      lo = 0x90;
      narrowWhy = "is an overlong encoding";
    } else if (b0 === 0xf4) {
      hi = 0x8f;
      narrowWhy = "encodes a code point above U+10FFFF";
    }
    for (let j = 1; j <= need; j++) {
      if (i + j >= k) return { start: i, end: k, why: "is cut short at the end of the name" };
      const b = bytes[i + j]!;
      const isCont = b >= 0x80 && b <= 0xbf;
      if (j === 1 && isCont && (b < lo || b > hi)) return { start: i, end: i + 2, why: narrowWhy };
      if (!isCont) return { start: i, end: i + j + 1, why: "is cut short (a continuation byte is missing)" };
    }
    i += need + 1;
  }
  return null;
}
