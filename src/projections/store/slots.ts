/**
 * What a store knows of each entry, as columns of typed arrays indexed by
 * slot number: where its record is (segment -1: a free slot), the lengths of
 * its key and JSON, its revision, its hash and its kind. A freed slot is
 * reused by the next entry. No per-entry JS object: the garbage collector
 * sees a handful of arrays. They grow by half, not double, so that a bucket
 * just past a power of two does not pay for its double.
 */
const INITIAL = 1024;

export class Slots {
  seg = new Int32Array(INITIAL);
  off = new Int32Array(INITIAL);
  /** The key's length in bytes (ASCII); where it sits in the record is the store's layout. */
  keyLen = new Int32Array(INITIAL);
  /** The entry JSON's length in bytes. */
  jsonLen = new Int32Array(INITIAL);
  revision = new Float64Array(INITIAL);
  hash = new Int32Array(INITIAL);
  /** The id of the kind the key names (-1: none). */
  kind = new Int32Array(INITIAL);
  private next = 0;
  private readonly free: number[] = [];

  /** How many slots it has room for before its columns grow. */
  get capacity(): number {
    return this.seg.length;
  }

  /** A slot for a new entry. */
  alloc(): number {
    const slot = this.free.pop() ?? this.next++;
    if (slot >= this.seg.length) this.grow();
    return slot;
  }

  inUse(slot: number): boolean {
    return slot < this.next && (this.seg[slot] as number) >= 0;
  }

  release(slot: number): void {
    this.seg[slot] = -1;
    this.free.push(slot);
  }

  /** Room for `n` more entries without growing. */
  reserve(n: number): void {
    if (this.next + n > this.seg.length) this.grow(this.next + n);
  }

  private grow(atLeast = 0): void {
    const n = Math.max(Math.ceil(this.seg.length * 1.5), atLeast);
    const wider = <A extends Int32Array | Float64Array>(a: A, make: new (n: number) => A): A => {
      const b = new make(n);
      b.set(a);
      return b;
    };
    this.seg = wider(this.seg, Int32Array);
    this.off = wider(this.off, Int32Array);
    this.keyLen = wider(this.keyLen, Int32Array);
    this.jsonLen = wider(this.jsonLen, Int32Array);
    this.revision = wider(this.revision, Float64Array);
    this.hash = wider(this.hash, Int32Array);
    this.kind = wider(this.kind, Int32Array);
  }
}
