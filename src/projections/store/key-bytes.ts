/**
 * A store's keys read as bytes where they lie in its records (pure): keys in
 * shape are ASCII tokens joined by dots, so bytes and code units agree.
 */

/** The dot between a key's tokens. */
export const DOT = 0x2e;

/** Whether `len` bytes of `a` from `aAt` equal those of `b` from `bAt`. */
export function sameBytes(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (a[aAt + k] !== b[bAt + k]) return false;
  return true;
}

/** The length of the key's first `tokens` tokens, without the dot after them (the whole key when it has no more). */
export function tokensLength(buf: Uint8Array, at: number, len: number, tokens: number): number {
  let dots = 0;
  for (let k = 0; k < len; k++) if (buf[at + k] === DOT && ++dots === tokens) return k;
  return len;
}
