/**
 * One consumer creation at a time in a process (pure).
 *
 * Creating a consumer on a large stream keeps the server busy for a while,
 * and creations asked side by side only make each one slower (and time out
 * the small ones queued behind them). The watches of one instance therefore
 * take turns, the one with the fewest messages to cover first, so the small
 * buckets are watched at once and the large one does not wait behind them
 * for long.
 */
interface Waiter {
  readonly weight: number;
  readonly order: number;
  readonly enter: () => void;
}

export class CreationGate {
  private busy = false;
  private order = 0;
  private readonly waiting: Waiter[] = [];

  /** Wait for the turn of a creation covering `weight` messages; call the returned function when it is done. */
  enter(weight: number): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiting.push({ weight, order: this.order++, enter: () => resolve(this.leaver()) });
      this.next();
    });
  }

  /** Creations waiting for their turn (not counting the one under way). */
  get queued(): number {
    return this.waiting.length;
  }

  private leaver(): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.busy = false;
      this.next();
    };
  }

  private next(): void {
    if (this.busy || this.waiting.length === 0) return;
    let best = 0;
    for (let i = 1; i < this.waiting.length; i++) {
      const w = this.waiting[i]!;
      const b = this.waiting[best]!;
      if (w.weight < b.weight || (w.weight === b.weight && w.order < b.order)) best = i;
    }
    const [w] = this.waiting.splice(best, 1);
    this.busy = true;
    w!.enter();
  }
}
