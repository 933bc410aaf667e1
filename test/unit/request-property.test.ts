import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseRequest } from "../../src/verb/request.js";
import { FILTERS, LIMITS } from "../../src/schemas/request-schema.js";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { WHATS, type What } from "mesh-provisioner-client/keys";

const token = fc.stringMatching(/^[A-Za-z0-9_/=-]{1,12}$/);

/** A valid request for one bucket: only the filters that apply to it, each well formed. */
const validRequest = fc.constantFrom(...WHATS).chain((what: What) =>
  fc.record(
    {
      what: fc.constant(what),
      node: FILTERS[what].includes("node") ? token : fc.constant(undefined),
      module: FILTERS[what].includes("module") ? token : fc.constant(undefined),
      contributor: FILTERS[what].includes("contributor") ? token : fc.constant(undefined),
      collection: FILTERS[what].includes("collection") ? fc.string({ minLength: 1, maxLength: 20 }) : fc.constant(undefined),
      limit: fc.integer({ min: 1, max: LIMITS.maxLimit }),
      after: fc.string({ maxLength: 30 }),
      minRevision: fc.nat(),
    },
    { requiredKeys: ["what"] },
  ),
);

test("any body at all either parses or is refused with a 400 ProvisionerError: nothing else is ever thrown", () => {
  const body = fc.oneof(
    fc.string(),
    fc.json(),
    fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue()).map((o) => JSON.stringify(o)),
    fc.uint8Array({ maxLength: 200 }),
  );
  fc.assert(
    fc.property(body, (b) => {
      try {
        const r = parseRequest(b);
        assert.ok(WHATS.includes(r.what));
        for (const [f, v] of Object.entries(r.filters)) {
          assert.ok(FILTERS[r.what].includes(f), `${f} applies to ${r.what}`);
          assert.equal(typeof v, "string");
        }
      } catch (err) {
        assert.ok(err instanceof ProvisionerError, `threw ${String(err)}`);
        assert.equal(err.status, 400);
        assert.ok(err.message.length > 0);
      }
    }),
    { numRuns: 3000 },
  );
});

test("every well-formed request parses to exactly the fields it was sent with", () => {
  fc.assert(
    fc.property(validRequest, (req) => {
      const sent = Object.fromEntries(Object.entries(req).filter(([, v]) => v !== undefined));
      const r = parseRequest(JSON.stringify(sent));
      assert.equal(r.what, req.what);
      assert.equal(r.limit, req.limit);
      assert.equal(r.after, req.after);
      assert.equal(r.minRevision, req.minRevision);
      const filters = Object.fromEntries(FILTERS[req.what].filter((f) => sent[f] !== undefined).map((f) => [f, sent[f]]));
      assert.deepEqual(r.filters, filters);
    }),
    { numRuns: 2000 },
  );
});

test("a filter that could widen the query (a wildcard, a dot, a space, empty) is always refused", () => {
  const widening = fc.oneof(
    fc.constantFrom("*", ">", "", " "),
    fc.tuple(token, fc.constantFrom("*", ">", ".", " ", "\t"), token).map(([a, w, b]) => a + w + b),
  );
  fc.assert(
    fc.property(fc.constantFrom("node", "module"), widening, (field, value) => {
      assert.throws(
        () => parseRequest(JSON.stringify({ what: "needs", [field]: value })),
        (e: ProvisionerError) => e.status === 400,
      );
    }),
    { numRuns: 1000 },
  );
});

test("the quick read of a node's usual request accepts only what the schema accepts, and reads it the same", async () => {
  const { quickRequest, schemaRequest } = await import("../../src/verb/request.js");
  const value = fc.oneof(
    token,
    fc.string({ maxLength: 6 }),
    fc.constantFrom(...WHATS, "", "*", "n.1", "x y"),
    fc.integer(),
    fc.double(),
    fc.constant(null),
    fc.boolean(),
    fc.constant(2 ** 60),
  );
  const body = fc.dictionary(fc.constantFrom("what", "node", "module", "minRevision", "limit", "contributor", "extra"), value, { maxKeys: 5 });
  let quick = 0;
  fc.assert(
    fc.property(
      fc.oneof(
        body,
        validRequest.map((r) => ({ what: r.what, node: r.node, minRevision: r.minRevision }) as Record<string, unknown>),
      ),
      (obj) => {
        const json = JSON.parse(JSON.stringify(obj)) as unknown;
        const q = quickRequest(json);
        if (q === undefined) return;
        quick++;
        assert.deepStrictEqual(q, schemaRequest(json));
      },
    ),
    { numRuns: 5000 },
  );
  assert.ok(quick > 500, `the quick read took ${quick} of 5000`);
});
