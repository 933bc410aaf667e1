/**
 * A store's keys out of their bucket's shape (pure): few, kept as plain
 * objects in key order, each with the reason it is out of shape.
 */
import type { OutOfShapeKey } from "./entry.js";
import { OrderedSet, STRING_ORDER } from "./ordered.js";

export class OutOfShapeKeys {
  private readonly byKey = new Map<string, OutOfShapeKey>();
  private readonly order = new OrderedSet<string>(STRING_ORDER);

  get size(): number {
    return this.byKey.size;
  }

  get(key: string): OutOfShapeKey | undefined {
    return this.byKey.get(key);
  }

  /** Every key in order. */
  keys(): string[] {
    return this.order.keys();
  }

  values(): IterableIterator<OutOfShapeKey> {
    return this.byKey.values();
  }

  /** Put `rec` for its key; returns what the key held before. */
  put(rec: OutOfShapeKey): OutOfShapeKey | undefined {
    const before = this.byKey.get(rec.key);
    if (before === undefined) this.order.insert(rec.key, rec.key);
    this.byKey.set(rec.key, rec);
    return before;
  }

  /** Remove `key`; returns what it held. */
  remove(key: string): OutOfShapeKey | undefined {
    if (this.byKey.size === 0) return undefined;
    const rec = this.byKey.get(key);
    if (rec === undefined) return undefined;
    this.byKey.delete(key);
    this.order.remove(key);
    return rec;
  }

  /** The keys strictly after `after`, in key order. */
  after(after: string | undefined): { next(): OutOfShapeKey | undefined } {
    const c = this.order.seek(after);
    return {
      next: () => {
        const key = this.order.at(c);
        if (key === undefined) return undefined;
        this.order.advance(c);
        return this.byKey.get(key);
      },
    };
  }
}
