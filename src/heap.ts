/**
 * How much the service's JS heap may grow between two full collections.
 *
 * Why: the store keeps its entries outside the JS heap, so the heap itself is
 * small whatever the bucket's size. V8 sets the next full collection's
 * trigger at a small margin above the live heap, and it counts against that
 * margin every ArrayBuffer allocated since, including the copy the NATS
 * client makes of every reply it flushes. Under a steady stream of answers a
 * small heap's margin is then used up by those copies alone, and every
 * mark-compact that sets off pauses the service (docs/benchmarks.md). Growing
 * the limit by a fixed factor of the live heap instead (V8's
 * --heap-growing-percent) keeps the margin in proportion to the heap, not to
 * the reply traffic; garbage is still freed by the scavenges in between.
 *
 * V8 takes the setting while running: it is read each time a limit is set.
 */
import { setFlagsFromString } from "node:v8";

/** Apply `percent` (0 leaves V8's own heuristic). */
export function setHeapGrowing(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
