import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ProjectionStore } from "../../src/projections/store/store.js";
import { appliedSpec, collectSpec, needsSpec } from "../../src/projections/bucket-specs.js";
import { MeshOverview, type NodeBucket } from "../../src/overview/overview.js";
import { DEFAULT_FLOOD_LIMITS } from "../../src/defaults.js";
import { encodeName } from "mesh-provisioner-client/keys";

const enc = new TextEncoder();
const SPECS = { needs: needsSpec, applied: appliedSpec, collect: collectSpec } as const;

function mesh(answered: ReadonlySet<string>) {
  const overview = new MeshOverview(
    (kind) => answered.has(kind),
    () => 1_000,
    { limits: DEFAULT_FLOOD_LIMITS },
  );
  const stores = {} as Record<NodeBucket, ProjectionStore>;
  for (const w of ["needs", "applied", "collect"] as const) stores[w] = new ProjectionStore(SPECS[w], { observer: overview.observerFor(w) });
  let rev = 0;
  const put = (w: NodeBucket, key: string, value = "{}"): void => void stores[w].apply("PUT", key, ++rev, enc.encode(value));
  const del = (w: NodeBucket, key: string): void => void stores[w].apply("DEL", key, ++rev, new Uint8Array());
  return { overview, stores, put, del };
}

describe("the overview's mesh-wide lists", () => {
  test("needs per kind and items per collection follow puts and deletes, sorted by name", () => {
    const m = mesh(new Set(["config"]));
    m.put("needs", "n1.web.config.a");
    m.put("needs", "n2.web.config.a");
    m.put("needs", "n2.web.tracing.x");
    m.put("collect", `n1.${encodeName("shell:zsh:normal")}.web`, "alias a=b");
    m.put("collect", "n2.environment.api", "A=1");
    m.put("collect", "n1.environment.api", "A=2");
    assert.deepEqual(m.overview.kinds(), [
      { kind: "config", needs: 2 },
      { kind: "tracing", needs: 1 },
    ]);
    assert.deepEqual(m.overview.collections(), [
      { collection: "environment", items: 2 },
      { collection: "shell:zsh:normal", items: 1 },
    ]);
    m.del("needs", "n2.web.tracing.x");
    m.del("collect", "n2.environment.api");
    assert.equal(m.overview.needsOfKind("tracing"), 0);
    assert.equal(m.overview.itemsOf("environment"), 1);
    assert.deepEqual(
      m.overview.kinds().map((k) => k.kind),
      ["config"],
    );
    m.overview.clear("collect");
    assert.deepEqual(m.overview.collections(), []);
  });

  test("the node list keeps the nodes with a need of a kind (with how many) or with unanswered needs", () => {
    const m = mesh(new Set(["config"]));
    for (const n of ["a1", "a2", "b1"]) m.put("needs", `${n}.web.config.listen`);
    m.put("needs", "a2.web.tracing.x");
    m.put("needs", "a2.api.tracing.y");
    m.put("needs", "b1.web.tracing.x");
    const kind = m.overview.page({ kind: "tracing" });
    assert.equal(kind.matched, 2);
    assert.deepEqual(
      kind.rows.map((r) => [r.node, r.ofKind]),
      [
        ["a2", 2],
        ["b1", 1],
      ],
    );
    assert.deepEqual(
      m.overview.page({ kind: "tracing", match: "A" }).rows.map((r) => r.node),
      ["a2"],
    );
    const unanswered = m.overview.page({ unanswered: true, offset: 1, limit: 1 });
    assert.equal(unanswered.matched, 2);
    assert.deepEqual(
      unanswered.rows.map((r) => [r.node, r.unanswered]),
      [["b1", 1]],
    );
    assert.equal(m.overview.page({ kind: "nothing" }).matched, 0);
  });

  test("the per-kind and per-collection counts always equal a recount of the stores", () => {
    const op = fc.record({
      del: fc.boolean(),
      bucket: fc.constantFrom<"needs" | "collect">("needs", "collect"),
      node: fc.constantFrom("n1", "n2", "n3"),
      name: fc.constantFrom("config", "port", "tracing", "shell", "environment"),
      leaf: fc.constantFrom("a", "b"),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const m = mesh(new Set());
        for (const o of ops) {
          const key = o.bucket === "needs" ? `${o.node}.mod.${o.name}.${o.leaf}` : `${o.node}.${o.name}.${o.leaf}`;
          if (o.del) m.del(o.bucket, key);
          else m.put(o.bucket, key);
        }
        const kinds = new Map<string, number>();
        for (const k of m.stores.needs.entryKeys()) kinds.set(k.split(".")[2] as string, (kinds.get(k.split(".")[2] as string) ?? 0) + 1);
        const cols = new Map<string, number>();
        for (const k of m.stores.collect.entryKeys()) cols.set(k.split(".")[1] as string, (cols.get(k.split(".")[1] as string) ?? 0) + 1);
        assert.deepEqual(new Map(m.overview.kinds().map((k) => [k.kind, k.needs])), kinds);
        assert.deepEqual(new Map(m.overview.collections().map((c) => [c.collection, c.items])), cols);
      }),
    );
  });
});
