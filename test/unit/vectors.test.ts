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
import { parseRequest } from "../../src/verb/request.js";
import { protocolSchemas } from "../../src/schemas/schemas.js";
import { PROTOCOL_VERSION } from "mesh-provisioner-client/protocol/version.js";
import { feedSubject } from "mesh-provisioner-client/protocol/subjects.js";
import { KNOWN_KINDS } from "../../src/reconcile/registry.js";

const root = new URL("../../../", import.meta.url);
const read = (path: string): any => JSON.parse(readFileSync(new URL(path, root), "utf8"));
const { z } = createRequire(import.meta.url)("zod") as typeof Zod;
/** A committed JSON Schema of schemas/, read as it is. */
const committed = (file: string): Zod.ZodType => z.fromJSONSchema(read(`schemas/${file}`));

const keys = read("vectors/keys.json");
const requests = read("vectors/requests.json");
const replies = read("vectors/replies.json");
const feed = read("vectors/feed-events.json");

test("every vector file names the protocol version it was written for", () => {
  for (const doc of [keys, requests, replies, feed]) assert.match(doc.$comment, new RegExp(`protocol version ${PROTOCOL_VERSION}\\b`));
});

describe("key shape vectors", () => {
  test("the known kinds are the compiled table's", () => {
    assert.deepEqual([...keys.knownKinds].sort(), [...KNOWN_KINDS].sort());
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
