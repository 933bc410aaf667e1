/**
 * `npm run soak` — does the service's resident memory level off under
 * steady churn?
 *
 *   npm run soak                                  100k needs, 120 minutes
 *   npm run soak -- --minutes 3 --keys 20000      checks the harness
 *   flags: --minutes M  --keys N  --rate P (puts/s)  --ask-rate A (asks/s)
 *          --value-bytes B  --window-minutes W  --tolerance T (MiB/h)
 *          --server BIN (else NATS_SERVER_BIN, PATH, /usr/sbin)  --out FILE
 *          --serve-args="A B"  (more flags for the service's `serve`; with `=`
 *          when they start with a dash)
 *
 * It starts a private nats-server, loads N needs with values of one fixed
 * size, starts the service as the bench does (its own process, so its RSS is
 * its own; with `--http` on loopback for its /metrics), then for M minutes
 * overwrites random existing keys with values of the same size at P puts/s
 * and asks the verb A times a second, counting failures. Every few seconds it
 * reads the service's VmRSS; every minute also its heap, and prints a line.
 * At the end: a table a minute and the verdicts on the floors' slopes over
 * the second half (soak-verdict.ts). The JSON (every sample) is rewritten
 * each minute, so a run cut short keeps what it saw.
 *
 * Every loop is bounded by a count or a deadline. The first Ctrl-C ends the
 * churn early and still reports; a second one stops everything at once.
 * The server and its temporary store are removed on every way out.
 */
import { join } from "node:path";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import type { NatsConnection } from "@nats-io/nats-core";
import { startNatsServer, type RunningNatsServer } from "../src/embedded/nats-server.js";
import { startWriter, type BackgroundWriter } from "./background-writer.js";
import { ROOT, stopAll } from "./children.js";
import { runBench, UsageError } from "./entry.js";
import { connectBench, nodeCount, round, sleep } from "./common.js";
import { startHttpService } from "./dashboard-service.js";
import { ensureServiceBuckets, loadNeeds, openNeeds } from "./load.js";
import { machine, writeJson } from "./report.js";
import { startSoakAsker, type SoakAsker } from "./soak-asker.js";
import { minuteLine, minuteTable, toMiB, verdictLines, type MinuteRow } from "./soak-report.js";
import { readHeap, readMallocHeap, readRss } from "./soak-sample.js";
import { fixedSizeValue, MIN_VALUE_BYTES } from "./soak-values.js";
import { floorVerdict, heldSamples, type RssSample } from "./soak-verdict.js";

/** RSS is read this often: the floor is the least of many reads, so troughs between collections are caught. */
const SAMPLE_MS = 5000;
const SAMPLES_PER_MINUTE = 60_000 / SAMPLE_MS;
/** A run shorter than this gets its verdict with a warning: its slope per hour is an extrapolation. */
const JUDGE_FROM_MINUTES = 60;
const ASK_TIMEOUT_MS = 10_000;
const ASK_MAX_OUTSTANDING = 256;
/** The nodes that ask their own needs over and over. */
const OWN_NODES = 8;

const USAGE = `usage: npm run soak -- [--minutes M] [--keys N] [--rate P] [--ask-rate A] [--value-bytes B] [--window-minutes W] [--tolerance T] [--server BIN] [--out FILE] [--serve-args "A B"]
  --minutes M         how long the churn runs (default 120; fractions allowed)
  --keys N            needs loaded, 100 per node (default 100000)
  --rate P            updates of existing needs per second (default 1300)
  --ask-rate A        verb requests per second (default 150)
  --value-bytes B     the size of every value, loaded and written (default 128, at least ${MIN_VALUE_BYTES})
  --window-minutes W  a floor is the least of each W minutes (default 15)
  --tolerance T       a floor rising by at most T MiB/h over the second half levels off (default 2)
  --server BIN        the nats-server binary (else NATS_SERVER_BIN, PATH, /usr/sbin/nats-server)
  --out FILE          the JSON (default bench-results/soak-<stamp>.json)
  --serve-args="A B"  more flags for the service's serve, split on spaces (with "=": e.g. --serve-args="--checkpoint-every 15s")`;

interface Flags {
  minutes: number;
  keys: number;
  rate: number;
  askRate: number;
  valueBytes: number;
  windowMinutes: number;
  tolerance: number;
  out: string;
  serveArgs: string[];
}

function parseFlags(argv: string[]): Flags {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(USAGE);
    process.exit(0);
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: Object.fromEntries(
        ["minutes", "keys", "rate", "ask-rate", "value-bytes", "window-minutes", "tolerance", "server", "out", "serve-args"].map((k) => [
          k,
          { type: "string" as const },
        ]),
      ),
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const num = (name: string, fallback: number, min: number, max: number, integer: boolean): number => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
      throw new UsageError(`--${name} takes ${integer ? "an integer" : "a number"} from ${min} to ${max}, got ${String(raw)}\n${USAGE}`);
    }
    return n;
  };
  const server = values["server"];
  // The helpers find the binary through NATS_SERVER_BIN (and check it is executable).
  if (typeof server === "string") process.env["NATS_SERVER_BIN"] = server;
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return {
    minutes: num("minutes", 120, 0.5, 7 * 24 * 60, false),
    // At least 18 nodes: the bench's probe node, n17, is one of the nodes asking.
    keys: num("keys", 100_000, 1800, 5_000_000, true),
    rate: num("rate", 1300, 1, 20_000, true),
    askRate: num("ask-rate", 150, 1, 5000, true),
    valueBytes: num("value-bytes", 128, MIN_VALUE_BYTES, 64 * 1024, true),
    windowMinutes: num("window-minutes", 15, 0.5, 24 * 60, false),
    tolerance: num("tolerance", 2, 0, 1000, false),
    out: typeof values["out"] === "string" && values["out"] ? values["out"] : join(ROOT, "bench-results", `soak-${stamp}.json`),
    serveArgs: typeof values["serve-args"] === "string" ? values["serve-args"].split(" ").filter(Boolean) : [],
  };
}

const phases: { at: string; load1: number; what: string }[] = [];
const log = (s: string): void => {
  phases.push({ at: new Date().toISOString(), load1: round(loadavg()[0]!, 2), what: s });
  process.stderr.write(`[soak] ${s}\n`);
};

interface State {
  server?: RunningNatsServer;
  nc?: NatsConnection;
  writer?: BackgroundWriter;
  asker?: SoakAsker;
  /** Set by the first Ctrl-C: the churn ends at the next sample and the run reports. */
  endEarly: boolean;
}

async function main(f: Flags, st: State): Promise<void> {
  const m = machine();
  log(`${m.natsServer}; node ${m.node}; ${m.cores} cores; ${f.keys} needs of ${f.valueBytes} B; ${f.rate} puts/s and ${f.askRate} asks/s for ${f.minutes} min`);
  const server = (st.server = await startNatsServer());
  log(`nats-server at ${server.url} (store ${server.storeDir})`);
  const nc = (st.nc = await connectBench(server.url, "soak-driver", { noAsyncTraces: true }));
  await ensureServiceBuckets(nc);
  const value = (i: number, salt: number): string => fixedSizeValue(i, salt, f.valueBytes);
  const load = await loadNeeds(await openNeeds(nc), f.keys, 256, 60_000 + f.keys * 2, (i) => value(i, 0));
  log(`loaded ${load.keys} keys in ${(load.ms / 1000).toFixed(1)} s (${load.putsPerSecond}/s, values ${load.valueBytes} B)`);

  const svc = await startHttpService(server.url, 60_000 + f.keys / 2, f.serveArgs);
  log(`service (pid ${svc.child.pid}) synced in ${svc.syncMs} ms, RSS ${toMiB(svc.rssAfterSync)} MiB after a forced gc; metrics at ${svc.url}/metrics`);

  const writer = (st.writer = await startWriter(server.url, { rate: f.rate, keys: f.keys, exclude: new Set(), value }));
  const durationMs = Math.round(f.minutes * 60_000);
  const asker = (st.asker = startSoakAsker(nc, {
    rate: f.askRate,
    nodes: nodeCount(f.keys),
    ownCount: OWN_NODES,
    timeoutMs: ASK_TIMEOUT_MS,
    maxOutstanding: ASK_MAX_OUTSTANDING,
    maxAsks: Math.ceil((f.askRate * durationMs) / 1000) + f.askRate,
  }));
  log(`churn started: nodes ${asker.ownNodes.join(", ")} ask their own needs, alternating with every node's in turn`);

  const samples: RssSample[] = [];
  const rows: MinuteRow[] = [];
  const t0 = performance.now();
  const total = Math.ceil(durationMs / SAMPLE_MS);
  const failed = (): number => asker.counts.failed + writer.progress.errors;
  const snapshot = (complete: boolean, extra: Record<string, unknown> = {}): void =>
    writeJson(f.out, {
      complete,
      machine: m,
      config: { ...f, sampleMs: SAMPLE_MS },
      load,
      service: { pid: svc.child.pid, syncMs: svc.syncMs, rssAfterSync: svc.rssAfterSync },
      ownNodes: asker.ownNodes,
      minutes: rows,
      samples,
      phases,
      ...extra,
    });

  let minuteLeast = Number.POSITIVE_INFINITY;
  /** A row for the samples since the last one: at each minute's end, and for the part-minute of a run ended early. */
  const closeRow = async (atMs: number, rss: number, parts: { anon: number; file: number }): Promise<void> => {
    const heap = await readHeap(svc.url);
    const row: MinuteRow = {
      minute: round(atMs / 60_000, 1),
      rssMiB: toMiB(rss),
      rssMinMiB: toMiB(minuteLeast === Number.POSITIVE_INFINITY ? Number.NaN : minuteLeast),
      rssAnonMiB: toMiB(parts.anon),
      rssFileMiB: toMiB(parts.file),
      mallocHeapMiB: toMiB(readMallocHeap(svc.child.pid)),
      heapUsedMiB: toMiB(heap.heapUsed),
      heapTotalMiB: toMiB(heap.heapTotal),
      externalMiB: toMiB(heap.external),
      updates: writer.progress.acked,
      asks: asker.counts.sent,
      failed: failed(),
      load1: round(loadavg()[0]!, 2),
    };
    rows.push(row);
    minuteLeast = Number.POSITIVE_INFINITY;
    log(minuteLine(row));
    snapshot(false);
  };
  let died: string | undefined;
  let sinceRow = 0;
  for (let k = 1; k <= total && !st.endEarly; k++) {
    const wait = t0 + k * SAMPLE_MS - performance.now();
    if (wait > 0) await sleep(wait);
    if (svc.child.exited) {
      died = `the service exited during the soak; last lines:\n${svc.child.tail()}`;
      break;
    }
    const atMs = Math.round(performance.now() - t0);
    const { rss, anon, file } = readRss(svc.child.pid);
    samples.push({ atMs, rssBytes: rss });
    sinceRow++;
    if (Number.isFinite(rss)) minuteLeast = Math.min(minuteLeast, rss);
    if (k % SAMPLES_PER_MINUTE === 0 || k === total) {
      await closeRow(atMs, rss, { anon, file });
      sinceRow = 0;
    }
  }
  if (st.endEarly) log("ended early (Ctrl-C): reporting what was sampled");
  const lastSample = samples[samples.length - 1];
  if (sinceRow > 0 && lastSample && !died) await closeRow(lastSample.atMs, lastSample.rssBytes, readRss(svc.child.pid));

  const asks = await asker.stop();
  const writes = await writer.stop();
  const end = readRss(svc.child.pid);
  await svc.child.stop();
  const churnMinutes = round(samples.length ? samples[samples.length - 1]!.atMs / 60_000 : 0, 1);
  const judged = { windowMs: f.windowMinutes * 60_000, toleranceMiBPerHour: f.tolerance };
  const verdict = floorVerdict(samples, judged);
  const heldVerdict = floorVerdict(heldSamples(rows), judged, "RSS less V8's free heap");

  const out = [
    "",
    minuteTable(rows),
    "",
    `service: RSS ${toMiB(svc.rssAfterSync)} MiB after its first sync (forced gc), ${toMiB(end.rss)} MiB at the end, peak ${toMiB(end.hwm)} MiB`,
    `updates: ${writes.acked} acked (${writes.achievedPerSecond}/s of ${f.rate}), ${writes.errors} failed, ${writes.skipped} skipped (too many in flight)`,
    `asks: ${asks.sent} sent, ${asks.answered} answered, ${asks.failed} failed ${JSON.stringify(asks.failedBy)}, ${asks.skipped} skipped (too many in flight)`,
    ...verdictLines(verdict, heldVerdict, churnMinutes, JUDGE_FROM_MINUTES),
    "",
  ];
  process.stdout.write(out.join("\n") + "\n");
  snapshot(true, {
    service: { pid: svc.child.pid, syncMs: svc.syncMs, rssAfterSync: svc.rssAfterSync, rssAtEnd: end.rss, peakRss: end.hwm },
    writer: writes,
    asks,
    verdict,
    heldVerdict,
    died,
  });
  log(`samples written to ${f.out}`);
  if (died) throw new Error(died);
}

async function cleanup(st: State): Promise<void> {
  await st.asker?.stop().catch(() => undefined);
  await st.writer?.stop().catch(() => undefined);
  await stopAll();
  await st.nc?.close().catch(() => undefined);
  await st.server?.stop().catch(() => undefined);
}

/** Before the churn there is nothing to report: the first Ctrl-C then stops at once like any signal. */
function endChurnEarly(sig: NodeJS.Signals, st: State): boolean {
  if (st.endEarly || sig !== "SIGINT" || !st.asker) return false;
  st.endEarly = true;
  log("SIGINT: ending the churn at the next sample (again to stop at once)");
  return true;
}

await runBench({ log, parseFlags, main, cleanup, state: { endEarly: false } as State, handleSignal: endChurnEarly });
