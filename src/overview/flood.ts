/**
 * Which nodes are flooding (pure): a node whose keys or bytes across the node
 * buckets pass a threshold is flooding until it is back under both. Each
 * crossing is told once, so it is logged once, not per write.
 */
export interface FloodLimits {
  /** Keys of one node across needs, applied and collect (out-of-shape keys included). */
  readonly keys: number;
  /** Bytes of one node's entries as the service holds them (key, fields, value). */
  readonly bytes: number;
}

export interface Flooding {
  readonly node: string;
  readonly keys: number;
  readonly bytes: number;
  /** When it went over (ms since the epoch; 0 when found over at the first sync). */
  readonly since: number;
}

/** A node crossed a limit: it is flooding now (`flooding`), or no longer. */
export type FloodChange = { readonly flooding: boolean } & Flooding;

export class FloodWatch {
  private readonly over = new Map<string, Flooding>();

  constructor(
    private readonly limits: FloodLimits,
    private readonly onChange: (change: FloodChange) => void = () => undefined,
  ) {}

  /** A node's counts now (0 and 0 when it has no key left); `now` is 0 during the first sync. */
  update(node: string, keys: number, bytes: number, now: number): void {
    const isOver = keys > this.limits.keys || bytes > this.limits.bytes;
    const was = this.over.get(node);
    if (isOver) {
      const f: Flooding = { node, keys, bytes, since: was?.since ?? now };
      this.over.set(node, f);
      if (was === undefined) this.onChange({ ...f, flooding: true });
    } else if (was !== undefined) {
      this.over.delete(node);
      this.onChange({ node, keys, bytes, since: was.since, flooding: false });
    }
  }

  isFlooding(node: string): boolean {
    return this.over.has(node);
  }

  get count(): number {
    return this.over.size;
  }

  /** The flooding nodes, the most keys first, at most `max`. */
  list(max = 20): Flooding[] {
    return [...this.over.values()].sort((a, b) => b.keys - a.keys || b.bytes - a.bytes || (a.node < b.node ? -1 : 1)).slice(0, max);
  }
}
