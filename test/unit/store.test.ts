import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { ProjectionStore } from "../../src/projections/store/store.js";
import { appliedSpec, collectSpec, needsSpec, registrySpec, specFor } from "../../src/projections/bucket-specs.js";
import { BUCKETS } from "mesh-provisioner-client/keys";
import { KNOWN_KINDS } from "../../src/reconcile/registry.js";
import fc from "fast-check";

const enc = new TextEncoder();
const b = (s: string): Uint8Array => enc.encode(s);
const json = (v: unknown): Uint8Array => enc.encode(JSON.stringify(v));

/** The keys a narrowing reads, in order, and what is left to check on each. */
function candidates(s: ProjectionStore, filters: Record<string, string>, after?: string): { keys: string[]; residual: (readonly [string, string])[] } {
  const scan = s.scan(filters, after);
  const keys: string[] = [];
  for (let slot = scan.next(); slot >= 0; slot = scan.next()) keys.push(s.keyOf(slot));
  return { keys, residual: [...scan.residual] };
}

/** The entry of `key` as the verb answers it (its stored JSON text, parsed). */
function answered(store: ProjectionStore, key: string): Record<string, unknown> {
  const e = store.get(key);
  assert.ok(e, `expected an entry for ${key}`);
  assert.equal(e.bytes, Buffer.byteLength(e.json), "bytes is the UTF-8 size of json");
  return JSON.parse(e.json) as Record<string, unknown>;
}

describe("apply: PUT, DEL, PURGE", () => {
  test("a PUT adds the entry with its fields, revision and decoded value", () => {
    const s = new ProjectionStore(needsSpec);
    const c = s.apply("PUT", "n1.web.config.port", 3, json({ default: 8080 }));
    assert.ok(c);
    assert.equal(c.op, "put");
    assert.equal(c.key, "n1.web.config.port");
    assert.equal(c.revision, 3);
    assert.equal(c.newlyOutOfShape, false);
    assert.equal(c.outOfShape, undefined);
    assert.equal(c.entry?.key, "n1.web.config.port");
    assert.deepEqual(c.entry?.fields, { node: "n1", module: "web", kind: "config", name: "port" });
    assert.equal(s.revision, 3);
    assert.equal(s.size, 1);
    assert.deepEqual(answered(s, "n1.web.config.port"), {
      key: "n1.web.config.port",
      node: "n1",
      module: "web",
      kind: "config",
      name: "port",
      value: { default: 8080 },
      revision: 3,
    });
  });

  test("a second PUT of the same key replaces the value and revision without duplicating the key", () => {
    const s = new ProjectionStore(appliedSpec);
    s.apply("PUT", "n1.web", 1, json({ v: 1 }));
    s.apply("PUT", "n1.web", 2, json({ v: 2 }));
    assert.equal(s.size, 1);
    assert.deepEqual(s.entryKeys(), ["n1.web"]);
    assert.deepEqual(answered(s, "n1.web"), { key: "n1.web", node: "n1", module: "web", value: { v: 2 }, revision: 2 });
    assert.deepEqual([...candidates(s, { node: "n1" }).keys], ["n1.web"]);
  });

  for (const op of ["DEL", "PURGE"] as const) {
    test(`a ${op} removes the entry from the store, key order and indexes`, () => {
      const s = new ProjectionStore(needsSpec);
      s.apply("PUT", "n1.web.config.port", 1, json(1));
      s.apply("PUT", "n1.web.config.host", 2, json(2));
      const c = s.apply(op, "n1.web.config.port", 3, new Uint8Array());
      assert.deepEqual(c, { op: "delete", key: "n1.web.config.port", revision: 3, newlyOutOfShape: false });
      assert.equal(s.get("n1.web.config.port"), undefined);
      assert.equal(s.size, 1);
      assert.equal(s.revision, 3);
      assert.deepEqual(s.entryKeys(), ["n1.web.config.host"]);
      assert.deepEqual([...candidates(s, { node: "n1" }).keys], ["n1.web.config.host"]);
      assert.deepEqual([...candidates(s, { node: "n1", module: "web" }).keys], ["n1.web.config.host"]);
    });
  }

  test("deleting the last key of an index value leaves that narrowing empty", () => {
    const s = new ProjectionStore(needsSpec);
    s.apply("PUT", "n1.web.config.port", 1, json(1));
    s.apply("DEL", "n1.web.config.port", 2, new Uint8Array());
    assert.deepEqual([...candidates(s, { node: "n1" }).keys], []);
    assert.deepEqual([...candidates(s, { node: "n1", module: "web" }).keys], []);
    assert.deepEqual(s.entryKeys(), []);
  });

  test("a DEL of a key never seen still advances the revision and reports a delete", () => {
    const s = new ProjectionStore(appliedSpec);
    const c = s.apply("DEL", "n9.x", 5, new Uint8Array());
    assert.equal(c?.op, "delete");
    assert.equal(s.revision, 5);
    assert.equal(s.size, 0);
  });

  test("a DEL of an out-of-shape key removes it from the out-of-shape list", () => {
    const s = new ProjectionStore(needsSpec);
    s.apply("PUT", "n1.web.config", 1, json(1));
    assert.equal(s.outOfShapeCount, 1);
    s.apply("PURGE", "n1.web.config", 2, new Uint8Array());
    assert.equal(s.outOfShapeCount, 0);
    assert.equal(s.getOutOfShape("n1.web.config"), undefined);
    assert.deepEqual(s.outOfShapeKeys(), []);
  });
});

describe("revisions", () => {
  test("an entry at or below the applied revision is ignored", () => {
    const s = new ProjectionStore(appliedSpec);
    s.apply("PUT", "n1.web", 5, json({ v: 5 }));
    assert.equal(s.apply("PUT", "n1.web", 5, json({ v: "same rev" })), null);
    assert.equal(s.apply("PUT", "n1.web", 4, json({ v: "older" })), null);
    assert.equal(s.apply("DEL", "n1.web", 3, new Uint8Array()), null);
    assert.equal(s.apply("PUT", "n2.web", 1, json({})), null);
    assert.equal(s.revision, 5);
    assert.equal(s.size, 1);
    assert.deepEqual((answered(s, "n1.web") as { value: unknown }).value, { v: 5 });
  });

  test("markSynced raises the revision to the stream's last sequence, never lowers it", () => {
    const s = new ProjectionStore(appliedSpec);
    s.apply("PUT", "n1.web", 5, json({}));
    assert.equal(s.synced, false);
    s.markSynced(12);
    assert.equal(s.revision, 12);
    assert.equal(s.synced, true);
    // an entry at or below the synced revision is ignored from then on
    assert.equal(s.apply("PUT", "n1.other", 12, json({})), null);
    s.markSynced(3);
    assert.equal(s.revision, 12);
    assert.ok(s.apply("PUT", "n1.other", 13, json({})));
    assert.equal(s.revision, 13);
  });

  test("markSynced on an empty bucket sets revision 0 and synced", () => {
    const s = new ProjectionStore(needsSpec);
    s.markSynced(0);
    assert.equal(s.revision, 0);
    assert.equal(s.synced, true);
  });
});

describe("out-of-shape keys", () => {
  test("an out-of-shape key is recorded with its reason and readable tokens, not as an entry", () => {
    const s = new ProjectionStore(needsSpec);
    const c = s.apply("PUT", "n1.web.config", 4, json({}));
    assert.ok(c);
    assert.equal(c.op, "put");
    assert.equal(c.entry, undefined);
    assert.equal(c.newlyOutOfShape, true);
    const o = s.getOutOfShape("n1.web.config");
    assert.ok(o);
    assert.equal(c.outOfShape, o);
    assert.equal(o.reason, "needs keys have 4 tokens: <node>.<module>.<kind>.<name>");
    assert.equal(o.revision, 4);
    assert.deepEqual(o.readable, { node: "n1", module: "web", kind: "config" });
    assert.deepEqual(JSON.parse(o.json), { key: "n1.web.config", reason: o.reason });
    assert.equal(o.bytes, Buffer.byteLength(o.json));
    assert.equal(s.size, 0);
    assert.equal(s.outOfShapeCount, 1);
    assert.deepEqual(s.entryKeys(), []);
    assert.deepEqual(s.outOfShapeKeys(), ["n1.web.config"]);
  });

  test("newlyOutOfShape is true only the first time a key is seen with a reason", () => {
    const s = new ProjectionStore(registrySpec(KNOWN_KINDS));
    const first = s.apply("PUT", "config", 1, b("not json"));
    assert.equal(first?.newlyOutOfShape, true);
    const again = s.apply("PUT", "config", 2, b("still not json"));
    assert.equal(again?.newlyOutOfShape, false, "the same reason again is not new");
    assert.equal(s.getOutOfShape("config")?.revision, 2, "the record follows the latest revision");
    const other = s.apply("PUT", "config", 3, json([1, 2]));
    assert.equal(other?.newlyOutOfShape, true, "a different reason is new");
    assert.match(s.getOutOfShape("config")?.reason ?? "", /not a JSON object/);
    const same = s.apply("PUT", "config", 4, json("a string"));
    assert.equal(same?.newlyOutOfShape, false);
    assert.equal(s.outOfShapeCount, 1);
    assert.deepEqual(s.outOfShapeKeys(), ["config"]);
  });

  test("a registry entry's kind is its key in the bucket, whatever kind the stored value names", () => {
    const s = new ProjectionStore(registrySpec(KNOWN_KINDS));
    s.apply("PUT", "config", 1, json({ kind: "secret", module: "x" }));
    const e = JSON.parse(s.get("config")?.json ?? "null");
    assert.equal(e.kind, "config");
    assert.deepEqual(e.value, { kind: "secret", module: "x" }, "the value stays as stored, for the reconciler to repair");
  });

  test("a key moves from out of shape to in shape and back", () => {
    const s = new ProjectionStore(registrySpec(KNOWN_KINDS));
    s.apply("PUT", "secret", 1, b("{broken"));
    assert.equal(s.outOfShapeCount, 1);
    assert.equal(s.size, 0);

    const fixed = s.apply("PUT", "secret", 2, json({ kind: "secret", module: "mesh-vault", verb: "mesh-vault.secret" }));
    assert.ok(fixed?.entry);
    assert.equal(fixed.outOfShape, undefined);
    assert.equal(s.outOfShapeCount, 0);
    assert.deepEqual(s.outOfShapeKeys(), []);
    assert.equal(s.size, 1);
    assert.deepEqual(s.entryKeys(), ["secret"]);

    const broken = s.apply("PUT", "secret", 3, json(null));
    assert.ok(broken?.outOfShape);
    assert.equal(broken.newlyOutOfShape, true);
    assert.equal(s.size, 0);
    assert.equal(s.get("secret"), undefined);
    assert.deepEqual(s.entryKeys(), []);
    assert.deepEqual(s.outOfShapeKeys(), ["secret"]);
  });

  test("out-of-shape keys are kept in key order, also after a bulk load", () => {
    const s = new ProjectionStore(appliedSpec);
    s.apply("PUT", "z", 1, json(1));
    s.apply("PUT", "a.b.c", 2, json(1));
    s.apply("PUT", "m", 3, json(1));
    s.markSynced(3);
    s.apply("PUT", "b", 4, json(1));
    assert.deepEqual(s.outOfShapeKeys(), ["a.b.c", "b", "m", "z"]);
  });

  test("each bucket's shape gives its own reason", () => {
    const cases: [ProjectionStore, string, RegExp][] = [
      [new ProjectionStore(needsSpec), "n1.web.config", /needs keys have 4 tokens/],
      [new ProjectionStore(appliedSpec), "n1.web.extra", /applied keys have 2 tokens/],
      [new ProjectionStore(collectSpec), "n1.shell", /collect keys have 3 tokens/],
      [new ProjectionStore(collectSpec), "n1.shell=3azsh.c1", /lower-case hex/],
      [new ProjectionStore(collectSpec), "n1.=61.c1", /needs no escape/],
      [new ProjectionStore(registrySpec(KNOWN_KINDS)), "nonsense", /not a known kind/],
      [new ProjectionStore(registrySpec(KNOWN_KINDS)), "a.b", /registry keys have 1 token/],
    ];
    for (const [s, key, reason] of cases) {
      s.apply("PUT", key, 1, json({}));
      assert.equal(s.size, 0, key);
      assert.match(s.getOutOfShape(key)?.reason ?? "(none)", reason, key);
    }
  });
});

describe("values", () => {
  test("a JSON value is embedded as stored; a non-JSON value as its string", () => {
    const s = new ProjectionStore(appliedSpec);
    s.apply("PUT", "n1.a", 1, b('{"z":1,  "a":[1,2]}'));
    s.apply("PUT", "n1.b", 2, b("plain text"));
    s.apply("PUT", "n1.c", 3, b("42"));
    s.apply("PUT", "n1.d", 4, b('"quoted"'));
    s.apply("PUT", "n1.e", 5, b(""));
    s.apply("PUT", "n1.f", 6, b("{not: json}"));
    s.apply("PUT", "n1.g", 7, b("null"));
    s.apply("PUT", "n1.h", 8, b('caf\u00e9 "q" \\ \n'));
    assert.deepEqual(answered(s, "n1.a").value, { z: 1, a: [1, 2] });
    assert.ok(s.get("n1.a")?.json.includes('{"z":1,  "a":[1,2]}'), "the stored JSON text is embedded unchanged");
    assert.equal(answered(s, "n1.b").value, "plain text");
    assert.equal(answered(s, "n1.c").value, 42);
    assert.equal(answered(s, "n1.d").value, "quoted");
    assert.equal(answered(s, "n1.e").value, "");
    assert.equal(answered(s, "n1.f").value, "{not: json}");
    assert.equal(answered(s, "n1.g").value, null);
    assert.equal(answered(s, "n1.h").value, 'caf\u00e9 "q" \\ \n');
    assert.equal(s.get("n1.h")?.bytes, Buffer.byteLength(s.get("n1.h")?.json ?? ""));
  });

  test("collect entries carry the decoded collection name", () => {
    const s = new ProjectionStore(collectSpec);
    s.apply("PUT", "n1.shell=3Azsh.c1", 1, json({ path: "/bin/zsh" }));
    s.apply("PUT", "n1.caf=C3=A9.c2", 2, b("x"));
    s.apply("PUT", "n1.a=2Eb.c3", 3, b("y"));
    assert.deepEqual(answered(s, "n1.shell=3Azsh.c1"), {
      key: "n1.shell=3Azsh.c1",
      node: "n1",
      collection: "shell:zsh",
      contributor: "c1",
      value: { path: "/bin/zsh" },
      revision: 1,
    });
    assert.equal(answered(s, "n1.caf=C3=A9.c2").collection, "caf\u00e9");
    assert.equal(answered(s, "n1.a=2Eb.c3").collection, "a.b");
    assert.deepEqual(s.get("n1.shell=3Azsh.c1")?.fields, { node: "n1", collection: "shell:zsh", contributor: "c1" });
  });

  test("a registry entry is the registry value itself, with value and revision beside it", () => {
    const s = new ProjectionStore(registrySpec(KNOWN_KINDS));
    const v = { kind: "shell", module: "mesh-provisioner", bucket: BUCKETS.collect, key: "<node>.<collection>.<contributor>", collection: "shell" };
    const c = s.apply("PUT", "shell", 7, json(v));
    assert.deepEqual(c?.entry?.value, v);
    assert.deepEqual(c?.entry?.fields, { kind: "shell" });
    assert.deepEqual(answered(s, "shell"), { ...v, value: v, revision: 7 });
  });

  test("registry values that are not JSON objects are out of shape", () => {
    const s = new ProjectionStore(registrySpec(KNOWN_KINDS));
    const bad: [string, Uint8Array, RegExp][] = [
      ["config", b("nope"), /is not JSON/],
      ["secret", json([1]), /not a JSON object/],
      ["bound", json(null), /not a JSON object/],
      ["consumers", json("text"), /not a JSON object/],
      ["port", json(3), /not a JSON object/],
      ["dir", json(true), /not a JSON object/],
      ["seat", b(""), /is not JSON/],
    ];
    let rev = 0;
    for (const [key, value, reason] of bad) {
      const c = s.apply("PUT", key, ++rev, value);
      assert.ok(c?.outOfShape, key);
      assert.match(c.outOfShape.reason, reason, key);
      assert.deepEqual(c.outOfShape.readable, { kind: key });
    }
    assert.equal(s.size, 0);
    assert.equal(s.outOfShapeCount, bad.length);
  });

  test("registrySpec takes its known kinds as an argument", () => {
    const s = new ProjectionStore(registrySpec(new Set(["only"])));
    s.apply("PUT", "only", 1, json({ kind: "only", module: "m" }));
    s.apply("PUT", "config", 2, json({ kind: "config", module: "m" }));
    assert.equal(s.size, 1);
    assert.match(s.getOutOfShape("config")?.reason ?? "", /not a known kind \(known: only\)/);
  });
});

describe("indexes and candidates", () => {
  function needsStore(): ProjectionStore {
    const s = new ProjectionStore(needsSpec);
    const keys = ["n2.web.config.port", "n1.web.config.port", "n1.db.secret.pw", "n1.web.bound.url", "n2.db.config.x", "n3.web.config.y"];
    keys.forEach((k, i) => s.apply("PUT", k, i + 1, json(i)));
    s.markSynced(keys.length);
    return s;
  }

  test("no narrowing scans every key in order", () => {
    const s = needsStore();
    const c = candidates(s, {});
    assert.deepEqual([...c.keys], s.entryKeys());
    assert.deepEqual([...c.keys], [...c.keys].sort());
    assert.equal(c.keys.length, 6);
    assert.deepEqual(c.residual, []);
  });

  test("node reads the node's range of the key order, with nothing left to check", () => {
    const c = candidates(needsStore(), { node: "n1" });
    assert.deepEqual([...c.keys], ["n1.db.secret.pw", "n1.web.bound.url", "n1.web.config.port"]);
    assert.deepEqual(c.residual, []);
  });

  test("node+module reads the narrower range of the key order", () => {
    const c = candidates(needsStore(), { node: "n1", module: "web" });
    assert.deepEqual([...c.keys], ["n1.web.bound.url", "n1.web.config.port"]);
    assert.deepEqual(c.residual, []);
  });

  test("module alone has no index: every key, with module residual", () => {
    const s = needsStore();
    const c = candidates(s, { module: "db" });
    assert.equal(c.keys.length, 6);
    assert.deepEqual(c.residual, [["module", "db"]]);
  });

  test("a node or module with no keys yields no candidates", () => {
    const s = needsStore();
    assert.deepEqual([...candidates(s, { node: "n9" }).keys], []);
    assert.deepEqual([...candidates(s, { node: "n1", module: "nope" }).keys], []);
  });

  test("applied: node reads a range, node+module the one key", () => {
    const s = new ProjectionStore(appliedSpec);
    s.apply("PUT", "n1.web", 1, json(1));
    s.apply("PUT", "n1.db", 2, json(1));
    s.apply("PUT", "n2.web", 3, json(1));
    s.apply("PUT", "n1.webx", 4, json(1));
    assert.deepEqual(candidates(s, { node: "n1" }), { keys: ["n1.db", "n1.web", "n1.webx"], residual: [] });
    assert.deepEqual(candidates(s, { node: "n1", module: "web" }), { keys: ["n1.web"], residual: [] });
    assert.deepEqual(candidates(s, { node: "n1", module: "web" }, "n1.web"), { keys: [], residual: [] }, "after the key itself: nothing");
    assert.deepEqual(candidates(s, { node: "n1", module: "nope" }), { keys: [], residual: [] });
    assert.deepEqual(candidates(s, { module: "web" }), { keys: ["n1.db", "n1.web", "n1.webx", "n2.web"], residual: [["module", "web"]] });
  });

  test("collect: leading tokens read a range; collection or contributor alone read their index", () => {
    const s = new ProjectionStore(collectSpec);
    let rev = 0;
    for (let i = 0; i < 10; i++) s.apply("PUT", `n1.shell.c${i}`, ++rev, json(i));
    s.apply("PUT", "n1.env.c1", ++rev, json(1));
    s.apply("PUT", "n2.env.c1", ++rev, json(1));
    s.markSynced(rev);
    assert.deepEqual(candidates(s, { node: "n1", collection: "env" }), { keys: ["n1.env.c1"], residual: [] });
    assert.deepEqual(candidates(s, { node: "n1", collection: "env", contributor: "c1" }), { keys: ["n1.env.c1"], residual: [] });
    // node is a range; contributor is checked on each of its keys
    const byContrib = candidates(s, { node: "n1", contributor: "c3" });
    assert.equal(byContrib.keys.length, 11);
    assert.deepEqual(byContrib.residual, [["contributor", "c3"]]);
    assert.deepEqual(candidates(s, { collection: "env" }), { keys: ["n1.env.c1", "n2.env.c1"], residual: [] });
    assert.deepEqual(candidates(s, { contributor: "c3" }), { keys: ["n1.shell.c3"], residual: [] });
    assert.deepEqual(candidates(s, { collection: "env", contributor: "c1" }), { keys: ["n1.env.c1", "n2.env.c1"], residual: [["contributor", "c1"]] });
  });

  test("collect: the collection index is keyed by the decoded name", () => {
    const s = new ProjectionStore(collectSpec);
    s.apply("PUT", "n1.shell=3Azsh.c1", 1, json(1));
    s.apply("PUT", "n2.shell=3Azsh.c2", 2, json(1));
    s.apply("PUT", "n2.shell.c2", 3, json(1));
    assert.deepEqual([...candidates(s, { collection: "shell:zsh" }).keys], ["n1.shell=3Azsh.c1", "n2.shell=3Azsh.c2"]);
    assert.deepEqual([...candidates(s, { collection: "shell=3Azsh" }).keys], []);
  });

  test("index key order holds for inserts after the sync", () => {
    const s = needsStore();
    s.apply("PUT", "n1.aaa.config.z", 10, json(1));
    s.apply("PUT", "n1.zzz.config.z", 11, json(1));
    assert.deepEqual(
      [...candidates(s, { node: "n1" }).keys],
      ["n1.aaa.config.z", "n1.db.secret.pw", "n1.web.bound.url", "n1.web.config.port", "n1.zzz.config.z"],
    );
  });
});

test("specFor returns each bucket's spec with its bucket name", () => {
  assert.equal(specFor("needs", KNOWN_KINDS), needsSpec);
  assert.equal(specFor("applied", KNOWN_KINDS), appliedSpec);
  assert.equal(specFor("collect", KNOWN_KINDS), collectSpec);
  assert.equal(specFor("registry", KNOWN_KINDS).what, "registry");
  assert.deepEqual(
    (["registry", "needs", "applied", "collect"] as const).map((w) => specFor(w, KNOWN_KINDS).bucket),
    ["mesh-provisioner_registry", "mesh-provisioner_needs", "mesh-provisioner_applied", "mesh-provisioner_collect"],
  );
  // the default registry spec knows every compiled kind
  const s = new ProjectionStore(specFor("registry", KNOWN_KINDS));
  let rev = 0;
  for (const k of KNOWN_KINDS) s.apply("PUT", k, ++rev, json({ kind: k }));
  assert.equal(s.size, KNOWN_KINDS.size);
});

describe("kinds: which kinds the needs name", () => {
  test("a kind is listed while at least one entry names it, and only then", () => {
    const s = new ProjectionStore(needsSpec);
    s.apply("PUT", "n1.web.config.port", 1, json(1));
    s.apply("PUT", "n2.web.config.port", 2, json(1));
    s.apply("PUT", "n1.web.secret.key", 3, json(1));
    assert.deepEqual([...s.kinds()].sort(), ["config", "secret"]);
    s.apply("PUT", "n1.web.config.port", 4, json(2)); // a new value, still one entry
    s.apply("DEL", "n1.web.config.port", 5, b(""));
    assert.deepEqual([...s.kinds()].sort(), ["config", "secret"], "n2's config is still there");
    s.apply("PURGE", "n2.web.config.port", 6, b(""));
    s.apply("DEL", "n1.web.secret.key", 7, b(""));
    assert.deepEqual([...s.kinds()], []);
  });

  test("buckets whose keys name no kind list none", () => {
    const s = new ProjectionStore(appliedSpec);
    s.apply("PUT", "n1.web", 1, json({}));
    assert.deepEqual([...s.kinds()], []);
  });
});

describe("a node's range ends where its count of entries says", () => {
  // Node names that are prefixes of one another, and keys spread over many leaves.
  const NODES = ["n1", "n10", "n1_", "n2", "a", "z9"];
  const keyFor = (node: string, i: number): string => `${node}.m${i % 7}.config.k${i}`;

  test("after any mix of puts, deletes and out-of-shape keys, every node's range is exactly its entries", () => {
    fc.assert(
      fc.property(
        // Enough ops on few enough keys that deletes hit keys put before, and a node's range spans leaves (512 items).
        fc.array(fc.record({ node: fc.constantFrom(...NODES), i: fc.integer({ min: 0, max: 250 }), op: fc.constantFrom("put", "put", "put", "del", "oos") }), {
          minLength: 300,
          maxLength: 2000,
        }),
        (ops) => {
          const s = new ProjectionStore(needsSpec);
          const live = new Set<string>();
          let rev = 0;
          for (const { node, i, op } of ops) {
            const key = keyFor(node, i);
            if (op === "put") {
              s.apply("PUT", key, ++rev, json({ default: i }));
              live.add(key);
            } else if (op === "del") {
              s.apply("DEL", key, ++rev, new Uint8Array());
              live.delete(key);
            }
            // A key of the node's out of shape (two tokens): never in its range, and no count of it.
            else s.apply("PUT", `${node}.bad${i}`, ++rev, json(i));
          }
          for (const node of [...NODES, "n", "n3"]) {
            const expected = [...live].filter((k) => k.startsWith(`${node}.`)).sort();
            assert.deepEqual(candidates(s, { node }).keys, expected, `node ${node}`);
            // From an `after` before the range the count still applies; inside it, the end is searched for.
            assert.deepEqual(candidates(s, { node }, "0").keys, expected, `node ${node} after "0"`);
            const mid = expected[Math.floor(expected.length / 2)];
            if (mid !== undefined)
              assert.deepEqual(
                candidates(s, { node }, mid).keys,
                expected.filter((k) => k > mid),
                `node ${node} after ${mid}`,
              );
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
