/**
 * Strings into and out of Buffers on the hot paths, through Node's own
 * per-encoding Buffer methods (`utf8Write`, `latin1Write`, `latin1Slice`,
 * `utf8Slice`). They are what `buf.write(s, at, enc)` and `buf.toString(enc,
 * a, b)` call after checking their arguments, and those checks cost more than
 * the copy itself for the short keys and heads a store writes by the million
 * (docs/benchmarks.md).
 * They are not in Node's typings, hence this one typed door.
 */
interface NodeBufferCodecs {
  utf8Write(s: string, offset: number): number;
  latin1Write(s: string, offset: number): number;
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

const codecs = (buf: Buffer): NodeBufferCodecs => buf as unknown as NodeBufferCodecs;
/** The readers, called on any byte view: they read the view's bytes whatever its class. */
const { latin1Slice, utf8Slice } = Buffer.prototype as unknown as NodeBufferCodecs;

/** Write `s` as UTF-8 at `at` (room checked by the caller); returns the bytes written. */
export const writeUtf8 = (buf: Buffer, s: string, at: number): number => codecs(buf).utf8Write(s, at);

/** Write `s`, known to be ASCII, at `at`; returns the bytes written. */
export const writeAscii = (buf: Buffer, s: string, at: number): number => codecs(buf).latin1Write(s, at);

export const readUtf8 = (buf: Uint8Array, start: number, end: number): string => utf8Slice.call(buf, start, end);

/** Read bytes known to be ASCII as a string. */
export const readAscii = (buf: Uint8Array, start: number, end: number): string => latin1Slice.call(buf, start, end);

/** How many decimal digits a whole number from 0 to 2^53 has. */
export function wholeDigits(n: number): number {
  let d = 1;
  for (let p = 10; p <= n; p *= 10) d++;
  return d;
}

/** Write a whole number from 0 to 2^53 in decimal at `at`, without making its string; returns the digits written. */
export function writeWhole(buf: Buffer, n: number, at: number): number {
  const d = wholeDigits(n);
  for (let i = at + d - 1; i >= at; i--) {
    const q = Math.floor(n / 10);
    buf[i] = 0x30 + (n - q * 10);
    n = q;
  }
  return d;
}

/** The decimal digits of `buf` from `from` to `to` (exclusive) as a number, read without making their string; -1 if empty or not all digits. */
export function readWhole(buf: Uint8Array, from: number, to: number): number {
  if (to <= from) return -1;
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = buf[i] as number;
    if (c < 0x30 || c > 0x39) return -1;
    n = n * 10 + (c - 0x30);
  }
  return n;
}

/** Bytes `from`..`to` of `buf` as a plain `Uint8Array` view (a Buffer's `subarray` builds a Buffer subclass, which costs more). */
export function viewOf(buf: Uint8Array, from: number, to: number): Uint8Array {
  return new Uint8Array(buf.buffer, buf.byteOffset + from, to - from);
}

/** Copy a few bytes without Buffer.copy's call and argument checks (which cost more than the copy of a token); returns the bytes copied. */
export function copySmall(src: Uint8Array, from: number, to: number, dst: Uint8Array, at: number): number {
  for (let i = from; i < to; i++) dst[at++] = src[i] as number;
  return to - from;
}

/** Whether `bytes[from, to)` begins with `prefix`, byte for byte. */
export function startsWith(bytes: Uint8Array, prefix: Uint8Array, from = 0, to = bytes.length): boolean {
  if (to - from < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[from + i] !== prefix[i]) return false;
  return true;
}
