/**
 * The shared test vectors (vectors/*.json, written by scripts/write-vectors.mjs)
 * against the TypeScript implementation, case by case, and the reply and
 * feed-event examples against the committed JSON Schemas in schemas/ (read
 * as they are, with zod's fromJSONSchema) and the zod schemas they are
 * generated from. The Go client's tests (go/) read the same files, so a case
 * that holds here and fails there is a drift between the two clients. A
 * refusal is held by its code, not its message: each client words its own.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type * as Zod from "zod";
import { decodeName, encodeName, parseKey, type What } from "../../src/keys/mod.js";
import { parseRequest } from "../../src/verb/request.js";
import { protocolSchemas } from "../../src/protocol/schemas.js";
import { PROTOCOL_VERSION } from "../../src/protocol/version.js";
import { feedSubject } from "../../src/protocol/subjects.js";
import { KNOWN_KINDS } from "../../src/reconcile/registry.js";
import { appliedKey, collectKey, decodeCollection, needsKey } from "../../src/client/keys.js";
import { covers, feedSubjects, filtersOf } from "../../src/client/narrowing.js";
import { ViewState } from "../../src/client/view-state.js";
import type { FeedEvent } from "../../src/protocol/messages.js";
import { MESH_SCOPE, NEEDS_SCOPE, nodeScope, requestSubject, scopedNode, scopeSubject, type VerbScope } from "../../src/protocol/scope.js";

const root = new URL("../../../", import.meta.url);
const read = (path: string): any => JSON.parse(readFileSync(new URL(path, root), "utf8"));
const { z } = createRequire(import.meta.url)("zod") as typeof Zod;
/** A committed JSON Schema of schemas/, read as it is. */
const committed = (file: string): Zod.ZodType => z.fromJSONSchema(read(`schemas/${file}`));

const hex = read("vectors/hex.json");
const keys = read("vectors/keys.json");
const requests = read("vectors/requests.json");
const replies = read("vectors/replies.json");
const feed = read("vectors/feed-events.json");
const views = read("vectors/views.json");
const scopes = read("vectors/scopes.json");

test("every vector file names the protocol version it was written for", () => {
  for (const doc of [hex, keys, requests, replies, feed, views, scopes]) assert.match(doc.$comment, new RegExp(`protocol version ${PROTOCOL_VERSION}\\b`));
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
  test("the known kinds are the compiled table's", () => {
    assert.deepEqual([...keys.knownKinds].sort(), [...KNOWN_KINDS].sort());
  });

  test("each key is in shape with its fields, or out of shape with a reason and its readable tokens", () => {
    const whats = new Set<string>();
    for (const c of keys.shapes) {
      whats.add(c.what);
      const label = `${c.what} ${JSON.stringify(c.key)}`;
      const s = parseKey(c.what as What, c.key, KNOWN_KINDS);
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

/** The message parseRequest refuses body with ("" when it serves it). */
const refusalOf = (body: string): string => {
  try {
    parseRequest(body);
    return "";
  } catch (err) {
    return (err as Error).message;
  }
};

describe("request vectors", () => {
  const schema = committed("request.schema.json");

  test("each body is served as parsed, or refused with its status and code", () => {
    for (const c of requests.cases) {
      const label = c.body.slice(0, 80);
      if (c.ok) {
        const r = parseRequest(c.body);
        const got: Record<string, unknown> = { what: r.what, filters: r.filters };
        if (r.limit !== undefined) got["limit"] = r.limit;
        if (r.after !== undefined) got["after"] = r.after;
        if (r.minRevision !== undefined) got["minRevision"] = r.minRevision;
        assert.deepEqual(got, c.parsed, label);
      } else {
        assert.equal(c.status, 400);
        assert.throws(() => parseRequest(c.body), { status: c.status, code: c.code }, label);
      }
    }
  });

  test("schemas/request.schema.json takes the served bodies and refuses the badly typed or bounded ones", () => {
    for (const c of requests.cases) {
      const text = c.body.trim();
      if (text === "") continue;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        continue; // not JSON: no schema can say
      }
      // A body over 16 KiB is refused before the schema reads it, whatever it holds.
      if (c.code === "E_REQUEST_BOUND") continue;
      const { success } = schema.safeParse(json);
      // Refused after the schema: a filter the bucket does not take.
      const afterSchema = !c.ok && /does not apply to/.test(refusalOf(c.body));
      assert.equal(success, c.ok || afterSchema, c.body.slice(0, 80));
    }
  });
});

describe("reply and error vectors", () => {
  const schemas = protocolSchemas();
  const reply = committed("reply.schema.json");

  test("each reply is valid by schemas/reply.schema.json and by the zod schema, which keeps every field", () => {
    assert.ok(replies.replies.length > 20);
    const seen = new Set<string>();
    for (const { reply: body } of replies.replies) {
      const r = reply.safeParse(body);
      assert.ok(r.success, `schemas/reply.schema.json refuses ${JSON.stringify(body).slice(0, 200)}: ${JSON.stringify(r.error?.issues)}`);
      const zr = schemas.reply.safeParse(body);
      assert.ok(zr.success);
      assert.deepEqual(zr.data, body, "the schema drops a field the fixture has");
      seen.add(body.what);
      if (body.next !== undefined) seen.add("next");
      if (body.entries.some((e: Record<string, unknown>) => e["valueTooLarge"] === true)) seen.add("valueTooLarge");
      if (body.entries.some((e: Record<string, unknown>) => e["answered"] === false)) seen.add("answered");
      if (body.outOfShape.length > 0) seen.add("outOfShape");
    }
    assert.deepEqual([...seen].sort(), ["answered", "applied", "collect", "needs", "next", "outOfShape", "registry", "valueTooLarge"]);
  });

  test("the schemas refuse a broken reply (so the check above can fail)", () => {
    const body = replies.replies.find((r: { reply: { what: string } }) => r.reply.what === "needs").reply;
    assert.equal(reply.safeParse({ ...body, what: "seat" }).success, false);
    assert.equal(reply.safeParse({ ...body, revision: -1 }).success, false);
    assert.equal(reply.safeParse({ ...body, entries: [{ ...body.entries[0], key: "n1.web" }] }).success, false);
  });

  test("each error is an error body with the code of its header", () => {
    for (const e of replies.errors) {
      const r = schemas.errorReply.safeParse(e.body);
      assert.ok(r.success);
      assert.equal(String(e.body.error.code), e.headers["Nats-Service-Error-Code"]);
      assert.equal(e.body.error.message, e.headers["Nats-Service-Error"]);
      if (e.request !== null) assert.throws(() => parseRequest(e.request), { message: e.body.error.message });
    }
  });
});

describe("feed event vectors", () => {
  const schemas = protocolSchemas();
  const event = committed("feed-event.schema.json");

  test("each event is valid by schemas/feed-event.schema.json and the zod schema, and sits on its key's subject", () => {
    const kinds = new Set<string>();
    for (const { subject, event: ev } of feed.events) {
      const r = event.safeParse(ev);
      assert.ok(r.success, `schemas/feed-event.schema.json refuses ${JSON.stringify(ev)}`);
      const zr = schemas.feedEvent.safeParse(ev);
      assert.ok(zr.success);
      assert.deepEqual(zr.data, ev, "the schema drops a field the fixture has");
      assert.equal(subject, feedSubject(ev.what, ev.key));
      kinds.add(`${ev.what} ${ev.op}${"entry" in ev ? "+entry" : ""}${"outOfShape" in ev ? "+outOfShape" : ""}`);
    }
    for (const what of ["registry", "needs", "applied", "collect"]) {
      for (const k of ["delete", "put+entry", "put+outOfShape"]) assert.ok(kinds.has(`${what} ${k}`), `a ${what} ${k} event`);
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
