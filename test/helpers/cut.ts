/** `wire` cut at the points `at` names (each taken modulo its length + 1), as a socket may hand it over in reads. */
export function cut(wire: Uint8Array, at: number[]): Uint8Array[] {
  const points = [...new Set(at.map((p) => p % (wire.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, wire.length]) {
    if (p > from) chunks.push(wire.subarray(from, p));
    from = Math.max(from, p);
  }
  return chunks;
}
