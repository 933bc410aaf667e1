/**
 * `npm run bench` — the service measured side by side with its anchors.
 *
 *   npm run bench                       100k keys, 3 runs
 *   npm run bench -- --keys 1000000     1M keys
 *   npm run bench -- --quick            10k keys, 1 run, short phases (checks the harness)
 *   flags: --keys N  --runs R  --out FILE  --quick  --trace-gc
 *          --cpu-prof (profiles of the service and the bare watch into
 *            bench-results/prof-<stamp>/; the figures of such a run are not clean)
 *          --put-rate P (puts per second of the put -> visible phase, default 1000)
 *          --service-node-flags "F" (extra node flags for the service, e.g. to try GC settings)
 *          --trace-gc (the service runs with node's --trace-gc; the garbage
 *            collections it ran in each put -> visible round are counted)
 *
 * It starts a private nats-server, loads N needs, then runs the service and
 * the anchors (bare watch, echo of the same size, keys + gets) as separate
 * processes, prints a table of medians and ratios and writes it all as JSON.
 */
import { join } from "node:path";
import { loadavg } from "node:os";
import type { NatsConnection } from "@nats-io/nats-core";
import { startNatsServer, type RunningNatsServer } from "../src/embedded/nats-server.js";
import { VERB_SUBJECT } from "../src/verb/service.js";
import { connectBench, ECHO_SUBJECT, median, nodeCount, PROBE_NODE, round, summarize } from "./common.js";
import { killAllNow, ROOT, spawnAnchor, stopAll } from "./children.js";
import { ensureServiceBuckets, loadNeeds, openNeeds } from "./load.js";
import { cyclingTarget, fixedTarget, interleavedLatency, jsonBody, needsBodies, throughput } from "./measure.js";
import { putPhase } from "./put-phase.js";
import { machine, machineLines, markdownTable, writeJson } from "./report.js";
import { buildRows, type Measured } from "./rows.js";
import { syncRuns } from "./sync.js";

interface Flags {
  keys: number;
  runs: number;
  out: string;
  quick: boolean;
  cpuProf: boolean;
  traceGc: boolean;
  serviceNodeFlags: string[];
  putRate: number;
}

const USAGE = "usage: npm run bench -- [--keys N] [--runs R] [--out FILE] [--quick] [--cpu-prof] [--put-rate P] [--trace-gc] [--service-node-flags F]";
const stamp = new Date().toISOString().replace(/[:.]/g, "-");

class UsageError extends Error {}

function parseFlags(argv: readonly string[]): Flags {
  const f: Flags = { keys: 100_000, runs: 3, out: join(ROOT, "bench-results", `${stamp}.json`), quick: false, cpuProf: false, traceGc: false, serviceNodeFlags: [], putRate: 1000 };
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
    if (a === "--keys") (f.keys = intArg(a, argv[++i], 1800, 5_000_000)), (keysSet = true);
    else if (a === "--runs") (f.runs = intArg(a, argv[++i], 1, 20)), (runsSet = true);
    else if (a === "--put-rate") f.putRate = intArg(a, argv[++i], 1, 20_000);
    else if (a === "--out") f.out = argv[++i] ?? "";
    else if (a === "--quick") f.quick = true;
    else if (a === "--cpu-prof") f.cpuProf = true;
    else if (a === "--trace-gc") f.traceGc = true;
    else if (a === "--service-node-flags") f.serviceNodeFlags = (argv[++i] ?? "").split(" ").filter(Boolean);
    else if (a === "--help" || a === "-h") (console.log(USAGE), process.exit(0));
    else throw new UsageError(`unknown flag ${a}\n${USAGE}`);
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
  const phase = {
    latencyCount: q ? 300 : 3000,
    warmup: q ? 50 : 300,
    uncachedNodes: Math.min(nodeCount(flags.keys), q ? 100 : 1000),
    throughputMs: q ? 1000 : 5000,
    clientRuns: q ? 2 : 5,
    putRate: flags.putRate,
    putMs: q ? 1000 : 5000,
  };
  log(machineLines(m, flags.keys, flags.runs));

  const server = (state.server = await startNatsServer());
  log(`nats-server at ${server.url} (store ${server.storeDir})`);
  const nc = (state.nc = await connectBench(server.url, "bench-driver"));
  await ensureServiceBuckets(nc);
  const kv = await openNeeds(nc);
  const load = await loadNeeds(kv, flags.keys, 256, 60_000 + flags.keys * 2);
  log(`loaded ${load.keys} keys in ${(load.ms / 1000).toFixed(1)} s (${load.putsPerSecond}/s, values ~${load.valueBytes} B)`);

  const profDir = join(ROOT, "bench-results", `prof-${stamp}`);
  const profFlags = flags.cpuProf ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [];
  const syncTimeoutMs = 60_000 + flags.keys / 2;
  log(`first sync and memory, ${flags.runs} run(s): bare watch and service one after the other`);
  const sync = await syncRuns(server.url, flags.runs, { timeoutMs: syncTimeoutMs, serviceFlags: [...profFlags, ...flags.serviceNodeFlags, ...(flags.traceGc ? ["--trace-gc"] : [])], bareFlags: profFlags, log });

  // The size of the answer for one node's needs: the echo answers with as many bytes.
  const probeBody = jsonBody({ what: "needs", node: PROBE_NODE });
  const probe = await nc.request(VERB_SUBJECT, probeBody, { timeout: 10_000 });
  const answer = probe.json<{ entries?: unknown[]; error?: unknown }>();
  if (!answer.entries) throw new Error(`the verb did not answer ${PROBE_NODE}'s needs: ${probe.string().slice(0, 300)}`);
  const answerBytes = probe.data.length;
  log(`${PROBE_NODE}'s needs: ${answer.entries.length} entries, ${answerBytes} bytes; starting the echo of that size`);
  const echo = spawnAnchor("echo.js", [server.url, answerBytes]);
  await echo.result(15_000, "ready line");

  const service = fixedTarget(VERB_SUBJECT, probeBody);
  const echoT = fixedTarget(ECHO_SUBJECT, probeBody);
  log(`latency, 1 in flight: ${phase.latencyCount} requests each, interleaved with the echo`);
  const [lService, lEcho] = await interleavedLatency(nc, [service, echoT], {
    count: phase.latencyCount,
    warmup: phase.warmup,
    blocks: 6,
    timeoutMs: 120_000,
  });
  log(`latency, a different node each request (answers not cached yet): ${phase.uncachedNodes} requests`);
  const [lUncached] = await interleavedLatency(nc, [cyclingTarget(VERB_SUBJECT, needsBodies(phase.uncachedNodes), 0)], {
    count: phase.uncachedNodes,
    warmup: 0,
    blocks: 1,
    timeoutMs: 120_000,
  });

  log(`throughput, 64 in flight, ${phase.throughputMs} ms each, ${flags.runs} round(s)`);
  const tService: number[] = [];
  const tEcho: number[] = [];
  const tErrors = { service: 0, echo: 0 };
  for (let r = 0; r < flags.runs; r++) {
    const pair = r % 2 === 0 ? ([echoT, service] as const) : ([service, echoT] as const);
    for (const t of pair) {
      const res = await throughput(nc, t, 64, phase.throughputMs);
      (t === service ? tService : tEcho).push(res.perSecond);
      tErrors[t === service ? "service" : "echo"] += res.errors;
    }
  }
  log(`throughput: service ${tService.map((x) => x.toFixed(0)).join(", ")}; echo ${tEcho.map((x) => x.toFixed(0)).join(", ")} req/s`);
  await echo.stop();

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

  await sync.service$.stop();
  m.loadAvgAtEnd = loadavg().map((x) => round(x, 2));
  const loads = phases.map((p) => p.load1);
  m.load1During = [Math.min(...loads), Math.max(...loads)];

  const measured: Measured = {
    sync,
    latency: { service: lService!, echo: lEcho!, uncached: lUncached! },
    throughput: { service: tService, echo: tEcho, errors: tErrors },
    clientWay,
    putVisible,
    answerBytes,
    putRate: phase.putRate,
  };
  const rows = buildRows(measured);
  const table = markdownTable(rows);
  process.stdout.write(`\n${machineLines(m, flags.keys, flags.runs)}\n\n${table}\n\n`);
  writeJson(flags.out, {
    tool: "mesh-provisioner bench",
    date: new Date().toISOString(),
    machine: m,
    config: { ...flags, phase },
    load,
    answer: { node: PROBE_NODE, entries: answer.entries.length, bytes: answerBytes },
    sync: { service: sync.service, bareWatch: sync.bareWatch },
    latencyMs: {
      service: summarize(lService!.ms),
      echo: summarize(lEcho!.ms),
      uncached: summarize(lUncached!.ms),
      errors: { service: lService!.errors, echo: lEcho!.errors, uncached: lUncached!.errors },
    },
    throughput: { service: tService, echo: tEcho, medianService: median(tService), medianEcho: median(tEcho), errors: tErrors },
    clientWay,
    serviceGcPerPutRound: flags.traceGc ? gcPerRound : undefined,
    putVisible: Object.fromEntries(
      (["service", "bare"] as const).map((who) => [
        who,
        putVisible[who].map((r) => ({ ...r, visibleMs: summarize(r.visibleMs), ackMs: summarize(r.ackMs), afterAckMs: summarize(r.afterAckMs) })),
      ]),
    ),
    rows,
    table,
    phases,
  });
  log(`results written to ${flags.out}${flags.cpuProf ? `; CPU profiles in ${profDir}` : ""}`);
}

async function cleanup(state: { server?: RunningNatsServer; nc?: NatsConnection }): Promise<void> {
  await stopAll();
  await state.nc?.close().catch(() => undefined);
  await state.server?.stop().catch(() => undefined);
}

const state: { server?: RunningNatsServer; nc?: NatsConnection } = {};
process.on("exit", killAllNow);
let interrupted = false;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${sig}: stopping the children and the server`);
    void cleanup(state).finally(() => process.exit(130));
  });
}

try {
  const flags = parseFlags(process.argv.slice(2));
  await main(flags, state);
  await cleanup(state);
} catch (err) {
  log(`failed: ${err instanceof UsageError ? err.message : ((err as Error).stack ?? String(err))}`);
  await cleanup(state);
  process.exitCode = 1;
}
