/**
 * Which answers are worth keeping: an answer goes into the answer cache only
 * when its request (with the revisions) was asked before, recently. A mesh
 * that restarts asks thousands of questions once each; keeping every one of
 * those answers would cost an LRU insertion and an eviction per request
 * (docs/benchmarks.md) for answers never asked again. A repeated question is built twice and served
 * from the cache from its third ask on.
 *
 * A table of 32-bit hashes, one per cell, each cell holding the last key that
 * fell there: a key is "seen" when its cell holds its hash. A collision can
 * let a key in on its first ask or keep one out on its second; either only
 * moves one answer in or out of the cache, never what is answered.
 */
/** One hash of a request's canonical text (`hashKey`) and the revisions its answer is built at: what the doorkeeper is offered. */
export function answerHash(keyHash: number, revision: number, registryRevision: number): number {
  return keyHash ^ Math.imul(revision | 0, 0x9e3779b1) ^ Math.imul(registryRevision | 0, 0x85ebca6b);
}

export class Doorkeeper {
  private readonly cells: Int32Array;
  private readonly mask: number;

  /** `cells`: rounded up to a power of two. */
  constructor(cells = 4096) {
    let n = 1;
    while (n < cells) n *= 2;
    this.cells = new Int32Array(n);
    this.mask = n - 1;
  }

  /**
   * Whether the key hashed to `hash` (its request and revisions, hashed by
   * the caller) was offered before and not pushed out since; it is
   * remembered either way.
   */
  seenBefore(hash: number): boolean {
    // Never 0, the empty cell.
    const h = hash | 1;
    const i = (h ^ (h >>> 16)) & this.mask;
    if (this.cells[i] === h) return true;
    this.cells[i] = h;
    return false;
  }
}
