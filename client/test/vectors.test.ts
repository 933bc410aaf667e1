/**
 * The shared test vectors (vectors/*.json, read by the Go client's tests too)
 * as the TypeScript client meets them: =hex, key shapes and builders,
 * narrowing, views and read scopes. The service's own (requests, replies,
 * feed events) are checked by the service's tests.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { decodeName, encodeName, parseKey, type What } from "../src/keys/mod.js";
import { PROTOCOL_VERSION } from "../src/protocol/version.js";
import { appliedKey, collectKey, decodeCollection, needsKey } from "../src/keys.js";
import { covers, feedSubjects, filtersOf } from "../src/narrowing.js";
import { ViewState } from "../src/view-state.js";
import type { FeedEvent } from "../src/protocol/messages.js";
import { MESH_SCOPE, NEEDS_SCOPE, nodeScope, requestSubject, scopedNode, scopeSubject, type VerbScope } from "../src/protocol/scope.js";

// client/dist/test/ -> the repository
const root = new URL("../../../", import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the vectors' JSON, whose shape the tests assert
const read = (path: string): any => JSON.parse(readFileSync(new URL(path, root), "utf8"));

const hex = read("vectors/hex.json");
const keys = read("vectors/keys.json");
const views = read("vectors/views.json");
const scopes = read("vectors/scopes.json");

test("every vector file the client reads names the protocol version it was written for", () => {
  for (const doc of [hex, keys, views, scopes]) assert.match(doc.$comment, new RegExp(`protocol version ${PROTOCOL_VERSION}\\b`));
});

describe("=hex vectors", () => {
  test("valid: each name encodes to its escaped form and decodes back", () => {
    assert.ok(hex.valid.length > 20);
    for (const { name, escaped } of hex.valid) {
      assert.equal(encodeName(name), escaped, JSON.stringify(name));
      assert.deepEqual(decodeName(escaped), { ok: true, name });
    }
  });

  test("invalid: each spelling is refused, with a reason, and decoding it throws its code", () => {
    assert.ok(hex.invalid.length > 20);
    for (const { escaped, code } of hex.invalid) {
      const d = decodeName(escaped);
      assert.equal(d.ok, false, JSON.stringify(escaped));
      assert.ok(!d.ok && d.reason.length > 0, JSON.stringify(escaped));
      assert.throws(() => decodeCollection(escaped), { code }, JSON.stringify(escaped));
    }
  });

  test("unencodable: each name is refused with its code", () => {
    for (const { name, code } of hex.unencodable) assert.throws(() => encodeName(name), { code }, JSON.stringify(name));
  });
});

describe("key shape vectors", () => {
  test("each key is in shape with its fields, or out of shape with a reason and its readable tokens", () => {
    const whats = new Set<string>();
    for (const c of keys.shapes) {
      whats.add(c.what);
      const label = `${c.what} ${JSON.stringify(c.key)}`;
      const s = parseKey(c.what as What, c.key, new Set<string>(keys.knownKinds));
      if (c.ok) assert.deepEqual(s, { ok: true, fields: c.fields }, label);
      else {
        assert.ok(!s.ok && s.reason.length > 0, label);
        assert.deepEqual(s.readable, c.readable, label);
      }
    }
    assert.deepEqual([...whats].sort(), ["applied", "collect", "needs", "registry"]);
  });

  test("the key builders build each key, or refuse with the code", () => {
    const fns: Record<string, (...a: string[]) => string> = { needsKey, appliedKey, collectKey } as never;
    assert.ok(keys.builders.some((c: { code?: string }) => c.code !== undefined));
    for (const c of keys.builders) {
      const fn = fns[c.fn]!;
      if (c.code === undefined) assert.equal(fn(...c.args), c.key);
      else assert.throws(() => fn(...c.args), { code: c.code }, `${c.fn}(${c.args.join(", ")})`);
    }
  });
});

describe("narrowing and view vectors", () => {
  test("covers: each event key is in the request's answer or not", () => {
    for (const c of views.covers) {
      assert.equal(covers(c.request.what, filtersOf(c.request), { key: c.key, entry: c.entry }), c.covered, `${JSON.stringify(c.request)} ${c.key}`);
    }
  });

  test("the feed subjects of each request", () => {
    for (const c of views.subjects) assert.deepEqual(feedSubjects(c.request.what, filtersOf(c.request)), c.subjects);
  });

  test("each scenario ends in its view: the snapshot, the events held while it was taken, then the events after", () => {
    for (const s of views.scenarios) {
      const what = s.request.what as What;
      const filters = filtersOf(s.request);
      const state = new ViewState(what);
      state.beginSnapshot();
      for (const ev of s.held as FeedEvent[]) if (covers(what, filters, ev)) state.apply(ev);
      assert.equal(state.endSnapshot({ what, ...s.snapshot }, s.lowest), true, s.name);
      for (const ev of s.events as FeedEvent[]) if (covers(what, filters, ev)) state.apply(ev);
      const v = state.view();
      const entries = Object.fromEntries([...v.entries].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, e]) => [k, { revision: e.revision, value: e.value }]));
      assert.deepEqual({ revision: v.revision, synced: v.synced, entries, outOfShape: [...v.outOfShape.keys()].sort() }, s.expect, s.name);
    }
  });
});

describe("read scope vectors", () => {
  const scopeOf = (s: "mesh" | "needs" | { node: string }): VerbScope => (s === "mesh" ? MESH_SCOPE : s === "needs" ? NEEDS_SCOPE : nodeScope(s.node));

  test("each scope is answered on its own subject", () => {
    assert.equal(scopes.subjects.length, 3);
    for (const { scope, subject } of scopes.subjects) assert.equal(scopeSubject(scopeOf(scope)), subject, JSON.stringify(scope));
  });

  test("a client of each scope asks on the subject given, and the service there narrows or refuses as given", () => {
    assert.ok(scopes.cases.some((c: { status: number }) => c.status === 403));
    for (const c of scopes.cases) {
      const scope = scopeOf(c.scope);
      const label = JSON.stringify([c.scope, c.request]);
      assert.equal(requestSubject(scope, c.request.node), c.asks, label);
      if (c.status === 200) assert.equal(scopedNode(scope, c.request.what, c.request.node) ?? null, c.node, label);
      else assert.throws(() => scopedNode(scope, c.request.what, c.request.node), { status: c.status, code: c.code }, label);
    }
  });
});
