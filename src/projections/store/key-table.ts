/**
 * Key -> slot, as an open-addressing hash table in one Int32Array (linear
 * probing, deletion by backward shift, so no tombstones). The keys themselves
 * stay in the store's records: the table keeps only slot numbers and asks the
 * store to compare a key with a slot's key and for a slot's hash.
 *
 * Why not a Map<string, number>: that keeps a million key strings on the JS
 * heap for the garbage collector to trace; this keeps none.
 */

export interface SlotKeys {
  /** Whether `slot`'s key is `key`. */
  keyIs(slot: number, key: string): boolean;
  /** The hash `hashKey` gave `slot`'s key when it was added. */
  hashOf(slot: number): number;
}

/** FNV-1a over the key's code units (keys are ASCII). */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** `hashKey` of a key read as bytes (`len` bytes of `buf` from `at`): the same hash for an ASCII key. */
export function hashKeyBytes(buf: Uint8Array, at: number, len: number): number {
  let h = 0x811c9dc5;
  for (let i = at, end = at + len; i < end; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
  return h | 0;
}

const MIN_CAPACITY = 16;

export class KeyTable {
  /** slot + 1 per cell; 0 is empty. */
  private cells = new Int32Array(MIN_CAPACITY);
  private mask = MIN_CAPACITY - 1;
  private count = 0;

  constructor(private readonly keys: SlotKeys) {}

  get size(): number {
    return this.count;
  }

  /** How many cells it has (it grows when more than half are taken). */
  get capacity(): number {
    return this.cells.length;
  }

  /** The slot of `key`, or -1. */
  get(key: string, hash = hashKey(key)): number {
    const { cells, mask } = this;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const c = cells[i] as number;
      if (c === 0) return -1;
      const slot = c - 1;
      if (this.keys.hashOf(slot) === hash && this.keys.keyIs(slot, key)) return slot;
    }
  }

  /** Add `slot` under its hash (its key must not be in the table). */
  add(slot: number, hash: number): void {
    if ((this.count + 1) * 2 > this.cells.length) this.grow();
    this.place(slot, hash);
    this.count++;
  }

  /** Remove `key`'s slot; returns it, or -1 when absent. */
  delete(key: string, hash = hashKey(key)): number {
    const { cells, mask } = this;
    let i = hash & mask;
    for (; ; i = (i + 1) & mask) {
      const c = cells[i] as number;
      if (c === 0) return -1;
      if (this.keys.hashOf(c - 1) === hash && this.keys.keyIs(c - 1, key)) break;
    }
    const slot = (cells[i] as number) - 1;
    // Backward shift: move later members of the run into the hole when their home allows it.
    let hole = i;
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const c = cells[j] as number;
      if (c === 0) break;
      const home = this.keys.hashOf(c - 1) & mask;
      // Is `home` cyclically outside (hole, j]? Then the member may move to the hole.
      const movable = hole <= j ? home <= hole || home > j : home <= hole && home > j;
      if (movable) {
        cells[hole] = c;
        hole = j;
      }
    }
    cells[hole] = 0;
    this.count--;
    return slot;
  }

  private place(slot: number, hash: number): void {
    const { cells, mask } = this;
    let i = hash & mask;
    while (cells[i] !== 0) i = (i + 1) & mask;
    cells[i] = slot + 1;
  }

  /** Room for `n` more keys without growing (the table stays at most half full). */
  reserve(n: number): void {
    let cap = this.cells.length;
    while ((this.count + n) * 2 > cap) cap *= 2;
    if (cap > this.cells.length) this.grow(cap);
  }

  private grow(capacity = this.cells.length * 2): void {
    const old = this.cells;
    this.cells = new Int32Array(capacity);
    this.mask = this.cells.length - 1;
    for (let i = 0; i < old.length; i++) {
      const c = old[i] as number;
      if (c !== 0) this.place(c - 1, this.keys.hashOf(c - 1));
    }
  }
}
