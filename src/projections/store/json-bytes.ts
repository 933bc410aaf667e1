/**
 * Whether some bytes are one JSON text (RFC 8259) in well-formed UTF-8,
 * checked in place without decoding them or building anything (pure).
 *
 * Why: a value that is JSON goes into answers as its own bytes. Checking it
 * with JSON.parse meant decoding it to a string and building the parsed value
 * only to throw both away, for every key of every snapshot. This walks the
 * bytes once and allocates nothing but a small stack for nesting.
 *
 * It answers exactly as `JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes))`
 * succeeding would (a property test holds it to that): so a leading BOM or
 * any byte sequence that is not UTF-8 is "no", and such values take the slow
 * path (decoded, then checked with JSON.parse).
 */

const OBJECT = 1;
const ARRAY = 2;

function isWs(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

function isHex(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
}

/** Bytes that may stand for themselves inside a JSON string: printable ASCII but `"` and `\`. */
const PLAIN = new Uint8Array(256);
for (let b = 0x20; b < 0x80; b++) PLAIN[b] = b === 0x22 || b === 0x5c ? 0 : 1;

/** The end of the string starting after its opening quote at `i`, past its closing quote; -1 when malformed. */
function skipString(s: Uint8Array, i: number, end: number): number {
  while (i < end) {
    // The common case first: a run of plain bytes.
    while (i < end && PLAIN[s[i] as number] === 1) i++;
    if (i >= end) return -1;
    const b = s[i] as number;
    if (b === 0x22) return i + 1;
    if (b === 0x5c) {
      const e = s[i + 1];
      if (e === undefined || i + 1 >= end) return -1;
      if (e === 0x75) {
        if (i + 6 > end) return -1;
        for (let k = i + 2; k < i + 6; k++) if (!isHex(s[k] as number)) return -1;
        i += 6;
      } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2;
      } else return -1;
    } else if (b < 0x20) {
      return -1;
    } else if (b < 0x80) {
      i++;
    } else {
      i = skipUtf8(s, i, end);
      if (i < 0) return -1;
    }
  }
  return -1;
}

/** Past one well-formed multi-byte UTF-8 sequence starting at `i`; -1 when it is not one. */
function skipUtf8(s: Uint8Array, i: number, end: number): number {
  const b = s[i] as number;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => k < end && (s[k] as number) >= lo && (s[k] as number) <= hi;
  if (b >= 0xc2 && b <= 0xdf) return cont(i + 1) ? i + 2 : -1;
  if (b === 0xe0) return cont(i + 1, 0xa0) && cont(i + 2) ? i + 3 : -1;
  if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) return cont(i + 1) && cont(i + 2) ? i + 3 : -1;
  if (b === 0xed) return cont(i + 1, 0x80, 0x9f) && cont(i + 2) ? i + 3 : -1;
  if (b === 0xf0) return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? i + 4 : -1;
  if (b >= 0xf1 && b <= 0xf3) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? i + 4 : -1;
  if (b === 0xf4) return cont(i + 1, 0x80, 0x8f) && cont(i + 2) && cont(i + 3) ? i + 4 : -1;
  return -1;
}

/** Past one number starting at `i`; -1 when malformed. */
function skipNumber(s: Uint8Array, i: number, end: number): number {
  if (s[i] === 0x2d) i++;
  if (i >= end) return -1;
  if (s[i] === 0x30) i++;
  else if (isDigit(s[i] as number)) while (i < end && isDigit(s[i] as number)) i++;
  else return -1;
  if (i < end && s[i] === 0x2e) {
    i++;
    if (i >= end || !isDigit(s[i] as number)) return -1;
    while (i < end && isDigit(s[i] as number)) i++;
  }
  if (i < end && (s[i] === 0x65 || s[i] === 0x45)) {
    i++;
    if (i < end && (s[i] === 0x2b || s[i] === 0x2d)) i++;
    if (i >= end || !isDigit(s[i] as number)) return -1;
    while (i < end && isDigit(s[i] as number)) i++;
  }
  return i;
}

function skipLiteral(s: Uint8Array, i: number, end: number, word: readonly number[]): number {
  if (i + word.length > end) return -1;
  for (let k = 0; k < word.length; k++) if (s[i + k] !== word[k]) return -1;
  return i + word.length;
}

const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

/** Whether `s[start, end)` is exactly one JSON text in UTF-8 (whitespace around it allowed). */
/** The nesting stack, kept between calls (allocating a typed array per call cost more than the walk). */
let shared = new Uint8Array(64);

export function isJsonUtf8(s: Uint8Array, start = 0, end = s.length): boolean {
  let stack = shared;
  let depth = 0;
  let i = start;
  // true: a value is expected next; false: a separator or a closing bracket.
  let wantValue = true;
  for (;;) {
    while (i < end && isWs(s[i] as number)) i++;
    // Only reached inside a container or before the first value: the text ended too soon.
    if (i >= end) return false;
    const b = s[i] as number;
    if (wantValue) {
      if (b === 0x7b || b === 0x5b) {
        if (depth === stack.length) {
          const bigger = new Uint8Array(stack.length * 2);
          bigger.set(stack);
          stack = shared = bigger;
        }
        stack[depth++] = b === 0x7b ? OBJECT : ARRAY;
        i++;
        while (i < end && isWs(s[i] as number)) i++;
        if (i < end && s[i] === (b === 0x7b ? 0x7d : 0x5d)) {
          depth--;
          i++;
          wantValue = false;
          if (depth === 0) return trailingOnly(s, i, end);
          continue;
        }
        // An object's first member starts with its name.
        if (b === 0x7b && (i = skipMemberName(s, i, end)) < 0) return false;
        continue;
      }
      if (b === 0x22) i = skipString(s, i + 1, end);
      else if (b === 0x2d || isDigit(b)) i = skipNumber(s, i, end);
      else if (b === 0x74) i = skipLiteral(s, i, end, TRUE);
      else if (b === 0x66) i = skipLiteral(s, i, end, FALSE);
      else if (b === 0x6e) i = skipLiteral(s, i, end, NULL);
      else return false;
      if (i < 0) return false;
      wantValue = false;
      if (depth === 0) return trailingOnly(s, i, end);
      continue;
    }
    // After a value inside a container: a comma or the container's close.
    const top = stack[depth - 1];
    if (b === 0x2c) {
      i++;
      if (top === OBJECT && (i = skipMemberName(s, i, end)) < 0) return false;
      wantValue = true;
      continue;
    }
    if ((top === OBJECT && b === 0x7d) || (top === ARRAY && b === 0x5d)) {
      depth--;
      i++;
      if (depth === 0) return trailingOnly(s, i, end);
      continue;
    }
    return false;
  }
}

/** Past a member's name and its colon (whitespace around them allowed) from `i`; -1 when malformed. */
function skipMemberName(s: Uint8Array, i: number, end: number): number {
  while (i < end && isWs(s[i] as number)) i++;
  if (s[i] !== 0x22) return -1;
  i = skipString(s, i + 1, end);
  if (i < 0) return -1;
  while (i < end && isWs(s[i] as number)) i++;
  return s[i] === 0x3a ? i + 1 : -1;
}

function trailingOnly(s: Uint8Array, i: number, end: number): boolean {
  while (i < end && isWs(s[i] as number)) i++;
  return i === end;
}
