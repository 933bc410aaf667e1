/**
 * What a store knows of each entry, as columns of typed arrays indexed by
 * slot number: where its record is, where its key and JSON sit in it, its
 * revision, its hash and its kind. A freed slot is reused by the next entry.
 * No per-entry JS object: the garbage collector sees a handful of arrays.
 */
const INITIAL = 1024;

export class Slots {
  seg = new Int32Array(INITIAL);
  off = new Int32Array(INITIAL);
  /** The key's offset from the record's body start, and its length in bytes (ASCII). */
  keyAt = new Int32Array(INITIAL);
  keyLen = new Int32Array(INITIAL);
  /** The entry JSON's offset from the body start, and its length in bytes. */
  jsonAt = new Int32Array(INITIAL);
  jsonLen = new Int32Array(INITIAL);
  revision = new Float64Array(INITIAL);
  hash = new Int32Array(INITIAL);
  /** The id of the kind the key names (-1: none). */
  kind = new Int32Array(INITIAL);
  /** 1 while the slot holds an entry. */
  inUse = new Uint8Array(INITIAL);
  private next = 0;
  private readonly free: number[] = [];

  /** A slot for a new entry. */
  alloc(): number {
    const slot = this.free.pop() ?? this.next++;
    if (slot >= this.seg.length) this.grow();
    this.inUse[slot] = 1;
    return slot;
  }

  release(slot: number): void {
    this.inUse[slot] = 0;
    this.free.push(slot);
  }

  private grow(): void {
    const n = this.seg.length * 2;
    const wider = <A extends Int32Array | Float64Array | Uint8Array>(a: A, make: new (n: number) => A): A => {
      const b = new make(n);
      b.set(a);
      return b;
    };
    this.seg = wider(this.seg, Int32Array);
    this.off = wider(this.off, Int32Array);
    this.keyAt = wider(this.keyAt, Int32Array);
    this.keyLen = wider(this.keyLen, Int32Array);
    this.jsonAt = wider(this.jsonAt, Int32Array);
    this.jsonLen = wider(this.jsonLen, Int32Array);
    this.revision = wider(this.revision, Float64Array);
    this.hash = wider(this.hash, Int32Array);
    this.kind = wider(this.kind, Int32Array);
    this.inUse = wider(this.inUse, Uint8Array);
  }
}
