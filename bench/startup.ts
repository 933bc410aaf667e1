/**
 * Start-up the way a mesh restarts: over a full bucket, while the nodes
 * write (`rate` updates a second of existing needs, on a connection of their
 * own). A round is three measurements, one after the other, each with its
 * own writer, and the phase runs `rounds` of them: a shared VM's speed moves
 * from one minute to the next, so each round's instances are compared with
 * the raw watch of their own round, and the rows give the median round.
 *
 * 1. the raw KV watch alone (`bare-watch.js`: `kv.watch()` into a Map),
 *    spawn -> it has read the bucket;
 * 2. one service instance, spawn -> its "all projections synced" line (from
 *    then on it answers the verb);
 * 3. three instances spawned at once, spawn -> the last one's synced line.
 *
 * Then, with the three running, the answer at the last revision before their
 * start: the needs of three witness nodes (nodes the writer never touches,
 * read from the bucket just before the spawn) asked with that `minRevision`,
 * 60 times round the queue group, each answer compared with the bucket; and
 * every instance's `$SRV.STATS` must show it answered some of them. After the
 * writer stops, each instance must reach the stream's last sequence holding
 * as many needs as the stream holds keys: nothing lost. Each instance's
 * consumer creations (asked, retried, timed out) come from its `$SRV.STATS`.
 * Every one of these starts cold: the checkpoints are purged before each.
 *
 * 4. three instances at once again, from the checkpoints a holder wrote
 *    (startup-warm.ts), with the verb's answers while they were written.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm } from "@nats-io/kv";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Svcm } from "@nats-io/services";
import { SERVICE_NAME } from "mesh-provisioner-client/protocol/subjects.js";
import { statsOf, type CreationCounts } from "mesh-provisioner-client/protocol/stats.js";
import { startWriter, type WriterResult } from "./background-writer.js";
import { logTime, MEASURED_NODE_FLAGS, spawnAnchor, spawnService, SYNCED_MSG, type Child } from "./children.js";
import { ANCHOR_JS_TIMEOUT_MS, nodeCount, NEEDS_BUCKET, NEEDS_STREAM, sleep } from "./common.js";
import { forgetCheckpoints, warmStart, type WarmStart } from "./startup-warm.js";
import { askWitnesses } from "./witnesses.js";

const CHECK_ASKS = 60;

export interface InstanceStart {
  /** Spawn -> "all projections synced", ms. */
  syncMs: number;
  /** The needs watch's consumer creations, from `$SRV.STATS` (every bucket's, summed, in `all`). */
  needs: CreationCounts | undefined;
  all: { asked: number; retried: number; timedOut: number };
}

/** The rounds of a start-up phase. */
export interface StartupResult {
  rate: number;
  rounds: StartupRound[];
}

export interface StartupRound {
  rawMs: number;
  one: InstanceStart;
  three: InstanceStart[];
  writers: { raw: WriterResult; one: WriterResult; three: WriterResult };
  check: {
    revisionBefore: number;
    asks: number;
    /** Answers that differed from the bucket, described. */
    wrong: string[];
    /** Verb requests each of the three answered during the check. */
    perInstance: number[];
    /** Instances that did not reach the stream's end with every key, described. */
    lost: string[];
  };
  /** Three at once again, from the checkpoints a holder wrote (startup-warm.ts). */
  warm: WarmStart;
}

export interface StartupOptions {
  readonly nc: NatsConnection;
  readonly serverUrl: string;
  readonly keys: number;
  readonly rate: number;
  readonly timeoutMs: number;
  readonly serviceFlags: readonly string[];
  readonly log: (line: string) => void;
  /** Rounds of raw watch, one instance, three at once. */
  readonly rounds: number;
}

interface Stats {
  id: string;
  /** The instance's name (`<host>-<pid>-…`), to tell which child it is. */
  instance?: string;
  requests: number;
  needs?: { revision?: number; entries?: number };
  consumers?: Record<string, CreationCounts>;
}

async function stats(nc: NatsConnection, count: number): Promise<Stats[]> {
  const out: Stats[] = [];
  const client = new Svcm(nc).client({ strategy: "count", maxMessages: count, maxWait: 3000 });
  for await (const s of await client.stats(SERVICE_NAME)) {
    const d = statsOf(s) ?? {};
    out.push({ id: s.id, instance: d.seat?.instance, requests: d.requests ?? 0, needs: d.projections?.needs, consumers: d.consumers });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

function creations(s: Stats | undefined): Pick<InstanceStart, "needs" | "all"> {
  const all = { asked: 0, retried: 0, timedOut: 0 };
  for (const c of Object.values(s?.consumers ?? {})) {
    all.asked += c.asked;
    all.retried += c.retried;
    all.timedOut += c.timedOut;
  }
  return { needs: s?.consumers?.["mesh-provisioner_needs"], all };
}

async function syncedIn(child: Child, timeoutMs: number): Promise<number> {
  const at = await child.waitFor("stderr", (l) => logTime(l, SYNCED_MSG), timeoutMs, `the log line "${SYNCED_MSG}"`);
  return at - child.spawnedAt;
}

/** The witness nodes' needs as the bucket holds them: key -> JSON value text. */
async function truthOf(nc: NatsConnection, nodes: readonly string[]): Promise<Map<string, Map<string, string>>> {
  // keys() creates a consumer on the whole stream: on 2.9 at 1M keys that takes seconds, past the default 5 s.
  const kv = await new Kvm(jetstream(nc, { timeout: ANCHOR_JS_TIMEOUT_MS })).open(NEEDS_BUCKET);
  const out = new Map<string, Map<string, string>>();
  for (const n of nodes) {
    const m = new Map<string, string>();
    for await (const k of await kv.keys(`${n}.>`)) {
      const e = await kv.get(k);
      if (e && e.operation === "PUT") m.set(k, JSON.stringify(e.json()));
    }
    out.set(n, m);
  }
  return out;
}

export async function startupPhase(o: StartupOptions): Promise<StartupResult> {
  const rounds: StartupRound[] = [];
  for (let r = 1; r <= o.rounds; r++) {
    o.log(`start-up, round ${r} of ${o.rounds}`);
    rounds.push(await startupRound(o));
  }
  return { rate: o.rate, rounds };
}

async function startupRound(o: StartupOptions): Promise<StartupRound> {
  const nodes = nodeCount(o.keys);
  const witnesses = [`n${Math.floor(nodes / 3)}`, `n${Math.floor((2 * nodes) / 3)}`, `n${nodes - 1}`];
  const exclude = new Set(witnesses);
  const writing = () => startWriter(o.serverUrl, { rate: o.rate, keys: o.keys, exclude });

  o.log(`start-up while nodes write ${o.rate}/s: the raw KV watch alone`);
  await forgetCheckpoints(o.nc);
  let w = await writing();
  const raw = spawnAnchor("bare-watch.js", [o.serverUrl, o.timeoutMs], MEASURED_NODE_FLAGS);
  const rawOwn = await raw.result(o.timeoutMs, "sync result");
  const rawMs = Number(rawOwn["syncedAt"]) - raw.spawnedAt;
  await raw.stop();
  const rawWriter = await w.stop();
  o.log(`start-up: raw watch read the bucket in ${rawMs} ms (writer ${rawWriter.achievedPerSecond}/s)`);

  o.log("start-up: one service instance");
  await forgetCheckpoints(o.nc);
  w = await writing();
  const single = spawnService(o.serverUrl, o.serviceFlags);
  const oneMs = await syncedIn(single, o.timeoutMs);
  const one: InstanceStart = { syncMs: oneMs, ...creations((await stats(o.nc, 1))[0]) };
  await single.stop();
  const oneWriter = await w.stop();
  o.log(`start-up: one instance answering after ${oneMs} ms; needs consumer ${JSON.stringify(one.needs)}`);

  o.log("start-up: three instances at once");
  const truth = await truthOf(o.nc, witnesses);
  w = await writing();
  const jsm = await jetstreamManager(o.nc);
  const revisionBefore = (await jsm.streams.info(NEEDS_STREAM)).state.last_seq;
  await forgetCheckpoints(o.nc);
  const children = [0, 1, 2].map(() => spawnService(o.serverUrl, o.serviceFlags));
  try {
    const syncMs = await Promise.all(children.map((c) => syncedIn(c, o.timeoutMs)));
    o.log(`start-up: three instances answering after ${syncMs.join(", ")} ms`);
    const before = await stats(o.nc, 3);
    const wrong = await askWitnesses(o.nc, truth, revisionBefore, CHECK_ASKS);
    const after = await stats(o.nc, 3);
    const perInstance = after.map((s) => s.requests - (before.find((b) => b.id === s.id)?.requests ?? 0));
    const threeWriter = await w.stop();

    const final = (await jsm.streams.info(NEEDS_STREAM)).state;
    const lost: string[] = [];
    const deadline = Date.now() + 30_000;
    let last: Stats[] = [];
    while (Date.now() < deadline) {
      last = await stats(o.nc, 3);
      if (last.length === 3 && last.every((s) => (s.needs?.revision ?? 0) >= final.last_seq)) break;
      await sleep(200);
    }
    for (const s of last) {
      if ((s.needs?.revision ?? 0) < final.last_seq || s.needs?.entries !== final.messages) {
        lost.push(
          `${s.id}: needs at revision ${s.needs?.revision} with ${s.needs?.entries} entries; the stream at ${final.last_seq} with ${final.messages} keys`,
        );
      }
    }
    if (last.length < 3) lost.push(`only ${last.length} of 3 instances answered $SRV.STATS`);
    const three = syncMs.map((ms, i) => ({ syncMs: ms, ...creations(last.find((s) => s.instance?.includes(`-${children[i]!.pid}-`))) }));
    await Promise.all(children.map((c) => c.stop()));
    const warm = await warmStart({ ...o, truth, asks: CHECK_ASKS });
    return {
      rawMs,
      one,
      three,
      writers: { raw: rawWriter, one: oneWriter, three: threeWriter },
      check: { revisionBefore, asks: CHECK_ASKS, wrong, perInstance, lost },
      warm,
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    if (w.running) await w.stop();
  }
}
