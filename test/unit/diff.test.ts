import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { diffRegistry, type Observed } from "../../src/reconcile/diff.js";
import { KNOWN_KINDS, REGISTRY_TABLE, desiredRegistry, type RegistryValue } from "../../src/reconcile/registry.js";

const cfg: RegistryValue = { kind: "config", module: "mesh-config", bucket: "mesh-config_values", key: "<node>.<module>.<name>" };
const sec: RegistryValue = { kind: "secret", module: "mesh-vault", verb: "mesh-vault.secret" };

const desired = (...vs: RegistryValue[]): Map<string, RegistryValue> => new Map(vs.map((v) => [v.kind, v]));
const observed = (entries: [string, number, unknown][]): Map<string, Observed> => new Map(entries.map(([k, revision, value]) => [k, { revision, value }]));

describe("diffRegistry", () => {
  test("an empty bucket gets a create for every kind, in kind order", () => {
    const plan = diffRegistry(desired(sec, cfg), new Map());
    assert.deepEqual(plan.operations, [
      { type: "create", kind: "config", value: cfg },
      { type: "create", kind: "secret", value: sec },
    ]);
    assert.deepEqual(plan.unchanged, []);
  });

  test("a value equal as parsed JSON is unchanged, even with another key order", () => {
    const reordered = JSON.parse('{"key":"<node>.<module>.<name>","bucket":"mesh-config_values","module":"mesh-config","kind":"config"}');
    const plan = diffRegistry(
      desired(cfg, sec),
      observed([
        ["config", 4, reordered],
        ["secret", 5, { ...sec }],
      ]),
    );
    assert.deepEqual(plan.operations, []);
    assert.deepEqual([...plan.unchanged].sort(), ["config", "secret"]);
  });

  test("a desired value with an undefined field equals the stored JSON without it", () => {
    const withUndefined: RegistryValue = { ...sec, bucket: undefined };
    const plan = diffRegistry(desired(withUndefined), observed([["secret", 1, { ...sec }]]));
    assert.deepEqual(plan.operations, []);
    assert.deepEqual(plan.unchanged, ["secret"]);
  });

  test("a different value is updated, carrying the observed revision", () => {
    const plan = diffRegistry(desired(cfg), observed([["config", 17, { ...cfg, module: "someone-else" }]]));
    assert.deepEqual(plan.operations, [{ type: "update", kind: "config", value: cfg, revision: 17 }]);
    assert.deepEqual(plan.unchanged, []);
  });

  test("an extra field or a missing field is a difference", () => {
    const extra = diffRegistry(desired(sec), observed([["secret", 2, { ...sec, bucket: "x" }]]));
    assert.deepEqual(extra.operations, [{ type: "update", kind: "secret", value: sec, revision: 2 }]);
    const missing = diffRegistry(desired(cfg), observed([["config", 3, { kind: "config", module: "mesh-config" }]]));
    assert.deepEqual(missing.operations, [{ type: "update", kind: "config", value: cfg, revision: 3 }]);
  });

  test("an out-of-shape key of a desired kind (value undefined) gets an update", () => {
    const plan = diffRegistry(desired(cfg), observed([["config", 9, undefined]]));
    assert.deepEqual(plan.operations, [{ type: "update", kind: "config", value: cfg, revision: 9 }]);
  });

  test("a kind not in the table is deleted at its observed revision, out of shape or not", () => {
    const plan = diffRegistry(
      desired(cfg),
      observed([
        ["config", 1, { ...cfg }],
        ["retired", 2, { kind: "retired", module: "old" }],
        ["garbage", 3, undefined],
      ]),
    );
    assert.deepEqual(plan.operations, [
      { type: "delete", kind: "garbage", revision: 3 },
      { type: "delete", kind: "retired", revision: 2 },
    ]);
    assert.deepEqual(plan.unchanged, ["config"]);
  });

  test("creates, updates and deletes come together in one plan", () => {
    const plan = diffRegistry(
      desired(cfg, sec),
      observed([
        ["secret", 4, { kind: "secret" }],
        ["old", 5, {}],
      ]),
    );
    assert.deepEqual(plan.operations, [
      { type: "create", kind: "config", value: cfg },
      { type: "update", kind: "secret", value: sec, revision: 4 },
      { type: "delete", kind: "old", revision: 5 },
    ]);
  });

  test("the compiled table against a bucket holding exactly it plans nothing", () => {
    const want = desiredRegistry();
    const held = new Map<string, Observed>([...want].map(([k, v], i) => [k, { revision: i + 1, value: JSON.parse(JSON.stringify(v)) }]));
    const plan = diffRegistry(want, held);
    assert.deepEqual(plan.operations, []);
    assert.equal(plan.unchanged.length, 13);
  });
});

describe("the compiled registry table", () => {
  const KINDS = ["config", "secret", "bound", "consumers", "collected", "shell", "environment", "contribution", "dir", "access", "port", "seat", "machine"];

  test("has exactly the 13 kinds of the contract, each once", () => {
    assert.deepEqual([...REGISTRY_TABLE.map((v) => v.kind)].sort(), [...KINDS].sort());
    assert.equal(REGISTRY_TABLE.length, 13);
    assert.deepEqual([...KNOWN_KINDS].sort(), [...KINDS].sort());
    assert.equal(desiredRegistry().size, 13);
  });

  test("every value names its module and either bucket+key or a verb, never both", () => {
    for (const v of REGISTRY_TABLE) {
      assert.equal(typeof v.module, "string", v.kind);
      assert.ok(v.module.length > 0, v.kind);
      const hasBucket = typeof v.bucket === "string" && v.bucket.length > 0;
      const hasKey = typeof v.key === "string" && v.key.length > 0;
      const hasVerb = typeof v.verb === "string" && v.verb.length > 0;
      assert.equal(hasBucket, hasKey, `${v.kind}: bucket and key go together`);
      assert.ok(hasBucket !== hasVerb, `${v.kind}: exactly one of bucket+key or verb`);
    }
  });

  test("secret and consumers are answered by a verb only", () => {
    for (const kind of ["secret", "consumers"]) {
      const v = REGISTRY_TABLE.find((x) => x.kind === kind);
      assert.ok(v, kind);
      assert.equal(v.bucket, undefined, kind);
      assert.equal(v.key, undefined, kind);
      assert.ok(v.verb && v.verb.length > 0, kind);
    }
  });

  test("collection kinds name their collection; collected names none", () => {
    for (const kind of ["shell", "environment", "contribution"]) {
      const v = REGISTRY_TABLE.find((x) => x.kind === kind);
      assert.equal(v?.collection, kind);
      assert.equal(v?.bucket, "mesh-provisioner_collect");
      assert.equal(v?.key, "<node>.<collection>.<contributor>");
      assert.equal(v?.module, "mesh-provisioner");
    }
    const collected = REGISTRY_TABLE.find((x) => x.kind === "collected");
    assert.equal(collected?.bucket, "mesh-provisioner_collect");
    assert.equal(collected !== undefined && "collection" in collected, false);
    for (const v of REGISTRY_TABLE) {
      if (!["shell", "environment", "contribution"].includes(v.kind)) assert.equal(v.collection, undefined, v.kind);
    }
  });

  test("bound is the provider's own bucket; placement kinds are the controller's assignments", () => {
    assert.deepEqual(
      REGISTRY_TABLE.find((x) => x.kind === "bound"),
      { kind: "bound", module: "<provider-module>", bucket: "<provider-module>_bound", key: "<node>.<module>.<provision>[.<local>]" },
    );
    for (const kind of ["dir", "access", "port", "seat", "machine"]) {
      const v = REGISTRY_TABLE.find((x) => x.kind === kind);
      assert.equal(v?.module, "mesh-controller", kind);
      assert.equal(v?.bucket, "mesh-controller_assignments", kind);
      assert.equal(v?.verb, undefined, kind);
    }
  });

  test("every kind is a plain token, so it is a valid registry key", () => {
    for (const v of REGISTRY_TABLE) assert.match(v.kind, /^[A-Za-z0-9_/=-]+$/);
  });

  test("every value survives a JSON round trip unchanged (what the bucket stores)", () => {
    for (const v of REGISTRY_TABLE) assert.deepEqual(JSON.parse(JSON.stringify(v)), v);
  });
});
