/**
 * Anchor: what a client does without the service to learn one node's needs:
 * list the node's keys with `kv.keys("<node>.>")`, then `kv.get` each one.
 * `node dist/bench/client-way.js <url> <node> <runs>`
 *
 * Reports one JSON line with the time of each run, split into the listing and
 * the gets (one at a time, as a simple client does), and, for reference, the
 * same gets all in flight at once.
 */
import { Kvm } from "@nats-io/kv";
import { connectBench, NEEDS_BUCKET, report } from "./common.js";

const MAX_KEYS = 100_000;
const MAX_RUNS = 50;

async function main(): Promise<void> {
  const [url, node, runsArg] = process.argv.slice(2);
  const runs = Math.min(MAX_RUNS, Math.max(1, Number(runsArg ?? 5)));
  if (!url || !node) throw new Error("usage: client-way.js <nats-url> <node> <runs>");
  const nc = await connectBench(url, "bench-client-way");
  const kv = await new Kvm(nc).open(NEEDS_BUCKET);
  const keysMs: number[] = [];
  const getsMs: number[] = [];
  const totalMs: number[] = [];
  const parallelGetsMs: number[] = [];
  let keyCount = 0;
  let bytes = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const keys: string[] = [];
    for await (const k of await kv.keys(`${node}.>`)) {
      keys.push(k);
      if (keys.length >= MAX_KEYS) break;
    }
    const t1 = performance.now();
    bytes = 0;
    for (const k of keys) {
      const e = await kv.get(k);
      if (e && e.operation === "PUT") bytes += e.value.length;
    }
    const t2 = performance.now();
    await Promise.all(keys.map((k) => kv.get(k)));
    const t3 = performance.now();
    keyCount = keys.length;
    keysMs.push(t1 - t0);
    getsMs.push(t2 - t1);
    totalMs.push(t2 - t0);
    parallelGetsMs.push(t3 - t2);
  }
  await nc.close();
  report({ what: "client-way", node, keys: keyCount, valueBytes: bytes, keysMs, getsMs, totalMs, parallelGetsMs });
}

main().catch((err: unknown) => {
  report({ what: "client-way", error: (err as Error).message ?? String(err) });
  process.exit(1);
});
