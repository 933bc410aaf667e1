/**
 * The bench's uncached throughput phase alone, to profile the answer path
 * without the whole run: a private nats-server with N needs, the service
 * and the echo of its answer's size, a warm-up round, then R rounds of 64
 * requests in flight, each to a different node, alternating with the echo
 * (as `npm run bench` does; see throughput-phase.ts).
 *
 *   node dist/bench/uncached.js [--keys N] [--rounds R] [--cpu-prof DIR]
 *
 * Prints one JSON line: each round's answers per second, the echo's, their
 * ratios and the service's cache hits (0: every answer was built). With
 * --cpu-prof the service and the echo write CPU profiles into DIR, for
 * `node dist/bench/profile-summary.js FILE --inclusive page,respond`.
 */
import { resolve } from "node:path";
import { startNatsServer } from "../src/embedded/nats-server.js";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { spawnAnchor, stopAll } from "./children.js";
import { connectBench, nodeCount, PROBE_NODE, report, round } from "./common.js";
import { ensureServiceBuckets, loadNeeds, openNeeds } from "./load.js";
import { jsonBody, needsBodies } from "./measure.js";
import { measureService } from "./sync.js";
import { uncachedThroughput } from "./throughput-phase.js";

const USAGE = "usage: node dist/bench/uncached.js [--keys N] [--rounds R] [--cpu-prof DIR]";
const ROUND_MS = 5000;
const WARM_MS = 2000;

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const keys = Number(flag("--keys") ?? 100_000);
  const rounds = Number(flag("--rounds") ?? 3);
  if (!Number.isInteger(keys) || keys < 1800 || !Number.isInteger(rounds) || rounds < 1) throw new Error(USAGE);
  const profDir = flag("--cpu-prof");
  const profFlags = profDir ? ["--cpu-prof", `--cpu-prof-dir=${resolve(profDir)}`] : [];
  const server = await startNatsServer();
  const nc = await connectBench(server.url, "bench-uncached");
  try {
    await ensureServiceBuckets(nc);
    const kv = await openNeeds(nc);
    await loadNeeds(kv, keys, 256, 60_000 + keys * 2);
    const syncTimeoutMs = 60_000 + keys / 2;
    const { child } = await measureService(server.url, syncTimeoutMs, profFlags);
    const probe = await nc.request(VERB_SUBJECT, jsonBody({ what: "needs", node: PROBE_NODE }), { timeout: 10_000 });
    const echo = spawnAnchor("echo.js", [server.url, probe.data.length], profFlags);
    await echo.result(15_000, "ready line");
    const bodies = needsBodies(nodeCount(keys));
    await uncachedThroughput(nc, kv, bodies, 1, WARM_MS);
    const t = await uncachedThroughput(nc, kv, bodies, rounds, ROUND_MS);
    report({
      what: "uncached throughput",
      keys,
      service: t.service.map(Math.round),
      echo: t.echo.map(Math.round),
      ratios: t.service.map((s, i) => round(s / t.echo[i]!)),
      requests: t.verb?.requests,
      cacheHits: t.verb?.cacheHits,
    });
    await echo.stop();
    await child.stop();
  } finally {
    await stopAll();
    await nc.close().catch(() => undefined);
    await server.stop().catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message ?? String(err)}\n`);
  process.exitCode = 1;
});
