/**
 * The end of a chaos run (I/O): the quiet period, then the final state the
 * checks judge. The quiet period lasts until every instance is ready, every
 * instance's projections have applied each bucket's last message, and every
 * follower equals its bucket (at least a few seconds, so followers see a
 * seat check; at most `--quiet`). Then each instance writes its own
 * projections to a file (SIGUSR2, the service's own dump), and every bucket is
 * read directly from its stream.
 */
import { readFile, rm } from "node:fs/promises";
import type { NatsConnection } from "@nats-io/nats-core";
import { Svcm } from "@nats-io/services";
import { SERVICE_NAME } from "mesh-provisioner-client/protocol/subjects.js";
import { statsOf } from "mesh-provisioner-client/protocol/stats.js";
import { WHATS, type What } from "mesh-provisioner-client/keys";
import { followerDifferences } from "./checks.js";
import type { Follower } from "./followers.js";
import { tokenOf, type BucketFinal, type History, type InstanceFinal } from "./history.js";
import type { Instances, Slot } from "./instances.js";
import { streamOf, type Observer } from "./observe.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const DUMPED = "SIGUSR2: wrote this instance's dump";

/** Each instance's applied revision per bucket, as `$SRV.STATS` reports it: instance → what → revision. */
export async function appliedRevisions(nc: NatsConnection): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  const iter = await new Svcm(nc).client({ strategy: "timer", maxWait: 1000 }).stats(SERVICE_NAME);
  for await (const s of iter) {
    const data = statsOf(s);
    if (!data?.seat?.instance) continue;
    out.set(data.seat.instance, new Map(Object.values(data.projections ?? {}).map((p) => [p.what, p.revision])));
  }
  return out;
}

export async function readAllBuckets(observer: Observer): Promise<BucketFinal[]> {
  const out: BucketFinal[] = [];
  for (const w of WHATS) out.push(await observer.readBucket(w));
  return out;
}

/** Why the run is not quiet yet (empty when it is). */
async function notQuiet(instances: Instances, observer: Observer, followers: readonly Follower[], known: ReadonlySet<string>): Promise<string[]> {
  const why: string[] = [];
  for (const s of instances.slots) if (s.state !== "ready") why.push(`instance ${s.name} is ${s.state}`);
  if (why.length > 0) return why;
  const last = new Map<string, number>();
  for (const w of WHATS) last.set(w, await observer.lastSeq(streamOf(w)));
  const applied = await appliedRevisions(observer.nc);
  for (const s of instances.slots) {
    const mine = s.instance === undefined ? undefined : applied.get(s.instance);
    if (!mine) why.push(`instance ${s.name} did not answer $SRV.STATS`);
    else for (const [w, seq] of last) if ((mine.get(w) ?? 0) < seq) why.push(`instance ${s.name} applied ${w} up to ${mine.get(w)} of ${seq}`);
  }
  if (why.length > 0) return why;
  const buckets = await readAllBuckets(observer);
  for (const f of followers) {
    const final = f.final();
    const diff = followerDifferences(
      final,
      buckets.find((b) => b.what === final.what),
      known,
    );
    if (diff.length > 0) why.push(`${diff.length} differences: ${diff[0]}`);
  }
  return why;
}

/** Wait for the quiet state (or `maxMs`); returns what was still not quiet at the end (empty: quiet). */
export async function waitQuiet(
  instances: Instances,
  observer: Observer,
  followers: readonly Follower[],
  known: ReadonlySet<string>,
  minMs: number,
  maxMs: number,
): Promise<string[]> {
  const start = Date.now();
  let why: string[] = ["not checked"];
  await sleep(minMs);
  while (Date.now() - start < maxMs) {
    why = await notQuiet(instances, observer, followers, known).catch((err: unknown) => [String(err)]);
    if (why.length === 0) return why;
    await sleep(1000);
  }
  return why;
}

/** One instance's own projections, from the dump it writes on SIGUSR2. */
async function dumpOf(slot: Slot): Promise<InstanceFinal | undefined> {
  const p = slot.proc;
  if (!p || !slot.alive || !p.instance) return undefined;
  const from = p.lines.length;
  p.signal("SIGUSR2");
  const line = await p.waitForLine((l) => l.msg === DUMPED, 20_000, "its dump", from);
  const path = String(line.fields["path"]);
  const doc = JSON.parse(await readFile(path, "utf8")) as {
    buckets: Record<What, { revision: number; entries: Record<string, unknown>[]; outOfShape: { key: string }[] }>;
  };
  await rm(path, { force: true });
  const buckets: InstanceFinal["buckets"] = {};
  for (const w of WHATS) {
    const b = doc.buckets[w];
    buckets[w] = {
      revision: b.revision,
      entries: b.entries.map((e) =>
        w === "registry"
          ? { key: String(e["kind"]), revision: Number(e["revision"]), token: null, value: e["value"] }
          : { key: String(e["key"]), revision: Number(e["revision"]), token: tokenOf(e["value"]) },
      ),
      outOfShape: b.outOfShape.map((o) => o.key).sort(),
    };
  }
  return { slot: slot.name, instance: p.instance, pid: p.pid, buckets };
}

export async function captureFinal(history: History, instances: Instances, observer: Observer, followers: readonly Follower[]): Promise<void> {
  for (const s of instances.slots) {
    const d = await dumpOf(s).catch((err: unknown) => {
      history.note(`instance ${s.name}: no dump: ${String(err)}`);
      return undefined;
    });
    if (d) history.instances.push(d);
  }
  history.buckets = await readAllBuckets(observer);
  history.followers = followers.map((f) => f.final());
}
