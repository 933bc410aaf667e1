/**
 * The store's own cost per entry in a first sync, without NATS: N needs put
 * into a fresh needs projection (with the mesh overview observing it, as in
 * the service), `runs` times, each into a new projection. Prints µs per
 * entry for each run; the first is the coldest (the JIT has not compiled the
 * path yet, as in a service's first sync).
 *
 *   node dist/bench/store-apply.js [N=100000] [runs=5]
 */
import { Projection } from "../src/projections/projection.js";
import { specFor } from "../src/projections/bucket-specs.js";
import { KNOWN_KINDS } from "../src/reconcile/registry.js";
import { MeshOverview } from "../src/overview/overview.js";
import { createLogger } from "../src/log.js";
import type { WatchEvent } from "../src/streams/kv-watch.js";
import { Subject } from "rxjs";
import { keyOf, valueOf } from "./common.js";
import { DEFAULT_FLOOD_LIMITS } from "../src/defaults.js";

const n = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 5);
const enc = new TextEncoder();
const events: WatchEvent[] = [{ type: "pending", count: n }];
for (let i = 0; i < n; i++) events.push({ type: "entry", entry: { operation: "PUT", key: keyOf(i), revision: i + 1, value: enc.encode(valueOf(i)) } });
events.push({ type: "synced", lastSeq: n });
const log = createLogger({ level: "warn" });

for (let r = 0; r < runs; r++) {
  const overview = new MeshOverview(() => true, Date.now, { limits: DEFAULT_FLOOD_LIMITS });
  const p = new Projection(specFor("needs", KNOWN_KINDS), log, overview.observerFor("needs"));
  const watch = new Subject<WatchEvent>();
  p.connect(watch);
  const t0 = performance.now();
  for (const e of events) watch.next(e);
  const ms = performance.now() - t0;
  if (p.store.size !== n) throw new Error(`the store holds ${p.store.size} entries, not ${n}`);
  process.stdout.write(`run ${r + 1}: ${n} entries in ${ms.toFixed(0)} ms, ${((ms * 1000) / n).toFixed(2)} µs an entry\n`);
  p.stop();
}
