/**
 * The protocol's schemas (src/protocol/schemas.ts) against what the service
 * really sends, and the committed JSON Schemas (schemas/) against the zod
 * schemas they are generated from.
 */
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { protocolSchemas } from "../../src/schemas/schemas.js";
import { jsonSchemaFiles } from "../../src/schemas/json-schemas.js";
import { PROTOCOL_VERSION } from "mesh-provisioner-client/protocol/version.js";
import { buildPage } from "../../src/verb/answer.js";
import { isAnswered as answeredIn } from "mesh-provisioner-client/keys";
import { parseRequest } from "../../src/verb/request.js";
import { ProjectionStore } from "../../src/projections/store/store.js";
import { appliedSpec, collectSpec, needsSpec, registrySpec } from "../../src/projections/bucket-specs.js";
import { KNOWN_KINDS } from "../../src/reconcile/registry.js";
import type { BucketSpec } from "../../src/projections/store/spec.js";
import { feedEvent } from "../../src/feed/events.js";
import { SAMPLE_PUTS } from "../helpers/sample-puts.js";
import type { What } from "mesh-provisioner-client/keys";

const enc = new TextEncoder();
const bytes = (v: unknown): Uint8Array => (v instanceof Uint8Array ? v : enc.encode(typeof v === "string" ? v : JSON.stringify(v)));
const schemas = protocolSchemas();

type Zodish = { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } } };

/**
 * Parse `value` with `schema` and require it to come back whole: the reply's
 * and feed's objects drop fields they do not know, so a field the service
 * sends and the schema lacks shows here as a difference.
 */
function conforms(schema: Zodish, value: unknown, what: string): void {
  const r = schema.safeParse(value);
  assert.ok(r.success, `${what} does not parse: ${JSON.stringify(r.error?.issues)}\n${JSON.stringify(value)}`);
  assert.deepEqual(r.data, value, `${what}: the schema drops a field the service sends`);
}

/** A store fed with `puts` (revisions 1, 2, …), then synced. */
function storeOf(spec: BucketSpec, puts: readonly (readonly [string, unknown])[]): ProjectionStore {
  const store = new ProjectionStore(spec);
  let rev = 0;
  for (const [key, value] of puts) store.apply("PUT", key, ++rev, bytes(value));
  store.markSynced(rev);
  return store;
}

const SPECS: Record<What, BucketSpec> = { registry: registrySpec(KNOWN_KINDS), needs: needsSpec, applied: appliedSpec, collect: collectSpec };

const PUTS = SAMPLE_PUTS;

const stores = Object.fromEntries((Object.keys(PUTS) as What[]).map((w) => [w, storeOf(SPECS[w], PUTS[w])])) as Record<What, ProjectionStore>;
const isAnswered = (kind: string): boolean => answeredIn(stores.registry, kind);

/** Every page of a bucket's answer, `limit` entries at most each, as the service builds them. */
function pages(what: What, opts: { limit?: number; maxBytes?: number; filters?: Record<string, string> } = {}): unknown[] {
  const out: unknown[] = [];
  let after: string | undefined;
  for (;;) {
    const page = buildPage(
      { what, filters: opts.filters ?? {}, limit: opts.limit, after },
      { store: stores[what], isAnswered: what === "needs" ? isAnswered : undefined, maxBytes: opts.maxBytes ?? 1024 * 1024 },
    );
    const body = JSON.parse(page.body) as { next?: string };
    out.push(body);
    if (body.next === undefined) return out;
    after = body.next;
  }
}

describe("the reply's schema holds the service's replies", () => {
  for (const what of ["registry", "needs", "applied", "collect"] as const) {
    test(`${what}: whole, paged and narrowed answers`, () => {
      const all = [...pages(what), ...pages(what, { limit: 1 }), ...(what === "registry" ? [] : pages(what, { filters: { node: "n1" } }))];
      assert.ok(all.length > 3);
      for (const body of all) {
        conforms(schemas.reply, body, `a ${what} reply`);
        conforms(schemas.replies[what], body, `a ${what} reply, by its own schema`);
      }
    });

    test(`${what}: entries too large for any reply`, () => {
      const all = pages(what, { maxBytes: 300 }) as { entries: Record<string, unknown>[] }[];
      assert.ok(
        all.some((b) => b.entries.some((e) => e["valueTooLarge"] === true)),
        "a value was left out",
      );
      for (const body of all) conforms(schemas.reply, body, `a ${what} reply with a value left out`);
    });
  }

  test("the answers have what the schemas name: answered:false, outOfShape, next", () => {
    const needs = pages("needs")[0] as { entries: Record<string, unknown>[]; outOfShape: unknown[] };
    assert.ok(needs.entries.some((e) => e["answered"] === false));
    assert.ok(needs.outOfShape.length >= 2);
    const collect = pages("collect")[0] as { entries: Record<string, unknown>[] };
    assert.ok(collect.entries.some((e) => e["collection"] === "café"));
    assert.ok(pages("applied", { limit: 1 }).length > 2);
  });

  test("what the schemas refuse", () => {
    const good = pages("needs")[0] as { entries: Record<string, unknown>[] };
    const entry = good.entries[0] as Record<string, unknown>;
    assert.equal(schemas.reply.safeParse({ ...good, what: "seat" }).success, false);
    assert.equal(schemas.reply.safeParse({ ...good, entries: [{ ...entry, key: "n1.web" }] }).success, false, "a needs key of 2 tokens");
    assert.equal(schemas.reply.safeParse({ ...good, entries: [{ ...entry, answered: true }] }).success, false);
    const { value: _v, ...noValue } = entry;
    assert.equal(schemas.reply.safeParse({ ...good, entries: [noValue] }).success, false, "an entry without value");
  });

  test("an error reply", () => {
    assert.throws(
      () => parseRequest('{"what":"needs","node":"*"}'),
      (err: { toReplyBody(): unknown }) => {
        conforms(schemas.errorReply, err.toReplyBody(), "an error body");
        return true;
      },
    );
  });
});

describe("the feed event's schema holds the service's events", () => {
  for (const what of ["registry", "needs", "applied", "collect"] as const) {
    test(`${what}: puts, puts out of shape, deletes`, () => {
      // As the feed's publisher does: each change made into its event as soon as it is applied.
      const store = new ProjectionStore(SPECS[what]);
      const events: string[] = [];
      const apply = (op: "PUT" | "DEL", key: string, value: unknown): void => {
        const c = store.apply(op, key, store.revision + 1, bytes(value));
        assert.ok(c !== null);
        events.push(feedEvent(what, c, what === "needs" ? isAnswered : undefined));
      };
      for (const [key, value] of PUTS[what]) apply("PUT", key, value);
      apply("DEL", (PUTS[what][0] as [string, unknown])[0], new Uint8Array());
      const kinds = new Set<string>();
      for (const text of events) {
        const ev = JSON.parse(text) as Record<string, unknown>;
        kinds.add(`${ev["op"]}${"entry" in ev ? "+entry" : ""}${"outOfShape" in ev ? "+outOfShape" : ""}`);
        conforms(schemas.feedEvent, ev, `a ${what} feed event`);
        conforms(schemas.feedEvents[what], ev, `a ${what} feed event, by its own schema`);
      }
      assert.deepEqual([...kinds].sort(), ["delete", "put+entry", "put+outOfShape"]);
    });
  }
});

describe("the request's schema", () => {
  test("is the one the service validates with", async () => {
    const { requestSchema } = await import("../../src/schemas/request-schema.js");
    assert.equal(schemas.request, requestSchema());
  });

  test("takes what the service takes and refuses what it refuses", () => {
    const bodies: unknown[] = [
      {},
      { what: "registry" },
      { what: "needs", node: "n1", module: "web", minRevision: 12 },
      { what: "collect", collection: "shell:zsh:normal", limit: 100, after: "n1.shell=3Azsh=3Anormal.web" },
      { what: "needs", node: "*" },
      { what: "needs", contributor: "x" },
      { what: "nope" },
      { limit: 0 },
      { what: "applied", extra: 1 },
    ];
    for (const b of bodies) {
      let served: boolean;
      try {
        parseRequest(JSON.stringify(b));
        served = true;
      } catch {
        served = false;
      }
      const { success } = schemas.request.safeParse(b);
      // A filter that does not apply to the bucket passes the schema and is refused after it.
      if (JSON.stringify(b) === '{"what":"needs","contributor":"x"}') assert.equal(success && !served, true);
      else assert.equal(success, served, JSON.stringify(b));
    }
  });
});

describe("the committed JSON Schemas", () => {
  test("are what npm run schemas writes from the zod schemas (stale otherwise: run npm run schemas)", () => {
    const files = jsonSchemaFiles();
    assert.deepEqual(Object.keys(files).sort(), ["feed-event.schema.json", "reply.schema.json", "request.schema.json"]);
    for (const [name, text] of Object.entries(files)) {
      let committed: string;
      try {
        committed = readFileSync(new URL(`../../../schemas/${name}`, import.meta.url), "utf8");
      } catch {
        assert.fail(`schemas/${name} is missing: run npm run schemas and commit it`);
      }
      assert.ok(committed === text, `schemas/${name} is stale: run npm run schemas and commit it`);
    }
  });

  test("name the protocol version", () => {
    for (const text of Object.values(jsonSchemaFiles())) {
      assert.equal((JSON.parse(text) as Record<string, unknown>)["x-protocol-version"], PROTOCOL_VERSION);
    }
  });
});

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe("docs/protocol.md", () => {
  const doc = readFileSync(new URL("../../../docs/protocol.md", import.meta.url), "utf8");

  test("its examples are valid: each ```json <schema> block parses with that schema", () => {
    const byName: Record<string, Zodish> = {
      request: schemas.request,
      reply: schemas.reply,
      error: schemas.errorReply,
      "feed-event": schemas.feedEvent,
    };
    const blocks = [...doc.matchAll(/^```json ([a-z-]+)\n([\s\S]*?)^```$/gm)];
    const seen = new Set<string>();
    for (const [, name, body] of blocks) {
      const schema = byName[name as string];
      assert.ok(schema !== undefined, `a block names an unknown schema ${name}`);
      seen.add(name as string);
      // A block holds one JSON document, or one per line.
      const docs = isJson(body as string) ? [body as string] : (body as string).trim().split("\n");
      for (const text of docs) {
        const r = schema.safeParse(JSON.parse(text));
        assert.ok(r.success, `an example ${name} in docs/protocol.md does not parse: ${JSON.stringify(r.error?.issues)}\n${text}`);
      }
    }
    assert.deepEqual([...seen].sort(), Object.keys(byName).sort(), "every schema has an example");
  });

  test("names the protocol version", () => {
    assert.match(doc, new RegExp(`protocol version is \`${PROTOCOL_VERSION}\``));
  });
});
