/**
 * How this folder declares its metrics: each is made through `MetricsDef`,
 * which registers it and records its name, type and labels in the catalog
 * (docs/operations.md's table is checked against it). Counters of events
 * the service tallies itself are `tallyCounter`s: real counters that a
 * scrape increases by what the tally grew since the previous scrape.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

export type MetricType = "counter" | "gauge" | "histogram";

export interface CatalogEntry {
  readonly name: string;
  readonly type: MetricType;
  readonly labels: readonly string[];
  readonly help: string;
}

interface Declared<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly L[];
}

/** A tally's values at one scrape: each series' labels and its count so far. */
export type TallyRead<L extends string> = Iterable<readonly [Partial<Record<L, string>>, number]>;

export class MetricsDef {
  readonly catalog: CatalogEntry[] = [];

  constructor(readonly registry: Registry) {}

  private note(type: MetricType, d: Declared<string>): void {
    this.catalog.push({ name: d.name, type, labels: [...(d.labelNames ?? [])], help: d.help });
  }

  gauge<L extends string>(d: Declared<L> & { collect?: (this: Gauge<L>) => void | Promise<void> }): Gauge<L> {
    this.note("gauge", d);
    return new Gauge<L>({ ...d, labelNames: d.labelNames ?? [], registers: [this.registry] });
  }

  counter<L extends string>(d: Declared<L>): Counter<L> {
    this.note("counter", d);
    return new Counter<L>({ ...d, labelNames: d.labelNames ?? [], registers: [this.registry] });
  }

  histogram<L extends string>(d: Declared<L> & { buckets: number[] }): Histogram<L> {
    this.note("histogram", d);
    return new Histogram<L>({ ...d, labelNames: d.labelNames ?? [], registers: [this.registry] });
  }

  /**
   * A counter of a tally the service keeps: each scrape adds what `read`'s
   * counts grew since the last (a count that went down is left alone, so the
   * counter stays monotonic). A series `read` names appears at once, at 0,
   * so a rate over it starts from its first scrape.
   */
  tallyCounter<L extends string>(d: Declared<L>, read: () => TallyRead<L> | undefined): Counter<L> {
    this.note("counter", d);
    const seen = new Map<string, number>();
    return new Counter<L>({
      ...d,
      labelNames: d.labelNames ?? [],
      registers: [this.registry],
      collect() {
        for (const [labels, count] of read() ?? []) {
          const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
          const before = seen.get(key);
          if (before !== undefined && count <= before) continue;
          this.inc(labels, count - (before ?? 0));
          seen.set(key, count);
        }
      },
    });
  }
}
