/**
 * Small byte helpers for the hot paths (pure): numbers written and read in
 * decimal without making their strings, views, short copies and prefixes.
 * Strings go into and out of Buffers through Buffer's own public methods
 * (`buf.write`, `buf.toString`), never through this file.
 */

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

/** Copy a few bytes without Buffer.copy's call and argument checks (which cost more than the copy of a token); returns the bytes copied. */
export function copySmall(src: Uint8Array, from: number, to: number, dst: Uint8Array, at: number): number {
  for (let i = from; i < to; i++) dst[at++] = src[i] as number;
  return to - from;
}
