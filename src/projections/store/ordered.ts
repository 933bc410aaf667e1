/**
 * A set kept in key order, as a B+tree of height two: a sorted list of leaves
 * of at most LEAF items each, with each leaf's first key kept as a string to
 * find the leaf by binary search.
 *
 * Why not one sorted array: inserting into it moves every later item, so a
 * burst of new keys costs the square of the bucket's size. Here an insert or
 * a removal costs two binary searches and a move within one leaf:
 * O(log n + LEAF). A leaf
 * that fills up splits in two (moving n / LEAF leaf pointers, once every
 * LEAF / 2 inserts at most); an emptied leaf is dropped.
 *
 * Items are what the caller keeps (slot numbers, strings); `order` compares a
 * probe key with an item and names an item's key. The set never holds an item
 * twice for one key: the caller checks membership before `insert`.
 */
export interface Order<T> {
  /** Negative, zero or positive as `key` sorts before, at or after `item`'s key (code-unit order). */
  compare(key: string, item: T): number;
  keyOf(item: T): string;
}

/** Items per leaf at most: small enough that a move within it is cheap, large enough that leaves are few. */
export const LEAF = 512;

/** Items per leaf when a run is appended whole: a quarter of each leaf left for the keys inserted later. */
const FILL = LEAF - (LEAF >>> 2);

/** A neighbour takes items from a full leaf only when it has at least this much room (it takes half of it). */
const MIN_SHARE = LEAF >>> 2;

/** A position: leaf index and index within it. */
export interface Cursor {
  leaf: number;
  pos: number;
}

export class OrderedSet<T> {
  private leaves: T[][] = [];
  /** The key of each leaf's first item. */
  private firsts: string[] = [];
  private count = 0;
  /**
   * Where the last insert went (leaf -1: unknown). A node writes its keys
   * together, often in order, and a snapshot delivers them so: the next key
   * then goes right after the last one, which two comparisons confirm
   * without searching.
   */
  private readonly finger: Cursor = { leaf: -1, pos: 0 };

  constructor(private readonly order: Order<T>) {}

  get size(): number {
    return this.count;
  }

  /** Add `item` under `key` (not in the set yet). */
  insert(key: string, item: T): void {
    this.count++;
    const { leaves, firsts } = this;
    const finger = this.finger;
    if (leaves.length === 0) {
      leaves.push([item]);
      firsts.push(key);
      finger.leaf = 0;
      finger.pos = 0;
      return;
    }
    let li: number;
    let pos: number;
    if (this.followsFinger(key)) {
      li = finger.leaf;
      pos = finger.pos + 1;
    } else {
      li = this.leafFor(key);
      pos = this.lowerBoundIn(leaves[li] as T[], key);
    }
    const leaf = leaves[li] as T[];
    if (pos === leaf.length) leaf.push(item);
    else leaf.splice(pos, 0, item);
    if (pos === 0) firsts[li] = key;
    finger.leaf = li;
    finger.pos = pos;
    if (leaf.length > LEAF) this.overflow(li);
  }

  /**
   * Add `n` items of `items`, in key order, every one after the set's last
   * (a checkpoint's run of keys): leaves are filled to FILL, so that keys
   * inserted among them later find room, and each leaf's first key is
   * named once.
   */
  appendSorted(items: ArrayLike<T>, n: number): void {
    const { leaves, firsts } = this;
    let i = 0;
    const last = leaves[leaves.length - 1];
    if (last !== undefined) while (i < n && last.length < FILL) last.push(items[i++] as T);
    while (i < n) {
      const end = Math.min(n, i + FILL);
      const leaf: T[] = [];
      for (; i < end; i++) leaf.push(items[i] as T);
      leaves.push(leaf);
      firsts.push(this.order.keyOf(leaf[0] as T));
    }
    this.count += n;
    this.finger.leaf = -1;
  }

  /**
   * Leaf `li` holds LEAF + 1 items (the finger on the one just inserted).
   * When a neighbour has a good share of room, half of that room's worth of
   * items moves to it; else the leaf splits in two.
   *
   * Why: keys come in clusters (a node writes its keys together, a snapshot
   * delivers them node by node), so a leaf that split in halves is often
   * never written again and would stay half full. Moving into a neighbour
   * (as a B*-tree does) fills those halves.
   */
  private overflow(li: number): void {
    const { leaves, firsts, finger } = this;
    const leaf = leaves[li] as T[];
    const prev = leaves[li - 1];
    const next = leaves[li + 1];
    const roomPrev = prev === undefined ? 0 : LEAF - prev.length;
    const roomNext = next === undefined ? 0 : LEAF - next.length;
    if (prev !== undefined && roomPrev >= MIN_SHARE && roomPrev >= roomNext) {
      const k = roomPrev >>> 1;
      const before = prev.length;
      for (const item of leaf.splice(0, k)) prev.push(item);
      firsts[li] = this.order.keyOf(leaf[0] as T);
      if (finger.pos < k) {
        finger.leaf = li - 1;
        finger.pos += before;
      } else finger.pos -= k;
      return;
    }
    if (next !== undefined && roomNext >= MIN_SHARE) {
      const k = roomNext >>> 1;
      next.unshift(...leaf.splice(leaf.length - k));
      firsts[li + 1] = this.order.keyOf(next[0] as T);
      if (finger.pos >= leaf.length) {
        finger.leaf = li + 1;
        finger.pos -= leaf.length;
      }
      return;
    }
    const half = LEAF >>> 1;
    const right = leaf.splice(half);
    leaves.splice(li + 1, 0, right);
    firsts.splice(li + 1, 0, this.order.keyOf(right[0] as T));
    if (finger.pos >= half) {
      finger.leaf = li + 1;
      finger.pos -= half;
    }
  }

  /** Whether `key` goes right after the last insert: after its item, and before the item (or leaf) that follows it. */
  private followsFinger(key: string): boolean {
    const { leaf: li, pos } = this.finger;
    const leaf = this.leaves[li];
    if (leaf === undefined || pos >= leaf.length || this.order.compare(key, leaf[pos] as T) <= 0) return false;
    if (pos + 1 < leaf.length) return this.order.compare(key, leaf[pos + 1] as T) < 0;
    return li + 1 >= this.leaves.length || key < (this.firsts[li + 1] as string);
  }

  /** Remove the item under `key`; false when there is none. */
  remove(key: string): boolean {
    if (this.leaves.length === 0) return false;
    const li = this.leafFor(key);
    const leaf = this.leaves[li] as T[];
    const pos = this.lowerBoundIn(leaf, key);
    if (pos >= leaf.length || this.order.compare(key, leaf[pos] as T) !== 0) return false;
    leaf.splice(pos, 1);
    this.count--;
    this.finger.leaf = -1;
    if (leaf.length === 0) {
      this.leaves.splice(li, 1);
      this.firsts.splice(li, 1);
    } else if (pos === 0) {
      this.firsts[li] = this.order.keyOf(leaf[0] as T);
    }
    return true;
  }

  /** The first position whose key is strictly after `key` (`inclusive`: at or after). */
  seek(key: string | undefined, inclusive = false): Cursor {
    if (key === undefined || this.leaves.length === 0) return { leaf: 0, pos: 0 };
    const li = this.leafFor(key);
    const leaf = this.leaves[li] as T[];
    let pos = this.lowerBoundIn(leaf, key);
    if (!inclusive && pos < leaf.length && this.order.compare(key, leaf[pos] as T) === 0) pos++;
    return this.normalize({ leaf: li, pos });
  }

  /** The position `n` items after `c` (the end when fewer follow it). */
  ahead(c: Cursor, n: number): Cursor {
    const leaves = this.leaves;
    const out = { leaf: c.leaf, pos: c.pos + n };
    while (out.leaf < leaves.length && out.pos >= (leaves[out.leaf] as T[]).length) {
      out.pos -= (leaves[out.leaf] as T[]).length;
      out.leaf++;
    }
    if (out.leaf >= leaves.length) out.pos = 0;
    return out;
  }

  /** The last item in key order, or undefined when the set is empty. */
  last(): T | undefined {
    const leaf = this.leaves[this.leaves.length - 1];
    return leaf?.[leaf.length - 1];
  }

  /** The item at `c`, or undefined past the end. */
  at(c: Cursor): T | undefined {
    return this.leaves[c.leaf]?.[c.pos];
  }

  /** Move `c` to the next item (in place). */
  advance(c: Cursor): void {
    c.pos++;
    this.normalize(c);
  }

  /**
   * Copy the items from `c` on, up to `end` (exclusive; undefined: the end of
   * the set), into `out`, at most `out.length`; advances `c` past them and
   * returns how many. For reading a range without a call per item.
   */
  fill(c: Cursor, end: Cursor | undefined, out: T[] | Int32Array): number {
    const leaves = this.leaves;
    const room = out.length;
    let n = 0;
    while (n < room && c.leaf < leaves.length) {
      if (end !== undefined && (c.leaf > end.leaf || (c.leaf === end.leaf && c.pos >= end.pos))) break;
      const leaf = leaves[c.leaf] as T[];
      const stop = end !== undefined && c.leaf === end.leaf ? end.pos : leaf.length;
      while (c.pos < stop && n < room) (out as T[])[n++] = leaf[c.pos++] as T;
      if (c.pos >= leaf.length) {
        c.leaf++;
        c.pos = 0;
      } else if (n < room) break; // at `end`, inside its leaf
    }
    return n;
  }

  /** Every item in key order. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (const leaf of this.leaves) yield* leaf;
  }

  /** Every key in order (tests, small sets). */
  keys(): string[] {
    return [...this].map((t) => this.order.keyOf(t));
  }

  private normalize(c: Cursor): Cursor {
    while (c.leaf < this.leaves.length && c.pos >= (this.leaves[c.leaf] as T[]).length) {
      c.leaf++;
      c.pos = 0;
    }
    return c;
  }

  /** The leaf whose range holds `key`: the last whose first key is at or before it (the first leaf for smaller keys). */
  private leafFor(key: string): number {
    const f = this.firsts;
    // Appending past the end is the common case of a snapshot loaded in key order.
    if (key >= (f[f.length - 1] as string)) return f.length - 1;
    let lo = 0;
    let hi = f.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((f[mid] as string) <= key) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private lowerBoundIn(leaf: readonly T[], key: string): number {
    const n = leaf.length;
    if (n > 0 && this.order.compare(key, leaf[n - 1] as T) > 0) return n;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.order.compare(key, leaf[mid] as T) > 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The order of plain strings (out-of-shape keys, tests). */
export const STRING_ORDER: Order<string> = {
  compare: (key, item) => (key < item ? -1 : key > item ? 1 : 0),
  keyOf: (item) => item,
};
