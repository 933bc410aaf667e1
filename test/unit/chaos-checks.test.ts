/**
 * The chaos run's checks (chaos/checks.ts) over small made-up histories: each
 * passes on a history that holds, and catches the violation it is there for.
 * Also the seeded plan (same seed, same plan) and the seat's holds.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  checkFlood,
  checkFollowers,
  checkInstancesStayedUp,
  checkNothingLost,
  checkOneWriter,
  checkRegistry,
  checkReplies,
  type RunRecord,
} from "../../chaos/checks.js";
import type { BucketFinal, InstanceFinal, ReadRecord, WriteOp } from "../../chaos/history.js";
import { judgeKey, indexWrites } from "../../chaos/judge.js";
import { holderAt, holdsTimeline } from "../../chaos/seat-timeline.js";
import { FAULT_KINDS, countByKind, planFaults } from "../../chaos/schedule.js";
import { allReadyAfter, longestStretch } from "../../chaos/figures.js";

const ORIGIN = Date.parse("2026-01-01T00:00:00.000Z");
const iso = (ms: number): string => new Date(ORIGIN + ms).toISOString();
const KNOWN = new Set(["config"]);
const TABLE = new Map<string, unknown>([["config", { kind: "config", module: "mesh-config" }]]);

let nextId = 0;
function w(key: string, op: "put" | "delete", outcome: WriteOp["outcome"], seq?: number, more: Partial<WriteOp> = {}): WriteOp {
  const id = nextId++;
  return {
    id,
    node: key.split(".")[0]!,
    bucket: "needs",
    key,
    op,
    shape: "in",
    sentAt: id,
    ...(op === "put" ? { token: `t${id}` } : {}),
    outcome,
    ...(seq !== undefined ? { seq } : {}),
    ...more,
  };
}

const entry = (op: WriteOp, revision = op.seq!): BucketFinal["entries"][number] => ({
  key: op.key,
  revision,
  token: op.token!,
  value: JSON.stringify({ op: op.token }),
});

function instanceOf(slot: string, needs: BucketFinal["entries"], outOfShape: string[] = []): InstanceFinal {
  const empty = { revision: 0, entries: [], outOfShape: [] };
  return {
    slot,
    instance: `i-${slot}`,
    pid: 1,
    buckets: {
      registry: { revision: 1, entries: [{ key: "config", revision: 1, token: null, value: TABLE.get("config") }], outOfShape: [] },
      needs: { revision: 99, entries: needs.map(({ key, revision, token }) => ({ key, revision, token })), outOfShape },
      applied: empty,
      collect: empty,
    },
  };
}

function record(over: Partial<RunRecord> = {}): RunRecord {
  return {
    meta: { startedAt: iso(0), floodNode: "flood", floodFeature: true },
    writes: [],
    reads: [],
    seat: [],
    registry: [],
    processes: [{ slot: "A", pid: 1, spawnedAt: 0, syncedAt: 1 }],
    flood: [],
    followers: [],
    buckets: [
      { what: "registry", lastSeq: 1, entries: [{ key: "config", revision: 1, token: null, value: JSON.stringify(TABLE.get("config")) }] },
      { what: "needs", lastSeq: 0, entries: [] },
      { what: "applied", lastSeq: 0, entries: [] },
      { what: "collect", lastSeq: 0, entries: [] },
    ],
    instances: [instanceOf("A", [])],
    ...over,
  };
}

function withNeeds(writes: WriteOp[], needs: BucketFinal["entries"], instanceNeeds = needs, oos: string[] = []): RunRecord {
  const r = record({ writes, instances: [instanceOf("A", instanceNeeds, oos)] });
  r.buckets[1] = { what: "needs", lastSeq: 99, entries: needs };
  return r;
}

describe("chaos check 1: nothing lost, nothing resurrected", () => {
  test("passes when the bucket and the instance hold each key's last acknowledged write", () => {
    const a = w("n1.web.config.a", "put", "ack", 1);
    const b = w("n1.web.config.a", "put", "ack", 2);
    const c = w("n1.web.config.b", "put", "ack", 3);
    const d = w("n1.web.config.b", "delete", "ack", 4);
    const r = withNeeds([a, b, c, d], [entry(b)]);
    assert.equal(checkNothingLost(r, KNOWN).status, "pass", JSON.stringify(checkNothingLost(r, KNOWN)));
  });

  test("an indeterminate write may be there or not", () => {
    const a = w("n1.web.config.a", "put", "ack", 1);
    const b = w("n1.web.config.a", "put", "indeterminate");
    assert.equal(checkNothingLost(withNeeds([a, b], [entry(b, 5)]), KNOWN).status, "pass");
    assert.equal(checkNothingLost(withNeeds([a, b], [entry(a)]), KNOWN).status, "pass");
  });

  test("catches an acknowledged write that is missing", () => {
    const a = w("n1.web.config.a", "put", "ack", 1);
    const res = checkNothingLost(withNeeds([a], []), KNOWN);
    assert.equal(res.status, "fail");
    assert.match(res.violations[0]!, /lost: n1\.web\.config\.a is absent/);
  });

  test("catches an older value replacing an acknowledged one, and a deleted key back", () => {
    const a = w("n1.web.config.a", "put", "ack", 1);
    const b = w("n1.web.config.a", "put", "ack", 2);
    assert.match(checkNothingLost(withNeeds([a, b], [entry(a)]), KNOWN).violations[0]!, /lost: .* acknowledged after it/);
    const del = w("n1.web.config.a", "delete", "ack", 3);
    assert.match(checkNothingLost(withNeeds([a, b, del], [entry(b)]), KNOWN).violations[0]!, /resurrected/);
  });

  test("catches a value no write made, and an instance that differs from the bucket", () => {
    const a = w("n1.web.config.a", "put", "ack", 1);
    const stranger = { key: "n1.web.config.a", revision: 1, token: "nobody", value: "{}" };
    assert.match(checkNothingLost(withNeeds([a], [stranger]), KNOWN).violations[0]!, /unknown value/);
    const b = w("n1.web.config.a", "put", "ack", 2);
    const res = checkNothingLost(withNeeds([a, b], [entry(b)], [entry(a)]), KNOWN);
    assert.equal(res.status, "fail");
    assert.match(res.violations.join("\n"), /instance A .* n1\.web\.config\.a is t\d+ at revision 1; the bucket holds/);
  });

  test("catches a key out of shape the instance does not list", () => {
    const odd = w("n1.oos.config", "put", "ack", 1, { shape: "out" });
    const res = checkNothingLost(withNeeds([odd], [entry(odd)], [], []), KNOWN);
    assert.match(res.violations.join("\n"), /the key out of shape n1\.oos\.config is not listed/);
    assert.equal(checkNothingLost(withNeeds([odd], [entry(odd)], [], ["n1.oos.config"]), KNOWN).status, "pass");
  });
});

describe("chaos check 2: the registry equals the compiled table", () => {
  test("passes on the table, catches a changed value, an extra kind and an instance that differs", () => {
    assert.equal(checkRegistry(record(), TABLE).status, "pass");
    const r = record();
    r.buckets[0] = {
      what: "registry",
      lastSeq: 3,
      entries: [
        { key: "config", revision: 2, token: null, value: '{"kind":"config","module":"x"}' },
        { key: "bogus", revision: 3, token: null, value: "{}" },
      ],
    };
    const res = checkRegistry(r, TABLE);
    assert.equal(res.status, "fail");
    assert.match(res.violations.join("\n"), /kind config is .*module":"x"/);
    assert.match(res.violations.join("\n"), /kind bogus is not in the table/);
    const inst = record();
    inst.instances[0]!.buckets["registry"]!.entries = [];
    assert.match(checkRegistry(inst, TABLE).violations[0]!, /instance A .*kind config is missing/);
  });
});

describe("chaos check 3: one writer at a time", () => {
  const seat = [
    { revision: 1, at: 10, seenAt: 10, op: "PUT", holder: { instance: "a", pid: 1, since: iso(10) } },
    { revision: 2, at: 20, seenAt: 20, op: "PUT", holder: { instance: "a", pid: 1, since: iso(10) } },
    { revision: 3, at: 100, seenAt: 100, op: "PUT", holder: { instance: "b", pid: 2, since: iso(99) } },
  ];

  test("holds: renewals keep a hold, a new since starts the next", () => {
    const holds = holdsTimeline(seat, ORIGIN);
    assert.deepEqual(
      holds.map((h) => [h.instance, h.start, h.end]),
      [
        ["a", 10, 99],
        ["b", 99, Number.POSITIVE_INFINITY],
      ],
    );
    assert.equal(holderAt(holds, 50)?.instance, "a");
    assert.equal(holderAt(holds, 5), undefined);
  });

  test("passes when each writer wrote while it held the seat; the run's own tampering is left out", () => {
    const registry = [
      { seq: 1, at: 15, kind: "config", op: "PUT", writer: "a" },
      { seq: 2, at: 50, kind: "config", op: "PUT", tamper: true },
      { seq: 3, at: 120, kind: "config", op: "PUT", writer: "b" },
    ];
    assert.equal(checkOneWriter(record({ seat, registry })).status, "pass");
  });

  test("catches a write by the old holder after a successor took the seat, and a write naming nobody", () => {
    const registry = [
      { seq: 1, at: 150, kind: "config", op: "PUT", writer: "a" },
      { seq: 2, at: 160, kind: "config", op: "PUT" },
    ];
    const res = checkOneWriter(record({ seat, registry }));
    assert.equal(res.status, "fail");
    assert.match(res.violations[0]!, /by a at 150 ms, while b held the seat/);
    assert.match(res.violations[1]!, /names no writer/);
  });
});

describe("chaos check 4: verb replies", () => {
  const a = w("n1.web.config.a", "put", "ack", 10);
  const b = w("n1.web.config.b", "put", "ack", 15);
  const read = (over: Partial<ReadRecord>): ReadRecord => ({ id: 0, reader: "r", what: "needs", node: "n1", sentAt: 0, status: 200, ...over });

  test("passes on a 200 holding every acknowledged write up to its revision, and on 503/504", () => {
    const reads = [
      read({ minRevision: 10, revision: 12, entries: [{ key: a.key, revision: 10, token: a.token! }] }),
      read({
        revision: 20,
        entries: [
          { key: a.key, revision: 10, token: a.token! },
          { key: b.key, revision: 15, token: b.token! },
        ],
      }),
      read({ status: 504 }),
      read({ status: 503 }),
      read({ status: "timeout" }),
      read({ malformed: "{", status: 400, what: undefined, node: undefined }),
    ];
    const res = checkReplies(record({ writes: [a, b], reads }));
    assert.equal(res.status, "pass", res.violations.join("\n"));
  });

  test("catches a reply below its minRevision, a missing acknowledged write, a 500 and a malformed request answered 200", () => {
    const reads = [
      read({ minRevision: 15, revision: 12, entries: [{ key: a.key, revision: 10, token: a.token! }] }),
      read({ revision: 20, entries: [{ key: a.key, revision: 10, token: a.token! }] }),
      read({ status: 500 }),
      read({ malformed: "{", status: 200, what: undefined, node: undefined }),
    ];
    const res = checkReplies(record({ writes: [a, b], reads }));
    const all = res.violations.join("\n");
    assert.equal(res.status, "fail");
    assert.match(all, /below the minRevision 15/);
    assert.match(all, /lost: n1\.web\.config\.b is absent/);
    assert.match(all, /answered 500/);
    assert.match(all, /malformed request \{ was answered 200/);
  });
});

describe("chaos check 5: followers end equal to their bucket", () => {
  const put = w("n1.web.config.a", "put", "ack", 5);
  const odd = w("n1.oos.config", "put", "ack", 6, { shape: "out" });
  const base = (entries: { key: string; revision: number; token: string | null }[], outOfShape: string[]): RunRecord => {
    const r = withNeeds([put, odd], [entry(put), entry(odd)]);
    r.followers = [
      { name: "f", user: "u", what: "needs", node: "n1", synced: true, revision: 6, snapshots: 1, snapshotLog: [], errors: 0, entries, outOfShape },
    ];
    return r;
  };

  test("passes when equal, catches a stale entry and a key out of shape not listed", () => {
    assert.equal(checkFollowers(base([{ key: put.key, revision: 5, token: put.token! }], [odd.key]), KNOWN).status, "pass");
    const res = checkFollowers(base([{ key: put.key, revision: 3, token: "old" }], []), KNOWN);
    assert.equal(res.status, "fail");
    assert.match(res.violations.join("\n"), /n1\.web\.config\.a is at revision 3/);
    assert.match(res.violations.join("\n"), /the key out of shape n1\.oos\.config is not listed/);
  });
});

describe("chaos: instances stay up, the flood is named", () => {
  test("an exit the run did not cause fails; a documented refusal to start does not", () => {
    const ok = record({ processes: [{ slot: "A", pid: 1, spawnedAt: 0, exitedAt: 5, code: 3 }] });
    assert.equal(checkInstancesStayedUp(ok).status, "pass");
    const bad = record({ processes: [{ slot: "A", pid: 1, spawnedAt: 0, syncedAt: 1, exitedAt: 5, code: 1 }] });
    assert.match(checkInstancesStayedUp(bad).violations[0]!, /exited on its own/);
  });

  test("the flood must be named when the service has the feature, and a value over the limit refused", () => {
    const writes = [w("flood.m0.config.k0", "put", "ack", 1, { flood: true, bytes: 100 })];
    assert.equal(checkFlood(record({ writes })).status, "fail");
    const line = { slot: "A", at: 1, msg: "a node is flooding its keys", fields: { node: "flood" } };
    assert.equal(checkFlood(record({ writes, flood: [line] })).status, "pass");
    const big = [...writes, w("flood.big.config.k0", "put", "ack", 2, { flood: true, bytes: 20_000 })];
    const r = record({ writes: big, flood: [line] });
    const res = checkFlood({ ...r, meta: { ...r.meta, maxValueBytes: 16_384 } });
    assert.match(res.violations[0]!, /over --max-value-bytes 16384, was stored/);
    const without = record({ writes });
    assert.equal(checkFlood({ ...without, meta: { ...without.meta, floodFeature: false } }).status, "not available");
  });
});

describe("chaos: the plan and the figures", () => {
  test("the same seed gives the same plan; every kind appears; faults end before the run does", () => {
    const opts = { seed: 7, durationMs: 60_000, ttlMs: 2000, slots: 3, nodes: ["n1", "n2"], floodKeys: 10 };
    const plan = planFaults(opts);
    assert.deepEqual(planFaults(opts), plan);
    assert.notDeepEqual(planFaults({ ...opts, seed: 8 }), plan);
    const counts = countByKind(plan);
    for (const k of FAULT_KINDS) assert.ok(counts[k] >= 1, `${k} planned`);
    for (const f of plan) assert.ok(f.at + f.durationMs <= opts.durationMs - 4000, `fault ${f.id} healed in time`);
    // No two pauses or cuts on one instance at once.
    const busy = plan.filter((f) => f.slot !== undefined);
    for (const x of busy)
      for (const y of busy)
        if (x !== y && x.slot === y.slot)
          assert.ok(x.at + x.durationMs <= y.at || y.at + y.durationMs <= x.at, `faults ${x.id} and ${y.id} overlap on one instance`);
  });

  test("recovery and the longest stretch come from the availability changes", () => {
    const changes = [
      { slot: "A", at: 0, state: "ready" as const },
      { slot: "B", at: 0, state: "ready" as const },
      { slot: "A", at: 10, state: "down" as const },
      { slot: "A", at: 30, state: "not-ready" as const },
      { slot: "A", at: 35, state: "ready" as const },
    ];
    assert.equal(allReadyAfter(changes, ["A", "B"], 12), 35);
    assert.equal(
      longestStretch(changes, "A", 0, 100, (s) => s === "down"),
      20,
    );
    assert.equal(
      longestStretch(changes, "A", 0, 100, (s) => s !== "ready"),
      25,
    );
  });

  test("judgeKey as of a revision ignores writes stored above it", () => {
    const a = w("n1.web.config.z", "put", "ack", 3);
    const b = w("n1.web.config.z", "put", "ack", 9);
    const ops = indexWrites([a, b]).get("needs/n1.web.config.z");
    assert.equal(judgeKey(a.key, ops, { key: a.key, revision: 3, token: a.token! }, 5), undefined);
    assert.match(judgeKey(a.key, ops, { key: a.key, revision: 3, token: a.token! }) ?? "", /lost/);
  });
});
