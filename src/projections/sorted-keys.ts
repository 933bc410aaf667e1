/**
 * A set of keys kept in key order for paging. Bulk loads (a watch's snapshot)
 * append and sort once on the next read; after that, keys are inserted and
 * removed in place by binary search, so no request ever re-sorts.
 */
export class SortedKeys {
  private arr: string[] = [];
  private sorted = true;

  get size(): number {
    return this.arr.length;
  }

  /** Add a key that is not in the set yet. `bulk` defers ordering to the next read. */
  add(key: string, bulk = false): void {
    const arr = this.arr;
    const last = arr[arr.length - 1];
    if (last === undefined || (this.sorted && key > last)) {
      arr.push(key);
    } else if (bulk || !this.sorted) {
      arr.push(key);
      this.sorted = false;
    } else {
      arr.splice(lowerBound(arr, key), 0, key);
    }
  }

  remove(key: string): void {
    const arr = this.view();
    const i = lowerBound(arr, key);
    if (arr[i] === key) arr.splice(i, 1);
  }

  /** The keys in order (the array itself: do not change it). */
  view(): readonly string[] & string[] {
    if (!this.sorted) {
      this.arr.sort(compareKeys);
      this.sorted = true;
    }
    return this.arr;
  }

  /** Index of the first key strictly after `after` (0 when `after` is undefined). */
  startAfter(after: string | undefined): number {
    if (after === undefined) return 0;
    const arr = this.view();
    const i = lowerBound(arr, after);
    return arr[i] === after ? i + 1 : i;
  }
}

/** Key order: plain code-unit order (keys are ASCII, so this is byte order too). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function lowerBound(arr: readonly string[], key: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((arr[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
