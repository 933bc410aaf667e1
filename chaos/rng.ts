/**
 * Seeded randomness for the chaos run (pure). Every random choice of a run
 * (the fault plan, each actor's keys, values and pauses) comes from a stream
 * derived from the one `--seed`, so a seed replays the same choices. Each
 * actor has a stream of its own (`derive(seed, "writer n1")`): how many
 * choices one actor makes (which depends on the real processes' timing) never
 * shifts what another one chooses.
 */

/** mulberry32: a 32-bit state, good enough for test schedules, and tiny. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a label, mixed with the seed: the seed of a derived stream. */
export function deriveSeed(seed: number, label: string): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export class Rng {
  private readonly next: () => number;

  constructor(readonly seed: number) {
    this.next = mulberry32(seed);
  }

  /** A stream of its own for `label`, independent of how much this one was used. */
  derive(label: string): Rng {
    return new Rng(deriveSeed(this.seed, label));
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next();
  }

  /** Uniform integer in [lo, hi] (both included). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Uniform in [lo, hi). */
  between(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** By weight: `[["a", 3], ["b", 1]]` picks "a" three times as often. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    const total = items.reduce((s, [, w]) => s + w, 0);
    let x = this.next() * total;
    for (const [item, w] of items) {
      if (x < w) return item;
      x -= w;
    }
    return items[items.length - 1]![0];
  }

  /** A new array, shuffled (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** Exponentially distributed with this mean (inter-arrival times). */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }
}

/** A seed from the clock, for runs without --seed (printed, so the run can be replayed). */
export function freshSeed(): number {
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}
