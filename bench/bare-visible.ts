/**
 * Anchor: the least a process can do to make a write visible to a reader.
 * `node dist/bench/bare-visible.js <url> <bytes>`
 *
 * Holds the needs bucket as the bare watch does (`kv.watch()` into a
 * Map<string, string>, keeping the last revision seen) and answers requests
 * on `bench.visible` whose body is `{"minRevision":N}`: at once with a fixed
 * payload of <bytes> bytes when the watch has reached N, else as soon as it
 * does (after 10 s, with an empty reply). It reports one JSON line once it
 * holds the whole bucket. The put -> visible phase asks it exactly as it asks
 * the service, so the two figures differ only by what the service does
 * beyond this.
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { Msg } from "@nats-io/nats-core";
import { ANCHOR_JS_TIMEOUT_MS, connectBench, NEEDS_BUCKET, NEEDS_STREAM, report, VISIBLE_SUBJECT } from "./common.js";

const MAX_LIFE_MS = 60 * 60 * 1000;
const WAIT_MS = 10_000;

async function main(): Promise<void> {
  const url = process.argv[2];
  const bytes = Number(process.argv[3]);
  if (!url || !Number.isInteger(bytes) || bytes < 0) throw new Error("usage: bare-visible.js <nats-url> <bytes>");
  const payload = new TextEncoder().encode("x".repeat(bytes));
  const nc = await connectBench(url, "bench-bare-visible");
  const lastSeq = (await (await jetstreamManager(nc, { timeout: ANCHOR_JS_TIMEOUT_MS })).streams.info(NEEDS_STREAM)).state.last_seq;
  const kv = await new Kvm(jetstream(nc, { timeout: ANCHOR_JS_TIMEOUT_MS })).open(NEEDS_BUCKET);
  const map = new Map<string, string>();
  let revision = 0;
  let waiting: { min: number; msg: Msg; at: number }[] = [];

  const answer = (msg: Msg, ok: boolean): void => {
    try {
      msg.respond(ok ? payload : undefined);
    } catch {
      // the requester is gone: nothing to do
    }
  };
  nc.subscribe(VISIBLE_SUBJECT, {
    callback: (err, msg) => {
      if (err) return;
      let min: number;
      try {
        min = Number((msg.json() as { minRevision?: number }).minRevision ?? 0);
      } catch {
        min = 0;
      }
      if (revision >= min) answer(msg, true);
      else waiting.push({ min, msg, at: Date.now() });
    },
  });
  setInterval(() => {
    const now = Date.now();
    const late = waiting.filter((w) => now - w.at > WAIT_MS);
    if (late.length === 0) return;
    waiting = waiting.filter((w) => now - w.at <= WAIT_MS);
    for (const w of late) answer(w.msg, false);
  }, 1000).unref();
  await nc.flush();

  const iter = await kv.watch();
  let ready = false;
  const sayReady = (): void => {
    ready = true;
    report({ what: "bare-visible", ready: true, bytes, entries: map.size });
  };
  if (lastSeq === 0) sayReady();
  const stop = (): void => void nc.close().finally(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  setTimeout(stop, MAX_LIFE_MS).unref();
  for await (const e of iter) {
    if (e.operation === "PUT") map.set(e.key, e.string());
    else map.delete(e.key);
    revision = e.revision;
    if (!ready && revision >= lastSeq) sayReady();
    if (waiting.length > 0) {
      const due = waiting.filter((w) => w.min <= revision);
      if (due.length > 0) {
        waiting = waiting.filter((w) => w.min > revision);
        for (const w of due) answer(w.msg, true);
      }
    }
  }
}

main().catch((err: unknown) => {
  report({ what: "bare-visible", error: (err as Error).message ?? String(err) });
  process.exit(1);
});
