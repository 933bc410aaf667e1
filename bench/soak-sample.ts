/**
 * What the soak reads of the service's memory, without touching it: VmRSS
 * from /proc (as every bench phase reads it; no forced gc, the soak watches
 * the process as it runs), with its anonymous and file-backed parts, and, from its own `/metrics`, the JS heap in use
 * and reserved, and the memory held outside the heap (ArrayBuffers, where the store keeps
 * its entries). A read that fails gives NaN, never an exception: a sample
 * missed is a gap in the series, not the end of the run.
 */
import { readFileSync } from "node:fs";
import { procMemory } from "./common.js";

const METRICS_TIMEOUT_MS = 5000;
const HEAP_USED = "nodejs_heap_size_used_bytes";
const HEAP_TOTAL = "nodejs_heap_size_total_bytes";
const EXTERNAL = "nodejs_external_memory_bytes";

export interface RssReading {
  rss: number;
  /** Peak VmRSS of the process so far. */
  hwm: number;
  /** Of `rss`: anonymous memory (V8's heap, ArrayBuffers, malloc) and mapped files' pages (code: not the process's growth). */
  anon: number;
  file: number;
}

export function readRss(pid: number): RssReading {
  return procMemory(pid) ?? { rss: Number.NaN, hwm: Number.NaN, anon: Number.NaN, file: Number.NaN };
}

/**
 * The resident bytes of the process's `[heap]` mapping (/proc/<pid>/smaps):
 * glibc malloc's main arena, where Node's and zlib's native allocations of
 * the main thread live. It only grows by what malloc cannot hand back, so its
 * rise tells native memory kept apart from V8's heap and the ArrayBuffers.
 * NaN when it cannot be read.
 */
export function readMallocHeap(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/smaps`, "utf8");
    const at = text.indexOf(" [heap]\n");
    if (at < 0) return Number.NaN;
    const m = /^Rss:\s+(\d+) kB/m.exec(text.slice(at));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

export interface HeapReading {
  heapUsed: number;
  /** What V8 has reserved for the heap: it grows to the next full collection's limit and is resident while held. */
  heapTotal: number;
  external: number;
}

/** The value of an unlabelled metric in Prometheus text, or NaN. */
export function metricValue(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)`, "m").exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

/** Heap used and external memory from the service's `/metrics` (its base URL, no trailing slash). */
export async function readHeap(baseUrl: string): Promise<HeapReading> {
  try {
    const res = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(METRICS_TIMEOUT_MS) });
    if (!res.ok) return { heapUsed: Number.NaN, heapTotal: Number.NaN, external: Number.NaN };
    const text = await res.text();
    return { heapUsed: metricValue(text, HEAP_USED), heapTotal: metricValue(text, HEAP_TOTAL), external: metricValue(text, EXTERNAL) };
  } catch {
    return { heapUsed: Number.NaN, heapTotal: Number.NaN, external: Number.NaN };
  }
}
