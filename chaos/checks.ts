/**
 * The checks of a chaos run over its recorded history (pure). Each returns
 * pass or fail with the first violating events, so a failed run says what
 * went wrong, not only that something did:
 *
 * 1. nothing lost, nothing resurrected: each node key, in the bucket and on
 *    every instance, holds its last acknowledged write (or a later write
 *    whose acknowledgement never came), and every instance lists exactly the
 *    bucket's keys out of shape;
 * 2. the registry equals the compiled table, in the bucket and on every
 *    instance;
 * 3. one writer at a time: every registry write names its writer, and none
 *    landed while the seat's history says another instance held the seat;
 * 4. every verb reply was a 200 or a documented 503/504 (400 for a malformed
 *    request), and a 200 is the node's keys exactly as of its revision (at or
 *    above the minRevision asked): every acknowledged write up to it is there;
 * 5. every feed follower ends equal to its bucket;
 * plus: no instance died on its own, and the flooding node was named.
 */
import { isDeepStrictEqual } from "node:util";
import { parseKey, type What } from "mesh-provisioner-client/keys";
import type { BucketFinal, CheckResult, FollowerFinal, History, SeenEntry } from "./history.js";
import { indexWrites, judgeKey } from "./judge.js";
import { holdsTimeline, holderAt } from "./seat-timeline.js";

export type RunRecord = Pick<History, "writes" | "reads" | "seat" | "registry" | "processes" | "flood" | "followers" | "buckets" | "instances"> & {
  readonly meta: { readonly startedAt: string; readonly floodNode: string; readonly floodFeature?: boolean; readonly maxValueBytes?: number };
};

const SHOWN = 25;

function result(name: string, violations: string[], passSummary: string, failSummary = passSummary): CheckResult {
  const failed = violations.length > 0;
  return {
    name,
    status: failed ? "fail" : "pass",
    summary: failed ? `${violations.length} violation${violations.length === 1 ? "" : "s"}; ${failSummary}` : passSummary,
    violations: violations.slice(0, SHOWN),
  };
}

/** In the bucket's shape? (A registry value must also be a JSON object.) */
export function inShape(what: What, key: string, knownKinds: ReadonlySet<string>, value?: unknown): boolean {
  if (!parseKey(what, key, knownKinds).ok) return false;
  if (what !== "registry" || value === undefined) return true;
  try {
    const v = typeof value === "string" ? JSON.parse(value) : value;
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

const bucketOf = (r: RunRecord, what: string): BucketFinal | undefined => r.buckets.find((b) => b.what === what);

export function checkNothingLost(r: RunRecord, knownKinds: ReadonlySet<string>): CheckResult {
  const v: string[] = [];
  const ops = indexWrites(r.writes);
  let keys = 0;
  for (const what of ["needs", "applied", "collect"] as const) {
    const bucket = bucketOf(r, what);
    if (!bucket) {
      v.push(`the ${what} bucket was not read at the end`);
      continue;
    }
    const inBucket = new Map(bucket.entries.map((e) => [e.key, e]));
    const written = [...ops.keys()].filter((k) => k.startsWith(`${what}/`)).map((k) => k.slice(what.length + 1));
    for (const key of new Set([...written, ...inBucket.keys()])) {
      keys++;
      const problem = judgeKey(key, ops.get(`${what}/${key}`), inBucket.get(key));
      if (problem) v.push(`${what} bucket: ${problem}`);
    }
    const oos = new Set([...inBucket.keys()].filter((k) => !inShape(what, k, knownKinds)));
    for (const inst of r.instances) {
      const mine = inst.buckets[what];
      if (!mine) {
        v.push(`instance ${inst.slot} (${inst.instance}): no ${what} in its dump`);
        continue;
      }
      const seen = new Map(mine.entries.map((e) => [e.key, e]));
      for (const [key, e] of inBucket) {
        if (oos.has(key)) continue;
        const s = seen.get(key);
        if (!s) v.push(`instance ${inst.slot} (${inst.instance}), ${what}: ${key} is missing (the bucket holds ${e.token} at revision ${e.revision})`);
        else if (s.revision !== e.revision || s.token !== e.token) {
          v.push(
            `instance ${inst.slot} (${inst.instance}), ${what}: ${key} is ${s.token} at revision ${s.revision}; the bucket holds ${e.token} at revision ${e.revision}`,
          );
        }
      }
      for (const [key, s] of seen)
        if (!inBucket.has(key)) v.push(`instance ${inst.slot} (${inst.instance}), ${what}: ${key} (${s.token} at revision ${s.revision}) is not in the bucket`);
      const theirs = new Set(mine.outOfShape);
      for (const k of oos) if (!theirs.has(k)) v.push(`instance ${inst.slot} (${inst.instance}), ${what}: the key out of shape ${k} is not listed`);
      for (const k of theirs)
        if (!oos.has(k)) v.push(`instance ${inst.slot} (${inst.instance}), ${what}: lists ${k} out of shape, but the bucket has no such key out of shape`);
    }
  }
  for (const slot of new Set(r.processes.map((p) => p.slot))) {
    if (!r.instances.some((i) => i.slot === slot))
      v.push(`instance ${slot}: no dump of its projections at the end (it was not running or did not answer SIGUSR2)`);
  }
  const indeterminate = r.writes.filter((w) => w.outcome === "indeterminate").length;
  return result(
    "1. nothing lost, nothing resurrected",
    v,
    `${keys} keys judged in the buckets and on ${r.instances.length} instances; ${indeterminate} indeterminate writes counted apart`,
  );
}

export function checkRegistry(r: RunRecord, table: ReadonlyMap<string, unknown>): CheckResult {
  const v: string[] = [];
  const bucket = bucketOf(r, "registry");
  if (!bucket) v.push("the registry bucket was not read at the end");
  const judge = (where: string, entries: readonly { key: string; value?: unknown }[]): void => {
    const have = new Map(entries.map((e) => [e.key, e.value]));
    for (const [kind, want] of table) {
      if (!have.has(kind)) v.push(`${where}: kind ${kind} is missing`);
      else {
        const got = have.get(kind);
        let parsed: unknown = got;
        if (typeof got === "string") {
          try {
            parsed = JSON.parse(got);
          } catch {
            /* compared as the text */
          }
        }
        if (!isDeepStrictEqual(parsed, want))
          v.push(`${where}: kind ${kind} is ${typeof got === "string" ? got : JSON.stringify(got)}, the table says ${JSON.stringify(want)}`);
      }
    }
    for (const k of have.keys()) if (!table.has(k)) v.push(`${where}: kind ${k} is not in the table`);
  };
  if (bucket) judge("the registry bucket", bucket.entries);
  for (const inst of r.instances) {
    const reg = inst.buckets["registry"];
    if (!reg) v.push(`instance ${inst.slot}: no registry in its dump`);
    else {
      judge(`instance ${inst.slot} (${inst.instance})`, reg.entries);
      for (const k of reg.outOfShape) v.push(`instance ${inst.slot} (${inst.instance}): registry key ${k} listed out of shape`);
    }
  }
  return result("2. the registry equals the compiled table", v, `${table.size} kinds, in the bucket and on ${r.instances.length} instances`);
}

export function checkOneWriter(r: RunRecord): CheckResult {
  const v: string[] = [];
  const timeline = holdsTimeline(r.seat, Date.parse(r.meta.startedAt));
  let judged = 0;
  for (const w of r.registry) {
    if (w.tamper) continue;
    if (!w.writer) {
      v.push(`registry write seq ${w.seq} (${w.kind}, ${w.op}) at ${w.at} ms names no writer`);
      continue;
    }
    judged++;
    const h = holderAt(timeline, w.at);
    if (h?.instance !== w.writer) {
      const who = h ? `${h.instance} held the seat (since ${h.start} ms)` : "nobody held the seat";
      v.push(`registry write seq ${w.seq} (${w.kind}, ${w.op}) by ${w.writer} at ${w.at} ms, while ${who}`);
    }
  }
  const takeovers = Math.max(0, timeline.length - 1);
  return result("3. one writer at a time", v, `${judged} registry writes by the service set against ${timeline.length} holds (${takeovers} changes of holder)`);
}

export function checkReplies(r: RunRecord): CheckResult {
  const v: string[] = [];
  const ops = indexWrites(r.writes.filter((w) => w.shape === "in"));
  let ok = 0;
  let unanswered = 0;
  for (const q of r.reads) {
    const at = `read #${q.id} by ${q.reader} at ${q.sentAt} ms`;
    if (typeof q.status !== "number") {
      unanswered++;
      continue;
    }
    if (q.malformed !== undefined) {
      if (q.status !== 400) v.push(`${at}: the malformed request ${q.malformed} was answered ${q.status}, not 400`);
      continue;
    }
    if (q.status !== 200) {
      if (q.status !== 503 && q.status !== 504) v.push(`${at} (${q.what} of ${q.node}): answered ${q.status}: ${q.error ?? ""}`);
      continue;
    }
    ok++;
    const rev = q.revision ?? 0;
    if (q.minRevision !== undefined && rev < q.minRevision) v.push(`${at}: answered at revision ${rev}, below the minRevision ${q.minRevision} asked`);
    const shown = new Map((q.entries ?? []).map((e) => [e.key, e]));
    const keys = new Set(shown.keys());
    for (const k of ops.keys()) if (k.startsWith(`${q.what}/${q.node}.`)) keys.add(k.slice(q.what!.length + 1));
    for (const key of keys) {
      if (!inShape(q.what!, key, new Set())) continue;
      const problem = judgeKey(key, ops.get(`${q.what}/${key}`), shown.get(key), rev);
      if (problem)
        v.push(`${at} (${q.what} of ${q.node}${q.minRevision !== undefined ? `, minRevision ${q.minRevision}` : ""}, answered at revision ${rev}): ${problem}`);
    }
  }
  return result("4. verb replies", v, `${ok} replies of 200 judged key by key; ${unanswered} requests unanswered (timeout or no responders), counted apart`);
}

function entriesEqual(where: string, want: readonly SeenEntry[], got: readonly SeenEntry[], v: string[]): void {
  const g = new Map(got.map((e) => [e.key, e]));
  const w = new Map(want.map((e) => [e.key, e]));
  for (const [k, e] of w) {
    const x = g.get(k);
    if (!x) v.push(`${where}: ${k} is missing (the bucket holds revision ${e.revision})`);
    else if (x.revision !== e.revision || x.token !== e.token)
      v.push(`${where}: ${k} is at revision ${x.revision} (${x.token}); the bucket holds revision ${e.revision} (${e.token})`);
  }
  for (const [k, x] of g) if (!w.has(k)) v.push(`${where}: ${k} (revision ${x.revision}) is not in the bucket`);
}

export function followerDifferences(f: FollowerFinal, bucket: BucketFinal | undefined, knownKinds: ReadonlySet<string>): string[] {
  const v: string[] = [];
  const where = `follower ${f.name} (${f.what}${f.node ? ` of ${f.node}` : ""}, as ${f.user})`;
  if (!bucket) return [`${where}: its bucket was not read`];
  if (!f.synced) v.push(`${where}: not synced at the end`);
  const mine = bucket.entries.filter((e) => f.node === undefined || e.key.split(".")[0] === f.node);
  const what = f.what as What;
  const inside = mine.filter((e) => inShape(what, e.key, knownKinds, e.value));
  entriesEqual(where, inside, f.entries, v);
  const oos = new Set(mine.filter((e) => !inShape(what, e.key, knownKinds, e.value)).map((e) => e.key));
  for (const k of oos) if (!f.outOfShape.includes(k)) v.push(`${where}: the key out of shape ${k} is not listed`);
  for (const k of f.outOfShape) if (!oos.has(k)) v.push(`${where}: lists ${k} out of shape; the bucket has no such key out of shape`);
  return v;
}

export function checkFollowers(r: RunRecord, knownKinds: ReadonlySet<string>): CheckResult {
  const v = r.followers.flatMap((f) => followerDifferences(f, bucketOf(r, f.what), knownKinds));
  const snapshots = r.followers.reduce((s, f) => s + f.snapshots, 0);
  return result("5. every feed follower ends equal to its bucket", v, `${r.followers.length} followers, ${snapshots} snapshots taken in all`);
}

export function checkInstancesStayedUp(r: RunRecord): CheckResult {
  const v: string[] = [];
  let startFailures = 0;
  for (const p of r.processes) {
    if (p.exitedAt === undefined || p.endedBy !== undefined) continue;
    // Exit 3 or 4 before the first sync is the documented refusal to start (server unreachable, bucket not created).
    if (p.syncedAt === undefined && (p.code === 3 || p.code === 4)) startFailures++;
    else v.push(`instance ${p.slot} pid ${p.pid} (${p.instance ?? "?"}) exited on its own at ${p.exitedAt} ms: code ${p.code}, signal ${p.signal}`);
  }
  return result("no instance died on its own", v, `${r.processes.length} processes; ${startFailures} refused to start (exit 3 or 4, started again)`);
}

export function checkFlood(r: RunRecord): CheckResult {
  const name = "the flooding node is named";
  const flood = r.writes.filter((w) => w.flood);
  const acked = flood.filter((w) => w.outcome === "ack").length;
  const named = r.flood.filter((l) => l.fields["node"] === r.meta.floodNode);
  const wrote = `${flood.length} flood writes (${acked} acknowledged)`;
  if (flood.length === 0) return { name, status: "not available", summary: "no flood in this run", violations: [] };
  if (!r.meta.floodFeature) {
    const seen = named.length > 0 ? `; ${named.length} log lines named it anyway` : "";
    return {
      name,
      status: "not available",
      summary: `the service has no flood detection yet (serve --help lists no --bucket-max-bytes); ${wrote}${seen}`,
      violations: [],
    };
  }
  const v = named.length > 0 ? [] : [`no instance logged "a node is flooding its keys" naming ${r.meta.floodNode} (${wrote})`];
  const limit = r.meta.maxValueBytes;
  if (limit !== undefined) {
    for (const w of flood)
      if ((w.bytes ?? 0) > limit && w.outcome === "ack")
        v.push(`write #${w.id} of ${w.bytes} bytes, over --max-value-bytes ${limit}, was stored at seq ${w.seq}`);
  }
  return result(name, v, `${named.length} log lines named ${r.meta.floodNode}; ${wrote}`);
}

export function runChecks(r: RunRecord, table: ReadonlyMap<string, unknown>): CheckResult[] {
  const known = new Set(table.keys());
  return [
    checkNothingLost(r, known),
    checkRegistry(r, table),
    checkOneWriter(r),
    checkReplies(r),
    checkFollowers(r, known),
    checkInstancesStayedUp(r),
    checkFlood(r),
  ];
}
