/**
 * A store's entries in key order, with what narrowing reads besides (pure):
 * the count of entries per value of the key's leading token (where a node's
 * range ends, found without a second search) and, per indexed field, its
 * values' slots in key order. Slots are compared by the keys their records
 * hold (`Order<number>`), so no key string is kept here.
 */
import { OrderedSet, type Order } from "./ordered.js";
import { NO_SLOTS, OneScan, pastPrefix, RangeScan, type SlotScan } from "./scan.js";
import type { BucketSpec } from "./spec.js";

export class KeyOrders {
  /** Every entry's slot in key order. */
  readonly all: OrderedSet<number>;
  private readonly leadingCounts = new Map<string, number>();
  private readonly indexes: { readonly field: string; readonly byValue: Map<string, OrderedSet<number>> }[];

  constructor(
    private readonly spec: BucketSpec,
    private readonly slotOrder: Order<number>,
  ) {
    this.all = new OrderedSet(slotOrder);
    this.indexes = spec.indexes.map((field) => ({ field, byValue: new Map() }));
  }

  /** Whether removing a key needs its fields (to find it in the indexes). */
  get indexed(): boolean {
    return this.indexes.length > 0;
  }

  add(slot: number, key: string, fields: Readonly<Record<string, string>>): void {
    this.all.insert(key, slot);
    const lead = this.spec.leadingField;
    if (lead !== undefined) this.addLeading(fields[lead] as string, 1);
    this.addToIndexes(slot, key, fields);
  }

  /** `n` slots of `slots`, in key order, every one after the last key held (a checkpoint's run); the leading counts and indexes are the caller's to add. */
  appendSorted(slots: Int32Array, n: number): void {
    this.all.appendSorted(slots, n);
  }

  /** `n` more entries whose leading field is `value`. */
  addLeading(value: string, n: number): void {
    this.leadingCounts.set(value, (this.leadingCounts.get(value) ?? 0) + n);
  }

  /** Put `slot` in each index by its fields. */
  addToIndexes(slot: number, key: string, fields: Readonly<Record<string, string>>): void {
    for (const ix of this.indexes) {
      const v = fields[ix.field] as string;
      let set = ix.byValue.get(v);
      if (set === undefined) ix.byValue.set(v, (set = new OrderedSet(this.slotOrder)));
      set.insert(key, slot);
    }
  }

  /** Remove `key`; `fields` are read only where there are indexes. */
  remove(key: string, fields: Readonly<Record<string, string>>): void {
    for (const ix of this.indexes) {
      const v = fields[ix.field] as string;
      const set = ix.byValue.get(v);
      if (set === undefined) continue;
      set.remove(key);
      if (set.size === 0) ix.byValue.delete(v);
    }
    this.all.remove(key);
    if (this.spec.leadingField !== undefined) {
      // The leading field is the key's first token.
      const v = key.slice(0, key.indexOf("."));
      const n = (this.leadingCounts.get(v) ?? 0) - 1;
      if (n > 0) this.leadingCounts.set(v, n);
      else this.leadingCounts.delete(v);
    }
  }

  /**
   * The slots a narrowing reads, strictly after `after`, in key order: a
   * range of the key order when the key's leading tokens are narrowed (one
   * key, found by `slotOf`, when all are), else an index, else every slot;
   * `residual` says what is left to check.
   */
  scan(filters: Readonly<Record<string, string>>, after: string | undefined, keys: { get(key: string): number }): SlotScan {
    const names = Object.keys(filters);
    const range = names.length > 0 ? this.spec.range?.(filters) : undefined;
    if (range?.exact !== undefined) {
      const slot = keys.get(range.exact);
      if (slot < 0 || (after !== undefined && range.exact <= after)) return NO_SLOTS;
      return new OneScan(slot, residualBut(filters, range.covered));
    }
    const order = this.all;
    if (range?.prefix !== undefined) {
      const prefix = range.prefix;
      const fromStart = after === undefined || after < prefix;
      const from = fromStart ? order.seek(prefix, true) : order.seek(after);
      // A range of the leading field alone, from its start: it holds exactly that value's count of entries.
      const lead = this.spec.leadingField;
      const whole = fromStart && lead !== undefined && range.covered.length === 1 && range.covered[0] === lead;
      const to = whole ? order.ahead(from, this.leadingCounts.get(filters[lead] as string) ?? 0) : order.seek(pastPrefix(prefix), true);
      return new RangeScan(order, from, to, residualBut(filters, range.covered));
    }
    for (const ix of this.indexes) {
      const v = filters[ix.field];
      if (v === undefined) continue;
      const set = ix.byValue.get(v);
      if (set === undefined) return NO_SLOTS;
      return new RangeScan(set, set.seek(after), undefined, residualBut(filters, [ix.field]));
    }
    return new RangeScan(order, order.seek(after), undefined, residualBut(filters, []));
  }
}

/** The narrowed fields a scan's range or index does not settle: checked on each entry it reads. */
function residualBut(filters: Readonly<Record<string, string>>, covered: readonly string[]): [string, string][] {
  const left: [string, string][] = [];
  for (const f in filters) if (!covered.includes(f)) left.push([f, filters[f] as string]);
  return left;
}
