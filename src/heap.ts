/**
 * How much the service's JS heap may grow between two full collections.
 *
 * Why: the store keeps its entries outside the JS heap, so the heap itself is
 * small (tens of MB whatever the bucket's size). V8 sets the next full
 * collection's trigger at a small margin above the live heap, and it counts
 * against that margin every ArrayBuffer allocated since, including the copy
 * the NATS client makes of every reply it flushes (~20 MB/s at 1k answers a
 * second). A small heap then ran a mark-compact every ~400 ms, each pausing
 * the service for several ms (docs/benchmarks.md). Growing the limit by a
 * fixed factor of the live heap instead (V8's --heap-growing-percent) spaces
 * them out by seconds; garbage is still freed by the scavenges in between.
 *
 * V8 takes the setting while running: it is read each time a limit is set.
 */
import { setFlagsFromString } from "node:v8";

/** Apply `percent` (0 leaves V8's own heuristic). */
export function setHeapGrowing(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
