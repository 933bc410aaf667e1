/**
 * Start-up from a checkpoint, the way a mesh restarts after a rollout: the
 * checkpoints are written by the holder (here one instance started with a
 * short `--checkpoint-every`, which writes them as soon as it has synced,
 * then again at its graceful stop), then three instances are spawned at once
 * while the nodes write, spawn -> the last one's "all projections synced".
 * Each instance's `$SRV.STATS` says how its needs projection started
 * (from the checkpoint, or read whole and why). Then, the nodes still
 * writing, three bare processes at once only read and unpack the same
 * checkpoint (`bare-checkpoint.js`): the floor a start from it stands on.
 *
 * While that holder writes its first checkpoints, the driver asks the verb
 * (one node's needs, in turn, one request at a time) and keeps the
 * latencies, split into those asked during the write and those before it:
 * a checkpoint's write must not stall the answers.
 *
 * `forgetCheckpoints` purges the checkpoints' bucket, so that the cold
 * phases measure a start with no checkpoint at all.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstreamManager } from "@nats-io/jetstream";
import { Svcm } from "@nats-io/services";
import { CHECKPOINT_BUCKET, objectStreamName } from "mesh-provisioner-client/keys";
import { SERVICE_NAME, VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { statsOf } from "mesh-provisioner-client/protocol/stats.js";
import { startWriter, type WriterResult } from "./background-writer.js";
import { jsonLine, logTime, spawnAnchor, spawnService, STARTING_MSG, SYNCED_MSG, type Child } from "./children.js";
import { NEEDS_STREAM, nodeCount, percentile } from "./common.js";
import { jsonBody } from "./measure.js";
import { askWitnesses } from "./witnesses.js";

const WROTE_MSG = "wrote a checkpoint of the projection";
const LOADED_MSG = "loaded a checkpoint: the bucket is read from its revision on, and answered once a count proves it";
/** The holder's final checkpoints at 1M take seconds: its stop is given this long. */
const HOLDER_STOP_MS = 120_000;

export async function forgetCheckpoints(nc: NatsConnection): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.purge(objectStreamName(CHECKPOINT_BUCKET)).catch(() => undefined);
}

export interface WarmStart {
  /** Spawn -> "all projections synced" of each of the three. */
  syncMs: number[];
  /** The CPU time (ms) each of the three had used when it answered (undefined off Linux). */
  cpuMs: (number | undefined)[];
  /** Three bare processes at once reading and unpacking the same checkpoint: spawn -> its last byte unpacked, and their CPU time (ms). */
  floor: { ms: number[]; cpuMs: number[] };
  /** The witness nodes' needs asked at the last revision before the spawn: the answers that differed from the bucket. */
  check: { revisionBefore: number; asks: number; wrong: string[] };
  /** How each instance's needs projection started ($SRV.STATS). */
  from: string[];
  writer: WriterResult;
  /** The holder's needs checkpoint: bytes, how long its write took. */
  checkpoint: { bytes: number; ms: number; revision: number };
  /** Verb latencies (ms) before the holder's first checkpoint write, and while it was written. */
  asks: { before: number[]; during: number[] };
}

export interface WarmOptions {
  readonly nc: NatsConnection;
  readonly serverUrl: string;
  readonly keys: number;
  readonly rate: number;
  readonly timeoutMs: number;
  readonly serviceFlags: readonly string[];
  readonly log: (line: string) => void;
  /** The witness nodes' needs as the bucket holds them (no writer touches them), and how many asks check them. */
  readonly truth: ReadonlyMap<string, ReadonlyMap<string, string>>;
  readonly asks: number;
}

async function syncedIn(child: Child, timeoutMs: number): Promise<number> {
  const at = await child.waitFor("stderr", (l) => logTime(l, SYNCED_MSG), timeoutMs, `the log line "${SYNCED_MSG}"`);
  return at - child.spawnedAt;
}

/** Three bare processes at once, each reading and unpacking the needs checkpoint (bare-checkpoint.ts). */
async function floorOf(o: WarmOptions): Promise<WarmStart["floor"]> {
  const bare = [0, 1, 2].map(() => spawnAnchor("bare-checkpoint.js", [o.serverUrl]));
  try {
    const out = await Promise.all(bare.map((b) => b.result(o.timeoutMs, "its result")));
    return { ms: out.map((r, i) => Number(r["doneAt"]) - bare[i]!.spawnedAt), cpuMs: out.map((r) => Number(r["cpuMs"])) };
  } finally {
    await Promise.all(bare.map((b) => b.stop()));
  }
}

/**
 * Where an instance's start went, from its log: spawn -> its first line (the
 * process and its modules loaded), -> the needs checkpoint loaded (and that
 * load's steps, in ms from the load's start: open (the header in), check
 * (the stream compared, while the records load), load (the rest read,
 * unpacked and loaded)).
 */
async function loadTimeline(child: Child, timeoutMs: number): Promise<string> {
  const started = child.waitFor("stderr", (l) => logTime(l, STARTING_MSG), timeoutMs, `the log line "${STARTING_MSG}"`);
  const loaded = child.waitFor(
    "stderr",
    (l) => {
      const o = jsonLine(l);
      return o?.["msg"] === LOADED_MSG && o["checkpoint"] === "needs" ? { at: logTime(l, LOADED_MSG) ?? 0, steps: o["steps"] } : undefined;
    },
    timeoutMs,
    `the log line "${LOADED_MSG}" of needs`,
  );
  const [s, l] = await Promise.all([started, loaded]);
  const steps = Object.entries((l.steps ?? {}) as Record<string, number>)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return `started ${s - child.spawnedAt} ms, needs loaded ${l.at - child.spawnedAt} ms (${steps})`;
}

/** The needs checkpoint's log line of `child`, once written. */
function needsWritten(child: Child, timeoutMs: number): Promise<{ bytes: number; ms: number; revision: number }> {
  return child.waitFor(
    "stderr",
    (l) => {
      const o = jsonLine(l);
      return o?.["msg"] === WROTE_MSG && o["checkpoint"] === "needs"
        ? { bytes: Number(o["bytes"]), ms: Number(o["ms"]), revision: Number(o["revision"]) }
        : undefined;
    },
    timeoutMs,
    `the log line "${WROTE_MSG}" of needs`,
  );
}

/** Ask one node's needs after another until `done` resolves; latencies in ms. */
async function askUntil(nc: NatsConnection, keys: number, done: Promise<unknown>): Promise<number[]> {
  let over = false;
  void done.finally(() => (over = true));
  const nodes = nodeCount(keys);
  const out: number[] = [];
  for (let i = 0; !over; i++) {
    const t0 = performance.now();
    await nc.request(VERB_SUBJECT, jsonBody({ what: "needs", node: `n${(i * 7919) % nodes}` }), { timeout: 30_000 }).catch(() => undefined);
    out.push(performance.now() - t0);
  }
  return out;
}

export async function warmStart(o: WarmOptions): Promise<WarmStart> {
  o.log("start-up from a checkpoint: one holder writes the checkpoints, the driver asking the verb meanwhile");
  // From no checkpoint: the holder reads the buckets whole, then writes every checkpoint afresh.
  await forgetCheckpoints(o.nc);
  const holder = spawnService(o.serverUrl, o.serviceFlags, ["--checkpoint-every", "1s"]);
  let checkpoint: WarmStart["checkpoint"];
  let asks: WarmStart["asks"];
  try {
    await syncedIn(holder, o.timeoutMs);
    const written = needsWritten(holder, o.timeoutMs);
    // The first write begins within a second of the sync: asks from here on run into it.
    const before = await askUntil(o.nc, o.keys, new Promise((r) => setTimeout(r, 300)));
    const during = await askUntil(o.nc, o.keys, written);
    checkpoint = await written;
    asks = { before, during };
    o.log(
      `start-up from a checkpoint: needs' checkpoint ${checkpoint.bytes} bytes in ${checkpoint.ms} ms; asks during it: p99 ${percentile(during, 99).toFixed(1)} ms, max ${Math.max(...during).toFixed(1)} ms`,
    );
  } finally {
    await holder.stop(HOLDER_STOP_MS);
  }

  const w = await startWriter(o.serverUrl, { rate: o.rate, keys: o.keys, exclude: new Set(o.truth.keys()) });
  const revisionBefore = (await (await jetstreamManager(o.nc)).streams.info(NEEDS_STREAM)).state.last_seq;
  const children = [0, 1, 2].map(() => spawnService(o.serverUrl, o.serviceFlags));
  try {
    const timelines = Promise.all(children.map((c) => loadTimeline(c, o.timeoutMs).catch((err: Error) => err.message)));
    const cpuMs: (number | undefined)[] = [];
    const syncMs = await Promise.all(
      children.map(async (c, i) => {
        const ms = await syncedIn(c, o.timeoutMs);
        cpuMs[i] = c.cpuMs();
        return ms;
      }),
    );
    const from: string[] = [];
    const client = new Svcm(o.nc).client({ strategy: "count", maxMessages: 3, maxWait: 3000 });
    for await (const s of await client.stats(SERVICE_NAME)) {
      const c = statsOf(s)?.checkpoints?.["needs"];
      from.push(c?.start === "full" ? `full (${c.reason})` : (c?.start ?? "?"));
    }
    o.log(`start-up from a checkpoint: three instances answering after ${syncMs.join(", ")} ms (needs from: ${from.join(", ")})`);
    for (const [i, t] of (await timelines).entries()) o.log(`start-up from a checkpoint: instance ${i + 1}: ${t}, answering ${syncMs[i]} ms`);
    const wrong = await askWitnesses(o.nc, o.truth, revisionBefore, o.asks);
    await Promise.all(children.map((c) => c.stop()));
    const floor = await floorOf(o);
    o.log(`start-up from a checkpoint: three bare processes read and unpacked it after ${floor.ms.join(", ")} ms (CPU ${floor.cpuMs.join(", ")} ms)`);
    return { syncMs, cpuMs, floor, check: { revisionBefore, asks: o.asks, wrong }, from, writer: await w.stop(), checkpoint, asks };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    if (w.running) await w.stop();
  }
}
