/**
 * Counts by name for the few names one node has (its modules, its kinds): two
 * short arrays searched in turn, and a Map once there are more than SMALL
 * names (a node making up names must not make every change a long search).
 *
 * Why not a Map from the start: the overview keeps three of these per node,
 * so their size is paid once per node of the mesh, and a Map or a Set costs
 * several times an exact-size array of the same few names
 * (docs/benchmarks.md). A name's count is never 0: it is dropped.
 */
const SMALL = 16;

/** The items of every NameCounts with no name: one array for all of them. */
const NONE: readonly (string | number)[] = Object.freeze([]);

export class NameCounts {
  /**
   * name, count, name, count, …: one array of exactly this length, replaced
   * when a name comes or goes (a pushed array keeps room for 16 more, paid
   * three times per node).
   */
  private items: readonly (string | number)[] = NONE;
  private map: Map<string, number> | undefined;

  get size(): number {
    return this.map !== undefined ? this.map.size : this.items.length >> 1;
  }

  get(name: string): number {
    if (this.map !== undefined) return this.map.get(name) ?? 0;
    const i = this.indexOf(name);
    return i < 0 ? 0 : (this.items[i + 1] as number);
  }

  has(name: string): boolean {
    return this.get(name) !== 0;
  }

  /** Add `delta` to `name`'s count; a count that reaches 0 drops the name. */
  add(name: string, delta: number): void {
    if (delta === 0) return;
    if (this.map !== undefined) {
      const n = (this.map.get(name) ?? 0) + delta;
      if (n === 0) this.map.delete(name);
      else this.map.set(name, n);
      return;
    }
    const items = this.items;
    const i = this.indexOf(name);
    if (i < 0) {
      if (items.length >> 1 >= SMALL) {
        const map = new Map<string, number>();
        for (let j = 0; j < items.length; j += 2) map.set(items[j] as string, items[j + 1] as number);
        map.set(name, delta);
        this.map = map;
        this.items = NONE;
      } else this.items = items.concat([name, delta]);
      return;
    }
    const n = (items[i + 1] as number) + delta;
    if (n !== 0) (items as (string | number)[])[i + 1] = n;
    else this.items = items.length === 2 ? NONE : [...items.slice(0, i), ...items.slice(i + 2)];
  }

  /** Every name with its count. */
  forEach(fn: (name: string, count: number) => void): void {
    if (this.map !== undefined) {
      for (const [k, n] of this.map) fn(k, n);
      return;
    }
    const items = this.items;
    for (let i = 0; i < items.length; i += 2) fn(items[i] as string, items[i + 1] as number);
  }

  clear(): void {
    this.items = NONE;
    this.map = undefined;
  }

  private indexOf(name: string): number {
    const items = this.items;
    for (let i = 0; i < items.length; i += 2) if (items[i] === name) return i;
    return -1;
  }
}
