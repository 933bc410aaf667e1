/**
 * Anchor: the least a process can do to hold the needs bucket in memory.
 * `node --expose-gc dist/bench/bare-watch.js <url> [timeoutMs]`
 *
 * Connects, runs `kv.watch()` on the needs bucket and loads every entry into a
 * Map<string, string> until the snapshot is complete: when as many entries as
 * the stream held at start have been seen, or an entry with a revision at or
 * past the stream's last sequence at start arrives. Then it reports one JSON
 * line (load time, the wall-clock moment it was synced, and after a forced gc
 * its RSS and heapUsed) and keeps the watch and the Map until SIGTERM/SIGINT.
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { ANCHOR_JS_TIMEOUT_MS, connectBench, NEEDS_BUCKET, NEEDS_STREAM, report } from "./common.js";

/** Whatever happens, this process is gone after an hour. */
const MAX_LIFE_MS = 60 * 60 * 1000;

async function main(): Promise<void> {
  const url = process.argv[2];
  const timeoutMs = Number(process.argv[3] ?? 600_000);
  if (!url) throw new Error("usage: bare-watch.js <nats-url> [timeoutMs]");
  const startedAt = Date.now();
  const nc: NatsConnection = await connectBench(url, "bench-bare-watch");
  const stop = (): void => void nc.close().finally(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  setTimeout(stop, MAX_LIFE_MS).unref();

  const si = await (await jetstreamManager(nc, { timeout: ANCHOR_JS_TIMEOUT_MS })).streams.info(NEEDS_STREAM);
  const expected = si.state.messages;
  const lastSeq = si.state.last_seq;
  const kv = await new Kvm(jetstream(nc, { timeout: ANCHOR_JS_TIMEOUT_MS })).open(NEEDS_BUCKET);
  const map = new Map<string, string>();
  let seen = 0;
  let synced = expected === 0;

  const onSynced = (): void => {
    const syncedAt = Date.now();
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const mem = process.memoryUsage();
    report({
      what: "bare-watch",
      entries: map.size,
      seen,
      expected,
      lastSeq,
      loadMs: syncedAt - startedAt,
      startedAt,
      syncedAt,
      forcedGc: gc !== undefined,
      rss: mem.rss,
      heapUsed: mem.heapUsed,
    });
  };
  if (synced) onSynced();

  const timer = setTimeout(() => {
    if (synced) return;
    report({ what: "bare-watch", error: `not synced within ${timeoutMs} ms (seen ${seen} of ${expected})` });
    process.exit(1);
  }, timeoutMs);
  timer.unref();

  const iter = await kv.watch();
  for await (const e of iter) {
    if (e.operation === "PUT") map.set(e.key, e.string());
    else map.delete(e.key);
    seen++;
    if (!synced && (seen >= expected || e.revision >= lastSeq)) {
      synced = true;
      clearTimeout(timer);
      onSynced();
    }
  }
}

main().catch((err: unknown) => {
  report({ what: "bare-watch", error: (err as Error).message ?? String(err) });
  process.exit(1);
});
