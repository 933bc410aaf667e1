/**
 * `npm run bench` — the service measured side by side with its anchors.
 *
 *   npm run bench                       100k keys, 3 runs
 *   npm run bench -- --keys 1000000     1M keys
 *   npm run bench -- --quick            10k keys, 1 run, short phases (checks the harness)
 *   flags: --keys N  --runs R  --out FILE  --quick
 *          --cpu-prof (profiles of the service and the bare watch into
 *            bench-results/prof-<stamp>/; the figures of such a run are not clean)
 *          --put-rate P (puts per second of the put -> visible phase, default 1000)
 *          --burst N (new keys in the burst phase; default 300k below 1M keys,
 *            100k from 1M, 20k with --quick; 0 skips it)
 *          --service-node-flags "F" (extra node flags for the service, e.g. to try GC settings)
 *          --trace-gc (the service runs with node's --trace-gc; its garbage
 *            collections in each put -> visible round and in the burst are
 *            counted, with the longest pause)
 *          --startup-rate W (the nodes' writes per second during the start-up
 *            phase, default 500; 0 skips it)
 *          --only-startup (load, then the start-up phase alone)
 *          --only-site, --no-site (the site phase alone, or none: a hub and a
 *            site behind a 20 ms link, bench/site.ts, loaded with --keys)
 *
 * It starts a private nats-server, loads N needs, then runs the service and
 * the anchors (bare watch, echo of the same size, keys + gets, bare
 * watch+reply) as separate processes, prints a table of medians and ratios
 * and writes it all as JSON. The phases, in order: first sync and memory;
 * latency and throughput against the echo, cached and uncached; two
 * instances against one; keys + gets; put -> visible; the burst of new keys;
 * start-up while the nodes write (one instance, then three at once); the
 * site phase, on servers of its own.
 */
import { join } from "node:path";
import { loadavg } from "node:os";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { startNatsServer, type RunningNatsServer } from "../src/embedded/nats-server.js";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { burstPhase } from "./burst.js";
import { connectBench, ECHO_SUBJECT, nodeCount, PROBE_NODE, round } from "./common.js";
import { ROOT, spawnAnchor, stopAll } from "./children.js";
import { runBench, UsageError } from "./entry.js";
import { ensureServiceBuckets, loadNeeds, openNeeds } from "./load.js";
import type { Measured } from "./measured.js";
import { cyclingTarget, nodesTarget, fixedTarget, interleavedLatency, jsonBody, needsBodies } from "./measure.js";
import { putPhase } from "./put-phase.js";
import { machine, machineLines, markdownTable, writeJson } from "./report.js";
import { resultsJson } from "./results-json.js";
import { bumpRevision } from "./revision-ticker.js";
import { buildRows } from "./rows.js";
import { syncRuns } from "./sync.js";
import { cachedThroughput, uncachedThroughput } from "./throughput-phase.js";
import { twoInstances } from "./two-instances.js";
import { startupPhase, type StartupResult } from "./startup.js";
import { startupRows } from "./rows-startup.js";
import { tallySince, verbTally } from "./verb-tally.js";
import { sitePhase, siteRows, stopSitePhase, type SiteResult } from "./site.js";

interface Flags {
  keys: number;
  runs: number;
  out: string;
  quick: boolean;
  cpuProf: boolean;
  traceGc: boolean;
  serviceNodeFlags: string[];
  putRate: number;
  /** New keys in the burst phase; undefined: the default for the size. */
  burst: number | undefined;
  /** The nodes' writes per second in the start-up phase (0 skips it). */
  startupRate: number;
  onlyStartup: boolean;
  /** The site phase: "also" (after the others), "only", or "no". */
  site: "also" | "only" | "no";
}

const USAGE =
  "usage: npm run bench -- [--keys N] [--runs R] [--out FILE] [--quick] [--cpu-prof] [--put-rate P] [--burst N] [--trace-gc] [--service-node-flags F] [--startup-rate W] [--only-startup] [--only-site] [--no-site]";
const stamp = new Date().toISOString().replace(/[:.]/g, "-");

function parseFlags(argv: readonly string[]): Flags {
  const f: Flags = {
    keys: 100_000,
    runs: 3,
    out: join(ROOT, "bench-results", `${stamp}.json`),
    quick: false,
    cpuProf: false,
    traceGc: false,
    serviceNodeFlags: [],
    putRate: 1000,
    burst: undefined,
    startupRate: 500,
    onlyStartup: false,
    site: "also",
  };
  let keysSet = false;
  let runsSet = false;
  const intArg = (name: string, v: string | undefined, min: number, max: number): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} takes an integer from ${min} to ${max}, got ${v}\n${USAGE}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    // At least 18 nodes: the probe node is n17.
    if (a === "--keys") {
      f.keys = intArg(a, argv[++i], 1800, 10_000_000);
      keysSet = true;
    } else if (a === "--runs") {
      f.runs = intArg(a, argv[++i], 1, 20);
      runsSet = true;
    } else if (a === "--put-rate") f.putRate = intArg(a, argv[++i], 1, 20_000);
    else if (a === "--burst") f.burst = intArg(a, argv[++i], 0, 5_000_000);
    else if (a === "--startup-rate") f.startupRate = intArg(a, argv[++i], 0, 5_000);
    else if (a === "--only-startup") f.onlyStartup = true;
    else if (a === "--only-site" || a === "--no-site") f.site = a === "--only-site" ? "only" : "no";
    else if (a === "--out") f.out = argv[++i] ?? "";
    else if (a === "--quick") f.quick = true;
    else if (a === "--cpu-prof") f.cpuProf = true;
    else if (a === "--trace-gc") f.traceGc = true;
    else if (a === "--service-node-flags") f.serviceNodeFlags = (argv[++i] ?? "").split(" ").filter(Boolean);
    else if (a === "--help" || a === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else throw new UsageError(`unknown flag ${a}\n${USAGE}`);
  }
  if (f.quick) {
    if (!keysSet) f.keys = 10_000;
    if (!runsSet) f.runs = 1;
  }
  if (!f.out) throw new UsageError(`--out needs a file name\n${USAGE}`);
  return f;
}

/** Each progress line, with the 1-minute load average when it was printed (others share this machine). */
const phases: { at: string; load1: number; what: string }[] = [];
const log = (s: string): void => {
  phases.push({ at: new Date().toISOString(), load1: round(loadavg()[0]!, 2), what: s });
  process.stderr.write(`[bench] ${s}\n`);
};

async function main(flags: Flags, state: { server?: RunningNatsServer; nc?: NatsConnection }): Promise<void> {
  const m = machine();
  const q = flags.quick;
  const nodes = nodeCount(flags.keys);
  const phase = {
    latencyCount: q ? 300 : 3000,
    warmup: q ? 50 : 300,
    uncachedNodes: Math.min(nodes, flags.keys >= 1_000_000 ? 3000 : 1000),
    throughputMs: q ? 1000 : 5000,
    clientRuns: q ? 2 : 5,
    putRate: flags.putRate,
    putMs: q ? 1000 : 5000,
    burst: flags.burst ?? (q ? 20_000 : flags.keys < 1_000_000 ? 300_000 : 100_000),
  };
  log(machineLines(m, flags.keys, flags.runs));
  const site = (): Promise<SiteResult> =>
    sitePhase({
      keys: flags.keys,
      count: q ? 100 : 1000,
      warmup: q ? 20 : 100,
      delayMs: 20,
      rounds: flags.runs,
      cutMs: q ? 3000 : 5000,
      rate: flags.putRate,
      syncTimeoutMs: 60_000 + flags.keys / 2,
      log,
    });
  if (flags.site === "only") {
    const s = await site();
    const table = markdownTable(siteRows(s));
    process.stdout.write(`\n${machineLines(m, flags.keys, flags.runs)}\n\n${table}\n\n`);
    writeJson(flags.out, { machine: m, config: flags, site: s, table, rows: siteRows(s), phases });
    log(`results written to ${flags.out}`);
    return;
  }

  const server = (state.server = await startNatsServer());
  log(`nats-server at ${server.url} (store ${server.storeDir})`);
  const nc = (state.nc = await connectBench(server.url, "bench-driver"));
  await ensureServiceBuckets(nc, flags.keys);
  const kv = await openNeeds(nc);
  const load = await loadNeeds(kv, flags.keys, 256, 60_000 + flags.keys * 2);
  log(`loaded ${load.keys} keys in ${(load.ms / 1000).toFixed(1)} s (${load.putsPerSecond}/s, values ~${load.valueBytes} B)`);

  const syncTimeoutMs = 60_000 + flags.keys / 2;
  const startup = (): Promise<StartupResult> =>
    startupPhase({
      nc,
      serverUrl: server.url,
      keys: flags.keys,
      rate: flags.startupRate,
      timeoutMs: syncTimeoutMs * 3,
      serviceFlags: flags.serviceNodeFlags,
      log,
      rounds: flags.runs,
    });
  if (flags.onlyStartup) {
    const started = await startup();
    const rows = startupRows(started);
    process.stdout.write(`\n${machineLines(m, flags.keys, flags.runs)}\n\n${markdownTable(rows)}\n\n`);
    writeJson(flags.out, { machine: m, config: flags, load, startup: started, rows, phases });
    log(`results written to ${flags.out}`);
    return;
  }

  const profDir = join(ROOT, "bench-results", `prof-${stamp}`);
  const profFlags = flags.cpuProf ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [];
  log(`first sync and memory, ${flags.runs} run(s): bare watch and service one after the other`);
  const serviceFlags = [...profFlags, ...flags.serviceNodeFlags, ...(flags.traceGc ? ["--trace-gc"] : [])];
  const sync = await syncRuns(server.url, flags.runs, { timeoutMs: syncTimeoutMs, serviceFlags, bareFlags: profFlags, log });

  // The size of the answer for one node's needs: the echo answers with as many bytes.
  const probeBody = jsonBody({ what: "needs", node: PROBE_NODE });
  const probe = await nc.request(VERB_SUBJECT, probeBody, { timeout: 10_000 });
  const answer = probe.json<{ entries?: unknown[]; error?: unknown }>();
  if (!answer.entries) throw new Error(`the verb did not answer ${PROBE_NODE}'s needs: ${probe.string().slice(0, 300)}`);
  const answerBytes = probe.data.length;
  log(`${PROBE_NODE}'s needs: ${answer.entries.length} entries, ${answerBytes} bytes; starting the echo of that size`);
  const echo = spawnAnchor("echo.js", [server.url, answerBytes]);
  await echo.result(15_000, "ready line");

  log(`latency, 1 in flight: ${phase.latencyCount} requests each, interleaved with the echo`);
  const [lService, lEcho] = await interleavedLatency(nc, [fixedTarget(VERB_SUBJECT, probeBody), fixedTarget(ECHO_SUBJECT, probeBody)], {
    count: phase.latencyCount,
    warmup: phase.warmup,
    timeoutMs: 120_000,
  });
  const bodies = needsBodies(nodes);
  const uncached = await uncachedLatency(nc, kv, bodies, phase.uncachedNodes);

  // Nodes recur in the throughput rounds: no request may be served from the service's cache (see revision-ticker.ts).
  log(`throughput, 64 in flight, ${phase.throughputMs} ms each, ${flags.runs} round(s): the same node (cached), then a new node each request`);
  const tCached = await cachedThroughput(nc, probeBody, flags.runs, phase.throughputMs);
  const tUncached = await uncachedThroughput(nc, kv, bodies, flags.runs, phase.throughputMs);
  const perSec = (xs: number[]): string => xs.map((x) => x.toFixed(0)).join(", ");
  log(`throughput, cached: service ${perSec(tCached.service)}; echo ${perSec(tCached.echo)} req/s`);
  log(
    `throughput, uncached: service ${perSec(tUncached.service)}; echo ${perSec(tUncached.echo)} req/s; cache hits ${tUncached.verb?.cacheHits} of ${tUncached.verb?.requests}`,
  );

  const two = await twoInstances({
    nc,
    kv,
    serverUrl: server.url,
    bodies,
    rounds: flags.runs,
    durationMs: phase.throughputMs,
    serviceFlags: flags.serviceNodeFlags,
    syncTimeoutMs,
    log,
  });

  log(`the client way: keys("${PROBE_NODE}.>") and a get per key, ${phase.clientRuns} runs`);
  const cw = spawnAnchor("client-way.js", [server.url, PROBE_NODE, phase.clientRuns]);
  const clientWay = await cw.result(120_000, "client-way result");
  await cw.stop();

  const { putVisible, gcPerRound } = await putPhase({
    nc,
    kv,
    serverUrl: server.url,
    service: sync.service$,
    answerBytes,
    rate: phase.putRate,
    roundMs: phase.putMs,
    rounds: flags.runs,
    keys: flags.keys,
    traceGc: flags.traceGc,
    readyTimeoutMs: syncTimeoutMs,
    log,
  });

  const burst =
    phase.burst > 0
      ? await burstPhase({
          nc,
          kv,
          service: sync.service$,
          keys: flags.keys,
          count: phase.burst,
          bodies,
          traceGc: flags.traceGc,
          echo: true,
          timeoutMs: 60_000 + phase.burst * 2,
          log,
        })
      : undefined;
  // The echo stayed up (idle: one subscription) to be asked alongside the service around the burst.
  await echo.stop();

  await sync.service$.stop();
  const started = flags.startupRate > 0 ? await startup() : undefined;
  // On servers of its own: the bench's server and its children are stopped first.
  await stopAll();
  await nc.close();
  await server.stop();
  const siteResult = flags.site === "also" ? await site() : undefined;
  m.loadAvgAtEnd = loadavg().map((x) => round(x, 2));
  const loads = phases.map((p) => p.load1);
  m.load1During = [Math.min(...loads), Math.max(...loads)];

  const measured: Measured = {
    sync,
    latency: { cached: { service: lService!, echo: lEcho! }, uncached },
    throughput: { cached: tCached, uncached: tUncached },
    clientWay,
    putVisible,
    gcPerRound: flags.traceGc ? gcPerRound : undefined,
    burst,
    twoInstances: two,
    startup: started,
    answerBytes,
    putRate: phase.putRate,
  };
  const rows = [...buildRows(measured), ...(siteResult ? siteRows(siteResult) : [])];
  const table = markdownTable(rows);
  process.stdout.write(`\n${machineLines(m, flags.keys, flags.runs)}\n\n${table}\n\n`);
  writeJson(flags.out, {
    ...resultsJson({
      machine: m,
      config: { ...flags, phase },
      load,
      answer: { node: PROBE_NODE, entries: answer.entries.length, bytes: answerBytes },
      measured,
      rows,
      table,
      phases,
    }),
    site: siteResult,
  });
  log(`results written to ${flags.out}${flags.cpuProf ? `; CPU profiles in ${profDir}` : ""}`);
}

/**
 * p50/p99 of uncached answers against the echo: `count` nodes from a random
 * offset, each asked once, the same sequence for both sides, alternating
 * ask by ask. A new revision first, so no answer cached earlier matches.
 *
 * A warm-up round of the same shape goes first, not counted, then the
 * revision moves again: a mesh's service builds answers all day, so the
 * steady state is what a node meets. Without it the row measured the JIT
 * compiling the answer path (the phases before ask only cached answers): in
 * one test, 1000 first uncached asks of a fresh service had a p50 of 0.86 ms
 * against 0.39 and 0.38 ms for the next two rounds of 1000.
 */
async function uncachedLatency(nc: NatsConnection, kv: KV, bodies: readonly Uint8Array[], count: number): Promise<Measured["latency"]["uncached"]> {
  log(`latency, 1 in flight, a new node each request (uncached): ${count} nodes, interleaved with the echo asked the same nodes, after a warm-up round`);
  const warm = Math.floor(Math.random() * bodies.length);
  if (!(await bumpRevision(nc, kv, VERB_SUBJECT))) log("warning: could not move the revision before the warm-up; answers may come from the cache");
  await interleavedLatency(nc, [nodesTarget(bodies, warm), cyclingTarget(ECHO_SUBJECT, bodies, warm)], { count, warmup: 0, timeoutMs: 120_000 });
  if (!(await bumpRevision(nc, kv, VERB_SUBJECT))) log("warning: could not move the revision before the uncached latency; answers may come from the cache");
  const offset = Math.floor(Math.random() * bodies.length);
  const before = await verbTally(nc, 1);
  // Each node's needs on its own subject, then the same on the mesh's subject (built again: an answer is kept only
  // from its second ask), then the echo.
  const [service, mesh, echo] = await interleavedLatency(
    nc,
    [nodesTarget(bodies, offset), cyclingTarget(VERB_SUBJECT, bodies, offset), cyclingTarget(ECHO_SUBJECT, bodies, offset)],
    { count, warmup: 0, timeoutMs: 120_000 },
  );
  const verb = tallySince(before, await verbTally(nc, 1));
  log(`latency, uncached: ${service!.ms.length} answers, ${service!.errors} errors; cache hits ${verb.cacheHits} of ${verb.requests}`);
  return { service: service!, echo: echo!, mesh: mesh!, nodes: count, verb };
}

async function cleanup(state: { server?: RunningNatsServer; nc?: NatsConnection }): Promise<void> {
  await stopSitePhase();
  await stopAll();
  await state.nc?.close().catch(() => undefined);
  await state.server?.stop().catch(() => undefined);
}

await runBench({ log, parseFlags, main, cleanup, state: {} });
