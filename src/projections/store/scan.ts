/**
 * The slots a narrowing reads, in key order (pure): a range of an ordered set
 * of slots, one known slot, or none.
 */
import type { Cursor, OrderedSet } from "./ordered.js";

/** The slots a narrowing reads, in key order, in batches: `fill(out)` copies the next ones into `out` and says how many (0: done). */
export interface SlotScan {
  fill(out: Int32Array): number;
  /** One at a time (tests, small scans): the next slot, or -1. */
  next(): number;
  /** Narrowed fields the scan does not settle: check them on each entry. */
  readonly residual: readonly (readonly [string, string])[];
}

/** `next()`'s one-slot batch: scans are read synchronously, one at a time (a typed array per scan costs more than the scan). */
const ONE = new Int32Array(1);

/** A scan over [from, to) of an ordered set of slots. */
export class RangeScan implements SlotScan {
  constructor(
    private readonly set: OrderedSet<number> | undefined,
    private readonly from: Cursor,
    private readonly to: Cursor | undefined,
    readonly residual: readonly (readonly [string, string])[],
  ) {}

  fill(out: Int32Array): number {
    return this.set === undefined ? 0 : this.set.fill(this.from, this.to, out);
  }

  next(): number {
    return this.fill(ONE) === 1 ? (ONE[0] as number) : -1;
  }
}

/** A scan of one known slot. */
export class OneScan implements SlotScan {
  private done = false;

  constructor(
    private readonly slot: number,
    readonly residual: readonly (readonly [string, string])[],
  ) {}

  fill(out: Int32Array): number {
    if (out.length === 0) return 0;
    const slot = this.next();
    if (slot < 0) return 0;
    out[0] = slot;
    return 1;
  }

  next(): number {
    if (this.done) return -1;
    this.done = true;
    return this.slot;
  }
}

export const NO_SLOTS: SlotScan = new RangeScan(undefined, { leaf: 0, pos: 0 }, undefined, []);

/** The first key after every key that starts with `prefix` (which ends with "."): the same with its last character raised. */
export function pastPrefix(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
