import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { parseRequest, requestKey } from "../../src/verb/request.js";
import { FILTERS, LIMITS } from "../../src/schemas/request-schema.js";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";

/** Assert that parsing `body` is refused with a 400 whose message matches `message`. */
function refused(body: string | Uint8Array, message: RegExp): ProvisionerError {
  let caught: unknown;
  try {
    parseRequest(body);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ProvisionerError, `expected a ProvisionerError for ${String(body).slice(0, 80)}`);
  assert.equal(caught.status, 400, caught.message);
  assert.match(caught.message, message);
  return caught;
}

const req = (o: unknown): string => JSON.stringify(o);

describe("parseRequest: accepted requests", () => {
  test("an empty body is the registry, unnarrowed", () => {
    assert.deepEqual(parseRequest(""), { what: "registry", filters: {} });
    assert.deepEqual(parseRequest(new Uint8Array()), { what: "registry", filters: {} });
    assert.deepEqual(parseRequest("  \n "), { what: "registry", filters: {} });
  });

  test("an empty object is the registry too", () => {
    const r = parseRequest("{}");
    assert.equal(r.what, "registry");
    assert.deepEqual(r.filters, {});
    assert.equal(r.limit, undefined);
    assert.equal(r.after, undefined);
    assert.equal(r.minRevision, undefined);
  });

  test("every what is accepted", () => {
    for (const what of ["registry", "needs", "applied", "collect"]) {
      assert.equal(parseRequest(req({ what })).what, what);
    }
  });

  test("needs takes node and module as filters", () => {
    const r = parseRequest(req({ what: "needs", node: "n1", module: "web", limit: 10, after: "n1.web.config.a", minRevision: 7 }));
    assert.deepEqual(r, { what: "needs", filters: { node: "n1", module: "web" }, limit: 10, after: "n1.web.config.a", minRevision: 7 });
  });

  test("applied takes node and module as filters", () => {
    assert.deepEqual(parseRequest(req({ what: "applied", node: "n-1", module: "a/b=c_d" })).filters, {
      node: "n-1",
      module: "a/b=c_d",
    });
  });

  test("collect takes node, contributor and a collection by its name (any non-empty string)", () => {
    const r = parseRequest(req({ what: "collect", node: "n1", contributor: "c1", collection: "shell:zsh normal.* >" }));
    assert.deepEqual(r.filters, { node: "n1", contributor: "c1", collection: "shell:zsh normal.* >" });
  });

  test("the body may be bytes", () => {
    assert.deepEqual(parseRequest(new TextEncoder().encode(req({ what: "needs", node: "n1" }))).filters, { node: "n1" });
  });

  test("limit bounds: 1 and maxLimit are accepted", () => {
    assert.equal(parseRequest(req({ limit: 1 })).limit, 1);
    assert.equal(parseRequest(req({ limit: LIMITS.maxLimit })).limit, LIMITS.maxLimit);
  });

  test("minRevision 0 is accepted", () => {
    assert.equal(parseRequest(req({ minRevision: 0 })).minRevision, 0);
  });

  test("a body of exactly maxRequestBytes is not refused for its size", () => {
    const json = req({ what: "collect", node: "n1" });
    const body = json + " ".repeat(LIMITS.maxRequestBytes - json.length);
    assert.equal(Buffer.byteLength(body), LIMITS.maxRequestBytes);
    assert.deepEqual(parseRequest(body).filters, { node: "n1" });
  });
});

describe("parseRequest: refusals are 400 naming the field", () => {
  test("a body that is not JSON", () => {
    refused("not json", /not JSON/);
    refused("{", /not JSON/);
    refused("{'what':'needs'}", /not JSON/);
  });

  test("JSON that is not an object", () => {
    for (const body of ["[]", "null", "1", '"needs"', "true"]) refused(body, /must be a JSON object/);
  });

  test("an unknown field", () => {
    const e = refused(req({ what: "needs", nodes: "n1" }), /unknown field "nodes"/);
    assert.equal(e.kind, "BAD_REQUEST");
    refused(req({ kind: "config" }), /unknown field "kind"/);
  });

  test("an unknown what", () => {
    refused(req({ what: "seat" }), /what must be one of registry, needs, applied, collect/);
    refused(req({ what: "" }), /what/);
    refused(req({ what: 3 }), /what/);
  });

  test("a filter that does not apply to the asked bucket", () => {
    refused(req({ node: "n1" }), /filter "node" does not apply to registry/);
    refused(req({ what: "registry", module: "m" }), /filter "module" does not apply to registry: registry takes no filters/);
    refused(req({ what: "needs", contributor: "c" }), /filter "contributor" does not apply to needs/);
    refused(req({ what: "needs", collection: "shell" }), /filter "collection" does not apply to needs/);
    refused(req({ what: "applied", collection: "shell" }), /filter "collection" does not apply to applied/);
    refused(req({ what: "collect", module: "web" }), /filter "module" does not apply to collect: collect takes only node, contributor, collection/);
  });

  for (const field of ["node", "module", "contributor"] as const) {
    const what = field === "contributor" ? "collect" : "needs";
    test(`${field} must be a plain token: wildcards, dots, spaces and empty are refused`, () => {
      for (const bad of ["*", ">", "a.b", " ", "", "n1 ", "a*", "é"]) {
        refused(req({ what, [field]: bad }), new RegExp(`^${field} must be a plain token`));
      }
      refused(req({ what, [field]: 5 }), new RegExp(`${field} must be a string`));
      refused(req({ what, [field]: null }), new RegExp(`${field} must be a string`));
    });
  }

  test("collection must be a non-empty string of bounded length", () => {
    refused(req({ what: "collect", collection: "" }), /collection must not be empty/);
    refused(req({ what: "collect", collection: 1 }), /collection must be a string/);
    refused(req({ what: "collect", collection: "x".repeat(LIMITS.maxCollectionLength + 1) }), /collection must be at most/);
    assert.equal(
      parseRequest(req({ what: "collect", collection: "x".repeat(LIMITS.maxCollectionLength) })).filters["collection"]?.length,
      LIMITS.maxCollectionLength,
    );
  });

  test("limit must be a whole number from 1 to maxLimit", () => {
    refused(req({ limit: 0 }), /limit must be at least 1/);
    refused(req({ limit: -5 }), /limit must be at least 1/);
    refused(req({ limit: LIMITS.maxLimit + 1 }), /limit must be at most/);
    refused(req({ limit: 2.5 }), /limit must be a whole number/);
    refused(req({ limit: "10" }), /limit must be a number/);
  });

  test("after must be a string of bounded length", () => {
    refused(req({ after: 3 }), /after must be a string/);
    refused(req({ after: "k".repeat(LIMITS.maxAfterLength + 1) }), /after must be at most/);
    assert.equal(parseRequest(req({ after: "k".repeat(LIMITS.maxAfterLength) })).after?.length, LIMITS.maxAfterLength);
  });

  test("minRevision must be a whole number not below 0", () => {
    refused(req({ minRevision: -1 }), /minRevision must not be negative/);
    refused(req({ minRevision: 1.5 }), /minRevision must be a whole number/);
    refused(req({ minRevision: "3" }), /minRevision must be a number/);
  });

  test("a body over maxRequestBytes is refused with 400 before it is parsed", () => {
    const big = req({ what: "needs", after: "x".repeat(LIMITS.maxRequestBytes) });
    refused(big, new RegExp(`at most ${LIMITS.maxRequestBytes}`));
    refused(new Uint8Array(LIMITS.maxRequestBytes + 1).fill(0x20), /bytes/);
    // measured in bytes, not characters
    const multibyte = "\u00e9".repeat(LIMITS.maxRequestBytes / 2 + 1);
    refused(multibyte, /bytes/);
  });

  test("several problems are all named", () => {
    const e = refused(req({ what: "needs", node: "*", limit: 0 }), /node must be a plain token/);
    assert.match(e.message, /limit must be at least 1/);
  });
});

test("FILTERS matches the contract's table", () => {
  assert.deepEqual(FILTERS.registry, []);
  assert.deepEqual([...FILTERS.needs].sort(), ["module", "node"]);
  assert.deepEqual([...FILTERS.applied].sort(), ["module", "node"]);
  assert.deepEqual([...FILTERS.collect].sort(), ["collection", "contributor", "node"]);
});

describe("requestKey", () => {
  const key = (body: string): string => requestKey(parseRequest(body));

  test("equivalent requests have equal keys", () => {
    assert.equal(key(""), key("{}"));
    assert.equal(key(""), key(req({ what: "registry" })));
    assert.equal(key(req({ what: "needs", node: "n1", module: "m" })), key(req({ module: "m", node: "n1", what: "needs" })));
    assert.equal(
      key(req({ what: "collect", collection: "a", contributor: "c", limit: 5, after: "x" })),
      key(' { "after" : "x", "limit": 5, "contributor":"c", "collection":"a", "what":"collect" } '),
    );
  });

  test("requests that differ in what, a filter, limit or after have different keys", () => {
    const base = key(req({ what: "needs", node: "n1" }));
    assert.notEqual(base, key(req({ what: "applied", node: "n1" })));
    assert.notEqual(base, key(req({ what: "needs", node: "n2" })));
    assert.notEqual(base, key(req({ what: "needs", node: "n1", module: "m" })));
    assert.notEqual(base, key(req({ what: "needs", node: "n1", limit: 3 })));
    assert.notEqual(base, key(req({ what: "needs", node: "n1", after: "" })));
    assert.notEqual(base, key(req({ what: "needs", node: "n1", after: "a" })));
    assert.notEqual(key(req({ what: "needs", module: "n1" })), key(req({ what: "needs", node: "n1" })));
  });

  test("the key does not depend on the order of the filters' fields", () => {
    assert.equal(requestKey({ what: "needs", filters: { module: "m", node: "n1" } }), requestKey({ what: "needs", filters: { node: "n1", module: "m" } }));
    assert.notEqual(requestKey({ what: "needs", filters: { node: "m", module: "n1" } }), requestKey({ what: "needs", filters: { node: "n1", module: "m" } }));
  });

  test("a collection name cannot forge another request's key", () => {
    const a = key(req({ what: "collect", collection: 'x"&node="n1' }));
    const b = key(req({ what: "collect", collection: "x", node: "n1" }));
    assert.notEqual(a, b);
  });
});
