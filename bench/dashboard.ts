/**
 * `npm run bench:dashboard` — the operator's dashboard measured in a real
 * browser (issue 12): headless Chromium (Debian's, /usr/bin/chromium, or
 * CHROMIUM_BIN) driven by playwright-core, against the service over a mesh
 * of N needs.
 *
 *   npm run bench:dashboard                              100k needs (1,000 nodes)
 *   npm run bench:dashboard -- --keys 1000000            1M needs (10,000 nodes); the load takes minutes
 *   flags: --keys N  --runs R (page opens per measurement, default 5)
 *          --samples S (puts for the node on screen, default 20)
 *          --rate P (background puts/s elsewhere in the mesh, default 1000)
 *          --hold-ms MS (a page kept open this long, its heap read every second, default 5000)
 *          --out FILE
 *
 * It starts a private nats-server, loads N needs (bench/load.ts), starts
 * `serve --http 127.0.0.1:0`, waits for its first sync (and reads its RSS,
 * as the main bench does), then, in the browser, each on a new page:
 *   quiet:   the overview opened R times (after one first open, reported
 *            apart) until live; R node pages (a different node each) until
 *            live with their 100 needs;
 *   writes:  with P puts/s to other nodes running (bench/background-writer.ts):
 *            the overview R times, the last kept open; R other node pages;
 *            one node's page open while S new needs are put for it, each
 *            timed from its ack (and from just before the put) to its row;
 *            each mesh-wide page (registry, kind, unanswered, out of shape,
 *            collections, a collection, instances) R times; the collection's
 *            page open while S items are put into it, then kept open.
 * Besides the needs, it puts what the mesh-wide pages list
 * (bench/dashboard-pages.ts): a collection item per node, some needs no
 * domain answers, some keys out of shape.
 * The page's heap is read after each page is live and every second while
 * pages stay open (then once more after a forced gc). The table goes to stdout; everything to
 * bench-results/dashboard-<keys>-<stamp>.json (git-ignored). Every process
 * it started (browser, service, nats-server) is stopped at the end, on an
 * error and on Ctrl-C.
 */
import { accessSync, constants as fsc } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import type { NatsConnection } from "@nats-io/nats-core";
import { startNatsServer, type RunningNatsServer } from "../src/embedded/nats-server.js";
import { startWriter, type BackgroundWriter } from "./background-writer.js";
import { ROOT, stopAll } from "./children.js";
import { runBench, UsageError } from "./entry.js";
import { connectBench, KEYS_PER_NODE, nodeCount, round, sleep } from "./common.js";
import { CHROMIUM, launchChromium } from "./chromium.js";
import { nodeLivePhase, overviewLive, putShown, type PhaseContext } from "./dashboard-phases.js";
import { brief, dashRows, dashTable, type DashMeasured } from "./dashboard-report.js";
import { rssNow, startHttpService } from "./dashboard-service.js";
import { ensureServiceBuckets, loadNeeds, openNeeds } from "./load.js";
import { collectionPutShown, listPagesLive, loadPageExtras } from "./dashboard-pages.js";
import { machine, machineLines, writeJson } from "./report.js";

interface Flags {
  keys: number;
  runs: number;
  samples: number;
  rate: number;
  holdMs: number;
  out: string | undefined;
}

const USAGE = "usage: npm run bench:dashboard -- [--keys N] [--runs R] [--samples S] [--rate P] [--hold-ms MS] [--out FILE]";
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const LIVE_TIMEOUT_MS = 60_000;
/** The writer runs this long before anything is measured under it. */
const WRITER_WARM_UP_MS = 2000;

function parseFlags(argv: readonly string[]): Flags {
  const f: Flags = { keys: 100_000, runs: 5, samples: 20, rate: 1000, holdMs: 5000, out: undefined };
  const intArg = (name: string, v: string | undefined, min: number, max: number): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} takes an integer from ${min} to ${max}, got ${v}\n${USAGE}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--keys") f.keys = intArg(a, argv[++i], 1000, 5_000_000);
    else if (a === "--runs") f.runs = intArg(a, argv[++i], 1, 20);
    else if (a === "--samples") f.samples = intArg(a, argv[++i], 1, 1000);
    else if (a === "--rate") f.rate = intArg(a, argv[++i], 1, 20_000);
    else if (a === "--hold-ms") f.holdMs = intArg(a, argv[++i], 0, 600_000);
    else if (a === "--out") f.out = argv[++i] || undefined;
    else if (a === "--help" || a === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else throw new UsageError(`unknown flag ${a}\n${USAGE}`);
  }
  // Nodes with all their needs: R quiet pages, R under writes, one for the puts, each a different node.
  if (Math.floor(f.keys / KEYS_PER_NODE) < 2 * f.runs + 1)
    throw new UsageError(`--keys ${f.keys} has too few nodes for ${f.runs} runs (${2 * f.runs + 1} are opened)\n${USAGE}`);
  return f;
}

const phases: { at: string; load1: number; what: string }[] = [];
const log = (s: string): void => {
  phases.push({ at: new Date().toISOString(), load1: round(loadavg()[0]!, 2), what: s });
  process.stderr.write(`[bench:dashboard] ${s}\n`);
};

interface State {
  server?: RunningNatsServer;
  nc?: NatsConnection;
  browser?: Browser;
  writer?: BackgroundWriter;
}

/** `count` different nodes spread over the nodes that have all their needs. */
function spreadNodes(keys: number, count: number): string[] {
  const full = Math.floor(keys / KEYS_PER_NODE);
  return Array.from({ length: count }, (_, k) => `n${Math.floor(((k + 0.5) * full) / count)}`);
}

async function main(flags: Flags, state: State): Promise<void> {
  try {
    accessSync(CHROMIUM, fsc.X_OK);
  } catch {
    throw new Error(`no Chromium at ${CHROMIUM} (sudo apt-get install chromium, or set CHROMIUM_BIN)`);
  }
  const m = machine();
  const nodes = nodeCount(flags.keys);
  const out = flags.out ?? join(ROOT, "bench-results", `dashboard-${flags.keys}-${stamp}.json`);
  log(machineLines(m, flags.keys, flags.runs));

  const server = (state.server = await startNatsServer());
  log(`nats-server at ${server.url} (store ${server.storeDir})`);
  const nc = (state.nc = await connectBench(server.url, "bench-dashboard-driver"));
  await ensureServiceBuckets(nc);
  const kv = await openNeeds(nc);
  const load = await loadNeeds(kv, flags.keys, 256, 60_000 + flags.keys * 2);
  log(`loaded ${load.keys} keys (${nodes} nodes) in ${(load.ms / 1000).toFixed(1)} s (${load.putsPerSecond}/s)`);
  const extras = await loadPageExtras(nc, nodes);
  log(
    `put ${extras.puts} more for the mesh-wide pages (a collection item per node, unanswered needs, keys out of shape) in ${(extras.ms / 1000).toFixed(1)} s`,
  );

  const svc = await startHttpService(server.url, 60_000 + flags.keys / 2);
  log(`service synced in ${svc.syncMs} ms, RSS ${(svc.rssAfterSync / 2 ** 20).toFixed(0)} MiB after a forced gc; dashboard at ${svc.url}/`);

  const browser = (state.browser = await launchChromium({ timeoutMs: 30_000, ownSignals: true }));
  const browserVersion = `Chromium ${browser.version()}`;
  log(`browser: ${browserVersion}`);
  const pageErrors: string[] = [];
  const ctx: PhaseContext = { browser, base: svc.url, errors: pageErrors, heap: [], writes: false, liveTimeoutMs: LIVE_TIMEOUT_MS, log };
  const chosen = spreadNodes(flags.keys, 2 * flags.runs + 1);
  const quietNodes = chosen.filter((_, k) => k % 2 === 0).slice(0, flags.runs);
  const writesNodes = chosen.filter((_, k) => k % 2 === 1);
  const putNode = chosen[chosen.length - 1]!;

  const first = await overviewLive(ctx, { runs: 1, expectNodes: nodes, phase: "overview, first open after launch" });
  const overviewQuiet = await overviewLive(ctx, { runs: flags.runs, expectNodes: nodes, phase: "overview (quiet)" });
  const nodeQuiet = await nodeLivePhase(ctx, { nodes: quietNodes, phase: "node page (quiet)" });

  log(`background writes: ${flags.rate} puts/s to nodes other than the ${chosen.length} the pages show`);
  const writer = (state.writer = await startWriter(server.url, { rate: flags.rate, keys: flags.keys, exclude: new Set(chosen) }));
  ctx.writes = true;
  await sleep(WRITER_WARM_UP_MS);
  const overviewWrites = await overviewLive(ctx, { runs: flags.runs, expectNodes: nodes, phase: "overview (writes)", holdMs: flags.holdMs });
  const nodeWrites = await nodeLivePhase(ctx, { nodes: writesNodes, phase: "node page (writes)" });
  const put = await putShown(ctx, kv, { node: putNode, samples: flags.samples, phase: "put -> shown (writes)", holdMs: flags.holdMs });
  const lists = await listPagesLive(ctx, { runs: flags.runs, phase: "mesh-wide page (writes)" });
  const collectionPut = await collectionPutShown(ctx, nc, { samples: flags.samples, holdMs: flags.holdMs, phase: "collection item put -> shown (writes)" });
  const writerResult = await writer.stop();
  state.writer = undefined;
  ctx.writes = false;
  log(
    `background writes: ${writerResult.acked} acked in ${(writerResult.durationMs / 1000).toFixed(1)} s = ${writerResult.achievedPerSecond}/s ` +
      `(per second ${writerResult.perSecondMin}–${writerResult.perSecondMax}), ${writerResult.errors} errors, ${writerResult.skipped} skipped`,
  );
  const end = rssNow(svc.child);
  await browser.close();
  state.browser = undefined;
  await stopAll();
  for (const e of pageErrors) log(`page error: ${e}`);

  m.loadAvgAtEnd = loadavg().map((x) => round(x, 2));
  const loads = phases.map((p) => p.load1);
  m.load1During = [Math.min(...loads), Math.max(...loads)];
  const measured: DashMeasured = {
    nodes,
    firstOverviewMs: first.ms[0]!,
    overviewQuiet,
    overviewWrites,
    nodeQuiet,
    nodeWrites,
    put,
    lists,
    collectionPut,
    heap: ctx.heap,
    writer: writerResult,
    pageErrors,
    service: { syncMs: svc.syncMs, rssAfterSync: svc.rssAfterSync, rssAtEnd: end.rss, peakRss: end.hwm },
  };
  const rows = dashRows(measured, flags.rate);
  const table = dashTable(rows);
  process.stdout.write(`\n${machineLines(m, flags.keys, flags.runs)}\nbrowser: ${browserVersion}, headless, playwright-core\n\n${table}\n\n`);
  const live = (s: typeof overviewQuiet): Record<string, unknown> => ({ ms: brief(s.ms), inPageMs: brief(s.inPageMs), nodes: s.nodes, timelines: s.timelines });
  writeJson(out, {
    tool: "mesh-provisioner bench:dashboard",
    date: new Date().toISOString(),
    machine: m,
    browser: browserVersion,
    config: { ...flags, out, liveTimeoutMs: LIVE_TIMEOUT_MS, writerWarmUpMs: WRITER_WARM_UP_MS },
    load,
    nodes,
    service: { ...measured.service, startMs: svc.startMs, peakRssAtSync: svc.peakRssAtSync },
    overview: { first: live(first), quiet: live(overviewQuiet), writes: live(overviewWrites) },
    nodePage: { quiet: live(nodeQuiet), writes: live(nodeWrites) },
    putShown: { node: put.node, notShown: put.notShown, fromAckMs: brief(put.fromAckMs), fromPutMs: brief(put.fromPutMs), ackMs: brief(put.ackMs) },
    listPages: Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, live(v)])),
    collectionPutShown: { notShown: collectionPut.notShown, fromAckMs: brief(collectionPut.fromAckMs), fromPutMs: brief(collectionPut.fromPutMs) },
    heapSamples: ctx.heap,
    writer: writerResult,
    pageErrors,
    rows,
    table,
    phases,
  });
  log(`results written to ${out}`);
}

async function cleanup(state: State): Promise<void> {
  await state.writer?.stop().catch(() => undefined);
  await state.browser?.close().catch(() => undefined);
  await stopAll();
  await state.nc?.close().catch(() => undefined);
  await state.server?.stop().catch(() => undefined);
}

await runBench({ log, parseFlags, main, cleanup, state: {} as State, signals: ["SIGINT", "SIGTERM", "SIGHUP"], quietAfterSignal: true });
