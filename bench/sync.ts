/**
 * First sync and resident memory, service against the bare watch, measured
 * the same way for both: from the spawn (Date.now() just before it) to the
 * moment the process says it is synced (its own Date.now(): the service's
 * log line "all projections synced", the bare watch's result line); then, a
 * fixed time after that moment, a forced full gc in the process (the
 * preloaded hook, on a signal) and VmRSS read from /proc.
 *
 * The two run one after the other, never at once (2 cores), in alternating
 * order from run to run (the last run's service goes last: it is left
 * running for the measurements that follow).
 */
import { GC_SIGNAL, procMemory, sleep, type ProcMemory } from "./common.js";
import { MEASURED_NODE_FLAGS, spawnAnchor, spawnService, logTime, STARTING_MSG, SYNCED_MSG, type Child } from "./children.js";

/** Memory is read this long after the process said it was synced... */
const SETTLE_MS = 2000;
/** ...this long after the forced gc. */
const GC_WAIT_MS = 500;

export interface SyncSample {
  /** Spawn -> synced, ms. */
  syncMs: number;
  /** Spawn -> the process's own first line of code ran (process start and module loading), ms. */
  startMs: number;
  /** VmRSS SETTLE_MS after synced (after a forced gc), bytes. */
  rss: number;
  /** Peak VmRSS of the process so far, bytes. */
  peakRss: number;
  /** What the process itself reported (the bare watch: its load time, rss and heapUsed after gc). */
  own?: Record<string, unknown>;
}

export interface SyncResults {
  service: SyncSample[];
  bareWatch: SyncSample[];
  /** The last run's service, still running. */
  service$: Child;
}

/** VmRSS and VmHWM of `child` SETTLE_MS after `syncedAt` (epoch ms), a forced gc GC_WAIT_MS before reading. */
export async function memoryAfter(child: Child, syncedAt: number): Promise<ProcMemory> {
  const wait = syncedAt + SETTLE_MS - GC_WAIT_MS - Date.now();
  if (wait > 0) await sleep(wait);
  child.signal(GC_SIGNAL);
  await sleep(GC_WAIT_MS);
  const mem = procMemory(child.pid);
  if (!mem) throw new Error(`${child.name}: cannot read /proc/${child.pid}/status`);
  return mem;
}

export async function measureService(url: string, timeoutMs: number, extraFlags: readonly string[]): Promise<{ sample: SyncSample; child: Child }> {
  // Cold each time: with checkpoints, a run after the first would start from the one its predecessor wrote at its stop.
  const child = spawnService(url, extraFlags, ["--checkpoint-every", "0"]);
  const startedAt = child.waitFor("stderr", (l) => logTime(l, STARTING_MSG), timeoutMs, `the log line "${STARTING_MSG}"`);
  const syncedAt = await child.waitFor("stderr", (l) => logTime(l, SYNCED_MSG), timeoutMs, `the log line "${SYNCED_MSG}"`);
  const startMs = (await startedAt) - child.spawnedAt;
  const mem = await memoryAfter(child, syncedAt);
  return { sample: { syncMs: syncedAt - child.spawnedAt, startMs, rss: mem.rss, peakRss: mem.hwm }, child };
}

export async function measureBareWatch(url: string, timeoutMs: number, extraFlags: readonly string[]): Promise<SyncSample> {
  const child = spawnAnchor("bare-watch.js", [url, timeoutMs], [...MEASURED_NODE_FLAGS, ...extraFlags]);
  try {
    const own = await child.result(timeoutMs, "sync result");
    const syncedAt = Number(own["syncedAt"]);
    const mem = await memoryAfter(child, syncedAt);
    const startMs = Number(own["startedAt"]) - child.spawnedAt;
    return { syncMs: syncedAt - child.spawnedAt, startMs, rss: mem.rss, peakRss: mem.hwm, own };
  } finally {
    await child.stop();
  }
}

export async function syncRuns(
  url: string,
  runs: number,
  opts: { timeoutMs: number; serviceFlags: readonly string[]; bareFlags: readonly string[]; log: (s: string) => void },
): Promise<SyncResults> {
  const service: SyncSample[] = [];
  const bareWatch: SyncSample[] = [];
  let last: Child | undefined;
  for (let r = 0; r < runs; r++) {
    // Alternate the order, except on the last run, whose service is kept running.
    const serviceFirst = r % 2 === 1 && r !== runs - 1;
    const runBare = async (): Promise<void> => {
      const s = await measureBareWatch(url, opts.timeoutMs, opts.bareFlags);
      bareWatch.push(s);
      opts.log(`run ${r + 1}/${runs}: bare watch synced in ${s.syncMs} ms, RSS ${(s.rss / 2 ** 20).toFixed(0)} MiB`);
    };
    const runService = async (): Promise<void> => {
      const { sample, child } = await measureService(url, opts.timeoutMs, opts.serviceFlags);
      service.push(sample);
      opts.log(`run ${r + 1}/${runs}: service synced in ${sample.syncMs} ms, RSS ${(sample.rss / 2 ** 20).toFixed(0)} MiB`);
      if (r === runs - 1) last = child;
      else await child.stop();
    };
    if (serviceFirst) {
      await runService();
      await runBare();
    } else {
      await runBare();
      await runService();
    }
  }
  if (!last) throw new Error("no service is running after the sync runs");
  return { service, bareWatch, service$: last };
}
