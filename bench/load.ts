/**
 * Loading the data set: the service's buckets are created exactly as the
 * service creates them (its own plans and code; the service then leaves them
 * alone), then N needs are put with a fixed number of puts in flight, with a
 * progress bar on stderr when it is a terminal and a plain line now and then
 * when it is not.
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { BUCKET_PLANS } from "../src/main.js";
import { ensureBuckets } from "../src/streams/buckets.js";
import { createLogger } from "../src/log.js";
import { keyOf, NEEDS_BUCKET, valueOf } from "./common.js";
import { DEFAULT_BUCKET_LIMITS } from "../src/defaults.js";

export interface LoadResult {
  keys: number;
  ms: number;
  putsPerSecond: number;
  valueBytes: number;
}

/** Progress on stderr: a redrawn bar on a terminal, a line every few seconds otherwise. */
export class Progress {
  private readonly tty = process.stderr.isTTY === true;
  private readonly start = performance.now();
  private lastDraw = 0;
  private finished = false;

  constructor(
    private readonly label: string,
    private readonly total: number,
  ) {}

  update(done: number): void {
    const now = performance.now();
    const final = done >= this.total;
    if (this.finished || (!final && now - this.lastDraw < (this.tty ? 100 : 5000))) return;
    this.finished = final;
    this.lastDraw = now;
    const secs = (now - this.start) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    const pct = this.total > 0 ? done / this.total : 1;
    if (this.tty) {
      const width = 30;
      const filled = Math.round(pct * width);
      const bar = "#".repeat(filled) + "-".repeat(width - filled);
      process.stderr.write(`\r${this.label} [${bar}] ${(pct * 100).toFixed(0).padStart(3)}% ${done}/${this.total} ${rate}/s ${secs.toFixed(1)}s`);
      if (final) process.stderr.write("\n");
    } else {
      process.stderr.write(`${this.label}: ${done}/${this.total} (${(pct * 100).toFixed(0)}%) ${rate}/s ${secs.toFixed(1)}s\n`);
    }
  }
}

/** Room a bucket gives each key the bench loads (a message of ~200 B, with room for the writes that follow). */
const BYTES_PER_KEY = 512;

/**
 * The service's buckets, as it creates them; a node bucket too small for
 * `keys` keys (past a few million, the service's default size) is made larger,
 * which the service keeps (it raises a bucket's limits, never lowers them).
 */
export async function ensureServiceBuckets(nc: NatsConnection, keys = 0): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const limits = { ...DEFAULT_BUCKET_LIMITS, nodeBucketBytes: Math.max(DEFAULT_BUCKET_LIMITS.nodeBucketBytes, keys * BYTES_PER_KEY) };
  await ensureBuckets(jsm, BUCKET_PLANS, 1, createLogger({ level: "warn" }), limits);
}

export async function openNeeds(nc: NatsConnection): Promise<KV> {
  return new Kvm(jetstream(nc)).open(NEEDS_BUCKET);
}

/** Put keys 0..n-1 with `inFlight` puts outstanding, key i's value `value(i)`; fails after `timeoutMs`. */
export async function loadNeeds(kv: KV, n: number, inFlight: number, timeoutMs: number, value: (i: number) => string = valueOf): Promise<LoadResult> {
  const progress = new Progress("loading needs", n);
  const deadline = Date.now() + timeoutMs;
  const t0 = performance.now();
  let next = 0;
  let done = 0;
  let valueBytes = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      if (Date.now() > deadline) throw new Error(`loading ${n} keys took more than ${timeoutMs} ms (${done} done)`);
      const i = next++;
      const v = value(i);
      valueBytes += v.length;
      // A put that fails is retried a few times (a busy shared machine can time one out).
      for (let attempt = 1; ; attempt++) {
        try {
          await kv.put(keyOf(i), v);
          break;
        } catch (err) {
          if (attempt >= 5) throw err;
        }
      }
      done++;
      progress.update(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, Math.max(1, n)) }, worker));
  progress.update(n);
  const ms = performance.now() - t0;
  return { keys: n, ms, putsPerSecond: Math.round(n / (ms / 1000)), valueBytes: Math.round(valueBytes / Math.max(1, n)) };
}
