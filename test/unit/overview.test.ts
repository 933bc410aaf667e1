import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ProjectionStore } from "../../src/projections/store/store.js";
import { appliedSpec, collectSpec, needsSpec } from "../../src/projections/bucket-specs.js";
import { MeshOverview, MAX_NODE_PAGE, type NodeBucket, type NodeRow } from "../../src/overview/overview.js";
import { Projection } from "../../src/projections/projection.js";
import { memoryLogger } from "../../src/log.js";
import { Subject } from "rxjs";
import type { WatchEvent } from "../../src/streams/kv-watch.js";
import { DEFAULT_FLOOD_LIMITS } from "../../src/defaults.js";

const enc = new TextEncoder();
const SPECS = { needs: needsSpec, applied: appliedSpec, collect: collectSpec } as const;

function mesh(answered: ReadonlySet<string>, now = () => 1_000) {
  const overview = new MeshOverview((kind) => answered.has(kind), now, { limits: DEFAULT_FLOOD_LIMITS });
  const stores = {} as Record<NodeBucket, ProjectionStore>;
  for (const w of ["needs", "applied", "collect"] as const) stores[w] = new ProjectionStore(SPECS[w], { observer: overview.observerFor(w) });
  let rev = 0;
  const put = (w: NodeBucket, key: string, value = "{}"): void => void stores[w].apply("PUT", key, ++rev, enc.encode(value));
  const del = (w: NodeBucket, key: string): void => void stores[w].apply("DEL", key, ++rev, new Uint8Array());
  return { overview, stores, put, del };
}

/** The overview computed from scratch from the stores' contents: what the kept counts must equal. */
function recount(stores: Record<NodeBucket, ProjectionStore>, answered: ReadonlySet<string>) {
  const rows = new Map<
    string,
    { needs: number; unanswered: number; modules: Set<string>; needMods: Set<string>; applied: Set<string>; collect: number; oos: number }
  >();
  const row = (n: string) => {
    let r = rows.get(n);
    if (!r) rows.set(n, (r = { needs: 0, unanswered: 0, modules: new Set(), needMods: new Set(), applied: new Set(), collect: 0, oos: 0 }));
    return r;
  };
  for (const k of stores.needs.entryKeys()) {
    const [n, m, kind] = k.split(".") as [string, string, string];
    const r = row(n);
    r.needs++;
    if (!answered.has(kind)) r.unanswered++;
    r.modules.add(m);
    r.needMods.add(m);
  }
  for (const k of stores.applied.entryKeys()) {
    const [n, m] = k.split(".") as [string, string];
    row(n).applied.add(m);
    row(n).modules.add(m);
  }
  for (const k of stores.collect.entryKeys()) row(k.split(".")[0] as string).collect++;
  let withoutNode = 0;
  for (const w of ["needs", "applied", "collect"] as const) {
    for (const o of stores[w].allOutOfShape()) {
      if (o.readable["node"] === undefined) withoutNode++;
      else row(o.readable["node"]).oos++;
    }
  }
  const out = new Map<string, Omit<NodeRow, "last" | "keys" | "bytes" | "flooding">>();
  for (const [node, r] of [...rows].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const notApplied = [...r.needMods].filter((m) => !r.applied.has(m)).length;
    out.set(node, {
      node,
      modules: r.modules.size,
      needs: r.needs,
      unanswered: r.unanswered,
      notApplied,
      applied: r.applied.size,
      collect: r.collect,
      outOfShape: r.oos,
      problems: r.unanswered > 0 || notApplied > 0 || r.oos > 0,
    });
  }
  return { rows: out, withoutNode };
}

const strip = ({ last: _last, keys: _keys, bytes: _bytes, flooding: _flooding, ...rest }: NodeRow): Omit<NodeRow, "last" | "keys" | "bytes" | "flooding"> =>
  rest;

describe("the mesh overview", () => {
  test("counts a node's needs, unanswered needs, modules not applied, collect items and keys out of shape", () => {
    const { overview, put } = mesh(new Set(["config", "port"]));
    put("needs", "n1.web.config.listen");
    put("needs", "n1.web.port.https");
    put("needs", "n1.api.tracing.endpoint"); // a kind the registry does not answer
    put("applied", "n1.web");
    put("collect", "n1.shell.web", "export A=1");
    put("needs", "n1.web.config"); // out of shape: three tokens
    put("needs", "bad"); // out of shape, and its node is readable ("bad")
    assert.deepEqual(strip(overview.row("n1") as NodeRow), {
      node: "n1",
      modules: 2,
      needs: 3,
      unanswered: 1,
      notApplied: 1,
      applied: 1,
      collect: 1,
      outOfShape: 1,
      problems: true,
    });
    const t = overview.totals();
    assert.equal(t.nodes, 2);
    assert.equal(t.needs, 3);
    assert.equal(t.unanswered, 1);
    assert.deepEqual(t.outOfShape, { needs: 2, applied: 0, collect: 0 });
  });

  test("a need turns answered when the registry starts to answer its kind, with no recount", () => {
    const answered = new Set(["config"]);
    const { overview, put } = mesh(answered);
    put("needs", "n1.web.tracing.endpoint");
    put("applied", "n1.web");
    assert.equal(overview.row("n1")?.unanswered, 1);
    assert.equal(overview.row("n1")?.problems, true);
    answered.add("tracing");
    assert.equal(overview.row("n1")?.unanswered, 0);
    assert.equal(overview.row("n1")?.problems, false);
    assert.equal(overview.totals().nodesWithProblems, 0);
  });

  test("a node whose last key is deleted leaves the list", () => {
    const { overview, put, del } = mesh(new Set(["config"]));
    put("needs", "n1.web.config.a");
    put("needs", "n2.web.config.a");
    del("needs", "n1.web.config.a");
    assert.equal(overview.row("n1"), undefined);
    assert.deepEqual(
      overview.page().rows.map((r) => r.node),
      ["n2"],
    );
    assert.equal(overview.totals().nodes, 1);
  });

  test("the last change carries its bucket and revision, and a time only once synced", () => {
    let clock = 5_000;
    const { overview, put } = mesh(new Set(["config"]), () => clock);
    put("needs", "n1.web.config.a");
    assert.deepEqual(overview.row("n1")?.last, { what: "needs", revision: 1, at: null });
    overview.markSynced();
    clock = 7_000;
    put("applied", "n1.web");
    assert.deepEqual(overview.row("n1")?.last, { what: "applied", revision: 2, at: 7_000 });
  });

  test("the node list is paged, sorted by name and filtered on the server; the page says which part it shows", () => {
    const { overview, put } = mesh(new Set(["config"]));
    for (let i = 0; i < 120; i++) put("needs", `node-${String(i).padStart(3, "0")}.web.config.a`);
    for (let i = 0; i < 120; i += 10) put("applied", `node-${String(i).padStart(3, "0")}.web`);
    const p = overview.page({ offset: 50, limit: 25 });
    assert.equal(p.total, 120);
    assert.equal(p.matched, 120);
    assert.equal(p.offset, 50);
    assert.deepEqual(
      p.rows.map((r) => r.node),
      Array.from({ length: 25 }, (_, i) => `node-${String(50 + i).padStart(3, "0")}`),
    );
    const q = overview.page({ match: "NODE-01" });
    assert.deepEqual(
      q.rows.map((r) => r.node),
      Array.from({ length: 10 }, (_, i) => `node-01${i}`),
    );
    assert.equal(q.matched, 10);
    const wrong = overview.page({ problems: true, limit: 5 });
    assert.equal(wrong.matched, 108, "every node but the 12 applied ones has a module not applied");
    assert.deepEqual(
      wrong.rows.map((r) => r.node),
      ["node-001", "node-002", "node-003", "node-004", "node-005"],
    );
    assert.equal(overview.page({ limit: 10_000 }).rows.length, Math.min(120, MAX_NODE_PAGE));
  });

  test("a node past the flood limits is named once when it goes over and once when it is back under", () => {
    const changes: { node: string; flooding: boolean; keys: number }[] = [];
    const overview = new MeshOverview(
      () => true,
      () => 9_000,
      { limits: { keys: 5, bytes: 1 << 30 }, onChange: (c) => changes.push({ node: c.node, flooding: c.flooding, keys: c.keys }) },
    );
    const needs = new ProjectionStore(needsSpec, { observer: overview.observerFor("needs") });
    let rev = 0;
    for (let i = 0; i < 8; i++) needs.apply("PUT", `flood.m.config.k${i}`, ++rev, enc.encode("{}"));
    needs.apply("PUT", "calm.m.config.k", ++rev, enc.encode("{}"));
    assert.deepEqual(changes, [{ node: "flood", flooding: true, keys: 6 }]);
    assert.equal(overview.row("flood")?.flooding, true);
    assert.equal(overview.row("flood")?.problems, true);
    assert.equal(overview.row("calm")?.flooding, false);
    assert.deepEqual(
      overview.totals().flooding.map((f) => [f.node, f.keys]),
      [["flood", 8]],
    );
    assert.equal(overview.totals().nodesFlooding, 1);
    for (let i = 0; i < 4; i++) needs.apply("DEL", `flood.m.config.k${i}`, ++rev, new Uint8Array());
    assert.deepEqual(changes.at(-1), { node: "flood", flooding: false, keys: 5 });
    assert.equal(changes.length, 2);
    assert.equal(overview.totals().nodesFlooding, 0);
  });

  test("a node past the byte limit floods too, counting what it holds after overwrites", () => {
    const overview = new MeshOverview(() => true, Date.now, { limits: { keys: 1_000, bytes: 2_000 } });
    const needs = new ProjectionStore(needsSpec, { observer: overview.observerFor("needs") });
    needs.apply("PUT", "big.m.config.k", 1, enc.encode(JSON.stringify("x".repeat(3_000))));
    assert.equal(overview.row("big")?.flooding, true);
    needs.apply("PUT", "big.m.config.k", 2, enc.encode('"small"'));
    assert.equal(overview.row("big")?.flooding, false, "the overwrite replaced the bytes, not added to them");
    assert.ok((overview.row("big")?.bytes ?? 0) < 200);
  });

  test("a rebuilt store swapped into a projection replaces its bucket's part of the counts", () => {
    const answered = new Set(["config"]);
    const overview = new MeshOverview((k) => answered.has(k), Date.now, { limits: DEFAULT_FLOOD_LIMITS });
    const p = new Projection(needsSpec, memoryLogger().log, overview.observerFor("needs"));
    let rev = 0;
    const entry = (key: string) => ({ type: "entry" as const, entry: { operation: "PUT" as const, key, revision: ++rev, value: enc.encode("{}") } });
    // Feed it through its watch events: a snapshot, then a rebuild that keeps only n2's key.
    const events = [entry("n1.web.config.a"), entry("n1.web.config.b"), { type: "synced" as const, lastSeq: 2 }];
    const watch$ = new Subject<WatchEvent>();
    const sub = p.connect(watch$);
    for (const e of events) watch$.next(e);
    assert.equal(overview.row("n1")?.needs, 2);
    watch$.next({ type: "rebuilding", fromRevision: 2, firstSeq: 10 });
    rev = 10;
    watch$.next(entry("n2.web.config.a"));
    watch$.next({ type: "synced", lastSeq: 11 });
    assert.equal(overview.row("n1"), undefined);
    assert.equal(overview.row("n2")?.needs, 1);
    assert.equal(overview.totals().needs, 1);
    // And it keeps following the new store.
    watch$.next(entry("n2.web.config.b"));
    assert.equal(overview.row("n2")?.needs, 2);
    sub.unsubscribe();
  });

  test("property: after any puts and deletes, in shape or not, the kept counts equal a recount of the stores", () => {
    const keys = fc.oneof(
      fc
        .tuple(
          fc.constant("needs" as const),
          fc.constantFrom("n1", "n2", "n3", "a-b"),
          fc.constantFrom("web", "api"),
          fc.constantFrom("config", "port", "tracing"),
          fc.constantFrom("x", "y"),
        )
        .map(([w, n, m, k, x]) => [w, `${n}.${m}.${k}.${x}`] as const),
      fc
        .tuple(fc.constant("applied" as const), fc.constantFrom("n1", "n2", "n4"), fc.constantFrom("web", "api", "db"))
        .map(([w, n, m]) => [w, `${n}.${m}`] as const),
      fc
        .tuple(fc.constant("collect" as const), fc.constantFrom("n1", "n3"), fc.constantFrom("shell", "ssh=20keys"), fc.constantFrom("web", "api"))
        .map(([w, n, c, x]) => [w, `${n}.${c}.${x}`] as const),
      // Out of shape: too few or too many tokens, or an empty node.
      fc
        .tuple(
          fc.constantFrom("needs" as const, "applied" as const, "collect" as const),
          fc.constantFrom("n1.web", "n2", "n1.a.b.c.d", ".web.config.x", "n3.web.config"),
        )
        .map(([w, k]) => [w, k] as const),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(keys, fc.boolean()), { maxLength: 200, size: "medium" }), fc.subarray(["config", "port", "tracing"]), (ops, kinds) => {
        const answered = new Set(kinds);
        const { overview, stores, put, del } = mesh(answered);
        for (const [[w, key], isPut] of ops) (isPut ? put : del)(w, key);
        const want = recount(stores, answered);
        const got = overview.page({ limit: MAX_NODE_PAGE }).rows.map(strip);
        assert.deepEqual(got, [...want.rows.values()]);
        const t = overview.totals();
        assert.equal(t.nodes, want.rows.size);
        assert.equal(t.needs, stores.needs.size);
        assert.equal(
          t.unanswered,
          [...want.rows.values()].reduce((a, r) => a + r.unanswered, 0),
        );
        assert.equal(t.nodesWithProblems, [...want.rows.values()].filter((r) => r.problems).length);
        assert.equal(t.outOfShapeWithoutNode, want.withoutNode);
        for (const w of ["needs", "applied", "collect"] as const) assert.equal(t.outOfShape[w], stores[w].outOfShapeCount, w);
        // Each node's keys (out-of-shape ones included) and the bytes of its entries as held.
        for (const row of overview.page({ limit: MAX_NODE_PAGE }).rows) {
          const w = want.rows.get(row.node)!;
          assert.equal(row.keys, w.needs + w.applied + w.collect + w.outOfShape, row.node);
          let bytes = 0;
          for (const b of ["needs", "applied", "collect"] as const) {
            for (const e of stores[b].allEntries()) if (e.fields["node"] === row.node) bytes += e.bytes;
          }
          assert.equal(row.bytes, bytes, row.node);
        }
      }),
      { numRuns: 300 },
    );
  });
});
