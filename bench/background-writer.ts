/**
 * Writes elsewhere in the mesh: updates of existing needs at a fixed rate,
 * on a connection of its own, to random keys of every node except those
 * named (the nodes the browser shows), until stopped. It keeps the rate by
 * starting, every few ms, the puts due by then; with too many puts
 * outstanding a due put is skipped and counted, so a writer that cannot keep
 * up says so rather than silently writing less. It reports what it achieved,
 * overall and per whole second.
 *
 * The nodes are other machines; the writer shares the measured machine's
 * cores, so it is kept light: the puts due are started together every
 * TICK_MS, so that their publishes leave in one socket write, and its
 * connection captures no stack trace per request.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { connectBench, KEYS_PER_NODE, keyOf, sleep, valueOf } from "./common.js";
import { openNeeds } from "./load.js";

const MAX_OUTSTANDING = 500;
const TICK_MS = 20;
const DRAIN_MS = 10_000;

export interface WriterResult {
  rate: number;
  durationMs: number;
  attempted: number;
  acked: number;
  errors: number;
  /** Puts not started because MAX_OUTSTANDING were still outstanding. */
  skipped: number;
  /** Acked puts per second over the whole run. */
  achievedPerSecond: number;
  /** Fewest and most puts acked in one whole second of the run. */
  perSecondMin: number;
  perSecondMax: number;
}

export interface BackgroundWriter {
  readonly running: boolean;
  /** Counts so far, while it runs (a soak reports them as it goes). */
  readonly progress: { readonly attempted: number; readonly acked: number; readonly errors: number; readonly skipped: number };
  /** Stop starting puts, wait (bounded) for those in flight, close the connection. */
  stop(): Promise<WriterResult>;
}

/** `value(i, salt)`: key i's new value, `salt` counting the puts (default: common.ts's valueOf). */
export async function startWriter(
  url: string,
  o: { rate: number; keys: number; exclude: ReadonlySet<string>; value?: (i: number, salt: number) => string },
): Promise<BackgroundWriter> {
  const value = o.value ?? valueOf;
  const nc: NatsConnection = await connectBench(url, "bench-writer", { noAsyncTraces: true });
  const kv = await openNeeds(nc);
  const nodes = Math.ceil(o.keys / KEYS_PER_NODE);
  if (o.exclude.size >= nodes) throw new Error("the writer has no node left to write to");
  const res = { attempted: 0, acked: 0, errors: 0, skipped: 0 };
  const perSecond: number[] = [];
  const pending = new Set<Promise<void>>();
  let stopping = false;
  let salt = 1;
  const t0 = performance.now();

  const pickKey = (): number => {
    for (;;) {
      const i = Math.floor(Math.random() * o.keys);
      if (!o.exclude.has(`n${Math.floor(i / KEYS_PER_NODE)}`)) return i;
    }
  };
  const one = async (): Promise<void> => {
    const i = pickKey();
    try {
      await kv.put(keyOf(i), value(i, salt++));
      res.acked++;
      const s = Math.floor((performance.now() - t0) / 1000);
      perSecond[s] = (perSecond[s] ?? 0) + 1;
    } catch {
      res.errors++;
    }
  };

  const loop = (async (): Promise<void> => {
    while (!stopping) {
      const due = Math.floor(((performance.now() - t0) * o.rate) / 1000) - res.attempted - res.skipped;
      for (let k = 0; k < due; k++) {
        if (pending.size >= MAX_OUTSTANDING) {
          res.skipped++;
          continue;
        }
        res.attempted++;
        const p = one().finally(() => pending.delete(p));
        pending.add(p);
      }
      await sleep(TICK_MS);
    }
  })();

  return {
    get running() {
      return !stopping;
    },
    get progress() {
      return { ...res };
    },
    async stop() {
      stopping = true;
      await loop;
      const durationMs = performance.now() - t0;
      // Puts acked while draining are not counted in the rate: they were due within the run.
      const ackedInRun = res.acked;
      await Promise.race([Promise.all(pending), sleep(DRAIN_MS)]);
      await nc.close().catch(() => undefined);
      // Whole seconds only: the last, partial second would read as a drop.
      const whole = Array.from({ length: Math.floor(durationMs / 1000) }, (_, s) => perSecond[s] ?? 0);
      return {
        rate: o.rate,
        durationMs: Math.round(durationMs),
        ...res,
        achievedPerSecond: Math.round(ackedInRun / (durationMs / 1000)),
        perSecondMin: whole.length ? Math.min(...whole) : Number.NaN,
        perSecondMax: whole.length ? Math.max(...whole) : Number.NaN,
      };
    },
  };
}
