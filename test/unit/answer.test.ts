import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { buildPage, type AnswerContext, type Page } from "../../src/verb/answer.js";
import type { VerbRequest } from "../../src/verb/request.js";
import { ProjectionStore } from "../../src/projections/store/store.js";
import { appliedSpec, collectSpec, needsSpec, registrySpec } from "../../src/projections/bucket-specs.js";
import { KNOWN_KINDS } from "../../src/reconcile/registry.js";
import type { BucketSpec } from "../../src/projections/store/spec.js";
import type { What } from "mesh-provisioner-client/keys";

const enc = new TextEncoder();
const json = (v: unknown): Uint8Array => enc.encode(JSON.stringify(v));

interface Body {
  what: string;
  revision: number;
  entries: Record<string, unknown>[];
  outOfShape: { key: string; reason: string }[];
  next?: string;
}

/** A store fed (bulk, in the order given) with `puts`, then synced at `lastSeq`. */
function storeOf(spec: BucketSpec, puts: readonly (readonly [string, unknown])[], lastSeq?: number): ProjectionStore {
  const s = new ProjectionStore(spec);
  let rev = 0;
  for (const [key, value] of puts) {
    s.apply("PUT", key, ++rev, value instanceof Uint8Array ? value : json(value));
  }
  s.markSynced(lastSeq ?? rev);
  return s;
}

function ask(
  store: ProjectionStore,
  what: What,
  filters: Record<string, string> = {},
  extra: Partial<VerbRequest> & Partial<Omit<AnswerContext, "store">> = {},
): { page: Page; body: Body } {
  const { isAnswered, maxBytes, ...rest } = extra;
  const req: VerbRequest = { what, filters, ...rest };
  const page = buildPage(req, { store, isAnswered, maxBytes: maxBytes ?? 1024 * 1024 });
  const body = JSON.parse(page.body) as Body;
  assert.equal(page.entries, body.entries.length, "Page.entries counts the body's entries");
  assert.equal(page.outOfShape, body.outOfShape.length, "Page.outOfShape counts the body's out-of-shape keys");
  assert.equal(page.next, body.next, "Page.next is the body's next");
  return { page, body };
}

/** Follow next/after to the end; check each page's size and that it covers its own key range only. */
function walk(
  store: ProjectionStore,
  what: What,
  filters: Record<string, string>,
  opts: { maxBytes: number; limit?: number; isAnswered?: (k: string) => boolean },
): { entries: Record<string, unknown>[]; oos: string[]; pages: Body[] } {
  const entries: Record<string, unknown>[] = [];
  const oos: string[] = [];
  const pages: Body[] = [];
  let after: string | undefined;
  for (let n = 0; ; n++) {
    assert.ok(n < 100_000, "paging does not end");
    const { page, body } = ask(store, what, filters, { ...opts, after });
    assert.ok(Buffer.byteLength(page.body) <= opts.maxBytes, `page ${n} is ${Buffer.byteLength(page.body)} bytes, over ${opts.maxBytes}`);
    if (opts.limit !== undefined) assert.ok(body.entries.length <= opts.limit);
    const keys = [...body.entries.map((e) => e["key"] as string), ...body.outOfShape.map((o) => o.key)];
    for (const k of keys) {
      if (after !== undefined) assert.ok(k > after, `page ${n}: ${k} is not after ${after}`);
      if (body.next !== undefined) assert.ok(k <= body.next, `page ${n}: ${k} is beyond next ${body.next}`);
    }
    entries.push(...body.entries);
    oos.push(...body.outOfShape.map((o) => o.key));
    pages.push(body);
    if (body.next === undefined) break;
    assert.ok(keys.length > 0, `page ${n} is empty but has a next`);
    if (after !== undefined) assert.ok(body.next > after, "next advances");
    after = body.next;
  }
  return { entries, oos, pages };
}

const keysOf = (b: Body): string[] => b.entries.map((e) => e["key"] as string);

describe("buildPage: one page", () => {
  const needs = storeOf(
    needsSpec,
    [
      ["n2.web.config.port", { default: 8080 }],
      ["n1.web.config.port", 1],
      ["n1.db.secret.pw", "x"],
      ["n1.web.mystery.thing", null],
      ["n3.web.config.a", 3],
      ["n1.web.config", "oos: 3 tokens"],
      ["n2.x", "oos: 2 tokens"],
      ["n1.a.b.c.d", "oos: 5 tokens"],
      ["bad*.web.config.x", "oos: bad node"],
      ["n1.db.config", "oos: 3 tokens, db"],
    ],
    40,
  );

  test("entries are sorted by key and the head carries what and the applied revision", () => {
    const { body, page } = ask(needs, "needs");
    assert.equal(body.what, "needs");
    assert.equal(body.revision, 40);
    assert.deepEqual(keysOf(body), ["n1.db.secret.pw", "n1.web.config.port", "n1.web.mystery.thing", "n2.web.config.port", "n3.web.config.a"]);
    assert.equal(page.next, undefined);
    assert.equal("next" in body, false);
    assert.deepEqual(body.entries[3], {
      key: "n2.web.config.port",
      node: "n2",
      module: "web",
      kind: "config",
      name: "port",
      value: { default: 8080 },
      revision: 1,
    });
  });

  test("every out-of-shape key is listed, in key order, with its reason, when nothing is narrowed", () => {
    const { body } = ask(needs, "needs");
    assert.deepEqual(
      body.outOfShape.map((o) => o.key),
      ["bad*.web.config.x", "n1.a.b.c.d", "n1.db.config", "n1.web.config", "n2.x"],
    );
    for (const o of body.outOfShape) assert.ok(o.reason.length > 10, o.key);
    assert.equal(body.outOfShape.find((o) => o.key === "n1.web.config")?.reason, "needs keys have 4 tokens: <node>.<module>.<kind>.<name>");
  });

  test("narrowing by node answers that node's entries and the out-of-shape keys not contradicting it", () => {
    const { body } = ask(needs, "needs", { node: "n1" });
    assert.deepEqual(keysOf(body), ["n1.db.secret.pw", "n1.web.config.port", "n1.web.mystery.thing"]);
    assert.deepEqual(
      body.outOfShape.map((o) => o.key),
      ["bad*.web.config.x", "n1.a.b.c.d", "n1.db.config", "n1.web.config"],
      "n2.x contradicts node n1; bad*'s node is unreadable so it cannot contradict",
    );
  });

  test("narrowing by node and module", () => {
    const { body } = ask(needs, "needs", { node: "n1", module: "web" });
    assert.deepEqual(keysOf(body), ["n1.web.config.port", "n1.web.mystery.thing"]);
    assert.deepEqual(
      body.outOfShape.map((o) => o.key),
      ["bad*.web.config.x", "n1.a.b.c.d", "n1.web.config"],
    );
  });

  test("narrowing by module alone (no index) still filters entries", () => {
    const { body } = ask(needs, "needs", { module: "db" });
    assert.deepEqual(keysOf(body), ["n1.db.secret.pw"]);
    assert.deepEqual(
      body.outOfShape.map((o) => o.key),
      ["n1.a.b.c.d", "n1.db.config"],
    );
  });

  test("a narrowing nothing matches answers no entries, only non-contradicting out-of-shape keys", () => {
    const { body } = ask(needs, "needs", { node: "n9" });
    assert.deepEqual(body.entries, []);
    assert.deepEqual(
      body.outOfShape.map((o) => o.key),
      ["bad*.web.config.x"],
    );
  });

  test("answered:false only for needs whose kind the registry does not answer", () => {
    const { body } = ask(needs, "needs", {}, { isAnswered: (k) => k !== "mystery" });
    for (const e of body.entries) {
      if (e["kind"] === "mystery") assert.equal(e["answered"], false, String(e["key"]));
      else assert.equal("answered" in e, false, String(e["key"]));
    }
    assert.equal(body.entries.filter((e) => e["answered"] === false).length, 1);
    // without isAnswered nothing is marked
    assert.equal(
      ask(needs, "needs").body.entries.some((e) => "answered" in e),
      false,
    );
  });

  test("an entry marked answered:false keeps its value and revision", () => {
    const { body } = ask(needs, "needs", { node: "n1", module: "web" }, { isAnswered: () => false });
    assert.deepEqual(body.entries[1], {
      key: "n1.web.mystery.thing",
      node: "n1",
      module: "web",
      kind: "mystery",
      name: "thing",
      value: null,
      revision: 4,
      answered: false,
    });
  });

  test("applied entries carry node and module; narrowing by node+module", () => {
    const s = storeOf(appliedSpec, [
      ["n1.web", { ok: true }],
      ["n1.db", "text"],
      ["n2.web", 1],
      ["n1", "oos"],
      ["n2", "oos"],
    ]);
    const { body } = ask(s, "applied", { node: "n1", module: "web" });
    assert.deepEqual(body.entries, [{ key: "n1.web", node: "n1", module: "web", value: { ok: true }, revision: 1 }]);
    assert.deepEqual(
      body.outOfShape.map((o) => o.key),
      ["n1"],
    );
    assert.deepEqual(keysOf(ask(s, "applied", { module: "web" }).body), ["n1.web", "n2.web"]);
  });

  test("registry entries are the registry values, sorted by kind", () => {
    const cfg = { kind: "config", module: "mesh-config", bucket: "mesh-config_values", key: "<node>.<module>.<name>" };
    const sec = { kind: "secret", module: "mesh-vault", verb: "mesh-vault.secret" };
    const s = storeOf(registrySpec(KNOWN_KINDS), [
      ["secret", sec],
      ["config", cfg],
      ["bogus", { kind: "bogus" }],
      ["port", "not json"],
    ]);
    const { body } = ask(s, "registry");
    assert.equal(body.what, "registry");
    assert.deepEqual(body.entries, [
      { ...cfg, value: cfg, revision: 2 },
      { ...sec, value: sec, revision: 1 },
    ]);
    assert.deepEqual(
      body.outOfShape.map((o) => o.key),
      ["bogus", "port"],
    );
  });
});

describe("buildPage: collect narrowing", () => {
  const s = storeOf(collectSpec, [
    ["n1.shell=3Azsh.c1", { p: 1 }],
    ["n1.shell.c2", { p: 2 }],
    ["n2.shell=3Azsh.c1", { p: 3 }],
    ["n2.env.c2", "v"],
    ["n1.shell=3azsh.c1", "oos: lower hex, collection unreadable"],
    ["n2.env", "oos: 2 tokens"],
    ["n1.=61.c9", "oos: needless escape, contributor c9"],
    ["n3.shell.c1.extra", "oos: 4 tokens, only node"],
  ]);

  test("collect entries carry node, the decoded collection and contributor", () => {
    const { body } = ask(s, "collect", { collection: "shell:zsh" });
    assert.deepEqual(body.entries, [
      { key: "n1.shell=3Azsh.c1", node: "n1", collection: "shell:zsh", contributor: "c1", value: { p: 1 }, revision: 1 },
      { key: "n2.shell=3Azsh.c1", node: "n2", collection: "shell:zsh", contributor: "c1", value: { p: 3 }, revision: 3 },
    ]);
    assert.deepEqual(
      body.outOfShape.map((o) => o.key),
      ["n1.=61.c9", "n1.shell=3azsh.c1", "n3.shell.c1.extra"],
    );
  });

  test("narrowing by collection name, not by its escaped form", () => {
    assert.deepEqual(keysOf(ask(s, "collect", { collection: "shell" }).body), ["n1.shell.c2"]);
    assert.deepEqual(keysOf(ask(s, "collect", { collection: "shell=3Azsh" }).body), []);
  });

  test("narrowing by collection omits out-of-shape keys whose readable collection differs", () => {
    const env = ask(s, "collect", { collection: "env" }).body;
    assert.deepEqual(keysOf(env), ["n2.env.c2"]);
    assert.ok(env.outOfShape.some((o) => o.key === "n2.env"));
    const shell = ask(s, "collect", { collection: "shell" }).body;
    assert.ok(!shell.outOfShape.some((o) => o.key === "n2.env"));
  });

  test("narrowing by contributor", () => {
    const { body } = ask(s, "collect", { contributor: "c1" });
    assert.deepEqual(keysOf(body), ["n1.shell=3Azsh.c1", "n2.shell=3Azsh.c1"]);
    assert.deepEqual(
      body.outOfShape.map((o) => o.key),
      ["n1.shell=3azsh.c1", "n2.env", "n3.shell.c1.extra"],
      "n1.=61.c9 names contributor c9, so it contradicts c1",
    );
  });

  test("narrowing by node and contributor, and by all three", () => {
    assert.deepEqual(keysOf(ask(s, "collect", { node: "n2", contributor: "c1" }).body), ["n2.shell=3Azsh.c1"]);
    const all = ask(s, "collect", { node: "n1", collection: "shell:zsh", contributor: "c1" }).body;
    assert.deepEqual(keysOf(all), ["n1.shell=3Azsh.c1"]);
    assert.deepEqual(
      all.outOfShape.map((o) => o.key),
      ["n1.shell=3azsh.c1"],
    );
  });
});

describe("buildPage: paging", () => {
  const value1k = (i: number): { i: number; data: string } => ({ i, data: `${i}:`.padEnd(1000, "x") });

  /** ~3000 needs entries with ~1 KB values over 30 nodes, and out-of-shape keys sprinkled among them. */
  function bigNeeds(): { store: ProjectionStore; keys: string[]; oos: string[] } {
    const puts: [string, unknown][] = [];
    const keys: string[] = [];
    const oos: string[] = [];
    for (let n = 0; n < 30; n++) {
      for (let m = 0; m < 10; m++) {
        for (let k = 0; k < 10; k++) {
          const key = `n${String(n).padStart(2, "0")}.mod${m}.${k % 3 === 0 ? "mystery" : "config"}.name${k}`;
          keys.push(key);
          puts.push([key, value1k(keys.length)]);
        }
        if (m % 3 === 0) {
          const bad = `n${String(n).padStart(2, "0")}.mod${m}.config`;
          oos.push(bad);
          puts.push([bad, "oos"]);
        }
      }
    }
    // Feed half before the sync (bulk) in reverse, the rest after it, in place.
    const half = Math.floor(puts.length / 2);
    const s = new ProjectionStore(needsSpec);
    let rev = 0;
    for (const [k, v] of puts.slice(0, half).reverse()) s.apply("PUT", k, ++rev, json(v));
    s.markSynced(rev);
    for (const [k, v] of puts.slice(half)) s.apply("PUT", k, ++rev, json(v));
    return { store: s, keys: keys.sort(), oos: oos.sort() };
  }

  const big = bigNeeds();

  test("a small maxBytes walks every entry exactly once, in order, each page within maxBytes", () => {
    assert.ok(big.keys.length >= 3000);
    const maxBytes = 8 * 1024;
    const r = walk(big.store, "needs", {}, { maxBytes, isAnswered: (k) => k !== "mystery" });
    assert.deepEqual(
      r.entries.map((e) => e["key"]),
      big.keys,
    );
    assert.deepEqual(r.oos, big.oos, "each out-of-shape key exactly once, in order");
    assert.ok(r.pages.length > 300, `expected many pages, got ${r.pages.length}`);
    for (const e of r.entries) {
      assert.equal((e["value"] as { data: string }).data.length, 1000);
      assert.equal(e["answered"], e["kind"] === "mystery" ? false : undefined);
    }
    assert.equal(r.pages.at(-1)?.next, undefined);
  });

  test("paging with a node narrowing and small maxBytes", () => {
    const r = walk(big.store, "needs", { node: "n07" }, { maxBytes: 5000 });
    assert.deepEqual(
      r.entries.map((e) => e["key"]),
      big.keys.filter((k) => k.startsWith("n07.")),
    );
    assert.deepEqual(
      r.oos,
      big.oos.filter((k) => k.startsWith("n07.")),
    );
  });

  test("paging with node+module and a limit", () => {
    const r = walk(big.store, "needs", { node: "n11", module: "mod3" }, { maxBytes: 1024 * 1024, limit: 3 });
    assert.deepEqual(
      r.entries.map((e) => e["key"]),
      big.keys.filter((k) => k.startsWith("n11.mod3.")),
    );
    assert.deepEqual(r.oos, ["n11.mod3.config"]);
    assert.equal(r.pages.length, 4, "10 entries by 3 make 4 pages");
    assert.deepEqual(
      r.pages.map((p) => p.entries.length),
      [3, 3, 3, 1],
    );
  });

  test("paging with limit over everything: limit counts entries only", () => {
    const r = walk(big.store, "needs", {}, { maxBytes: 1024 * 1024, limit: 250 });
    assert.deepEqual(
      r.entries.map((e) => e["key"]),
      big.keys,
    );
    assert.deepEqual(r.oos, big.oos);
    for (const p of r.pages.slice(0, -1)) assert.equal(p.entries.length, 250);
  });

  test("a limit equal to the number of entries answers one page without next", () => {
    const s = storeOf(appliedSpec, [
      ["n1.a", 1],
      ["n1.b", 2],
      ["n1.c", 3],
    ]);
    const { body } = ask(s, "applied", {}, { limit: 3 });
    assert.deepEqual(keysOf(body), ["n1.a", "n1.b", "n1.c"]);
    assert.equal(body.next, undefined);
    const two = ask(s, "applied", {}, { limit: 2 }).body;
    assert.equal(two.next, "n1.b");
    const rest = ask(s, "applied", {}, { limit: 2, after: "n1.b" }).body;
    assert.deepEqual(keysOf(rest), ["n1.c"]);
    assert.equal(rest.next, undefined);
  });

  test("after an absent key continues at the first key greater than it", () => {
    const s = storeOf(appliedSpec, [
      ["n1.a", 1],
      ["n1.c", 2],
      ["n1.e", 3],
      ["n1.d.x", "oos"],
    ]);
    const { body } = ask(s, "applied", {}, { after: "n1.b" });
    assert.deepEqual(keysOf(body), ["n1.c", "n1.e"]);
    assert.deepEqual(
      body.outOfShape.map((o) => o.key),
      ["n1.d.x"],
    );
    assert.deepEqual(ask(s, "applied", {}, { after: "n1.e" }).body, {
      what: "applied",
      revision: 4,
      entries: [],
      outOfShape: [],
    });
  });

  test("an entry alone larger than maxBytes is answered without its value, and paging advances", () => {
    const huge = "h".repeat(6000);
    const s = storeOf(collectSpec, [
      ["n1.c.a", "small"],
      ["n1.c.b", huge],
      ["n1.c.c", huge],
      ["n1.c.d", "small"],
      ["n1.c.e", huge],
      ["n1.c", "oos"],
    ]);
    const maxBytes = 2000;
    const r = walk(s, "collect", {}, { maxBytes });
    assert.deepEqual(
      r.entries.map((e) => e["key"]),
      ["n1.c.a", "n1.c.b", "n1.c.c", "n1.c.d", "n1.c.e"],
    );
    assert.deepEqual(r.oos, ["n1.c"]);
    const byKey = new Map(r.entries.map((e) => [e["key"] as string, e]));
    for (const k of ["n1.c.b", "n1.c.c", "n1.c.e"]) {
      const e = byKey.get(k) as Record<string, unknown>;
      assert.equal(e["valueTooLarge"], true, k);
      assert.equal("value" in e, false, k);
      assert.equal(e["node"], "n1");
      assert.equal(e["collection"], "c");
      assert.equal(typeof e["revision"], "number");
      assert.equal(e["valueBytes"], Buffer.byteLength(JSON.stringify(huge)), "the size of the value left out, as JSON");
    }
    for (const k of ["n1.c.a", "n1.c.d"]) {
      assert.equal(byKey.get(k)?.["value"], "small", k);
      assert.equal(byKey.get(k)?.["valueTooLarge"], undefined, k);
    }
  });

  test("a page that holds a too-large entry and small ones after it stays within maxBytes", () => {
    const puts: [string, unknown][] = [["n1.a000", "h".repeat(5000)]];
    for (let i = 1; i < 60; i++) puts.push([`n1.a${String(i).padStart(3, "0")}`, "s".repeat(40)]);
    const s = storeOf(appliedSpec, puts);
    for (const maxBytes of [700, 900, 1200]) {
      const r = walk(s, "applied", {}, { maxBytes });
      assert.equal(r.entries.length, 60, `maxBytes ${maxBytes}`);
      assert.equal(r.entries[0]?.["valueTooLarge"], true);
      assert.ok(r.entries.slice(1).every((e) => e["value"] === "s".repeat(40)));
    }
  });

  test("a too-large entry that is the only entry ends the answer without next", () => {
    const s = storeOf(appliedSpec, [["n1.big", "z".repeat(5000)]]);
    const { page, body } = ask(s, "applied", {}, { maxBytes: 1000 });
    assert.ok(Buffer.byteLength(page.body) <= 1000);
    assert.equal(body.entries[0]?.["valueTooLarge"], true);
    assert.equal(body.next, undefined);
  });

  test("multi-byte values are measured in bytes, not characters", () => {
    const puts: [string, unknown][] = [];
    for (let i = 0; i < 200; i++) puts.push([`n1.m${String(i).padStart(3, "0")}`, "\u20ac".repeat(300)]);
    const s = storeOf(appliedSpec, puts);
    const r = walk(s, "applied", {}, { maxBytes: 4000 });
    assert.equal(r.entries.length, 200);
    assert.ok(r.entries.every((e) => e["value"] === "\u20ac".repeat(300)));
  });

  test("an empty store answers an empty page", () => {
    const s = storeOf(needsSpec, [], 0);
    assert.deepEqual(ask(s, "needs").body, { what: "needs", revision: 0, entries: [], outOfShape: [] });
  });
});
