import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startStack, type Stack } from "../helpers/stack.js";
import { askOk, put, until } from "../helpers/verb-pages.js";
import { REGISTRY_TABLE } from "../../src/reconcile/registry.js";

/**
 * The answer cache keeps an answer with the revisions it was built at (its
 * bucket's, and the registry's for needs): an answer is never served once
 * either has moved, whatever the cache still holds under the request.
 */
describe("the answer cache and the revisions an answer was built at", () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack();
    // The registry written in full first: its revision then holds still while a test asks.
    const registry = stack.provisioner.projections.registry;
    await until(() => (registry.store.size === REGISTRY_TABLE.length ? true : undefined), 10_000, "the registry reconciled");
    const kv = await stack.kv("needs");
    let last = 0;
    for (let i = 0; i < 5; i++) last = await put(kv, `c1.web.config.k${i}`, JSON.stringify({ default: i }));
    await askOk(stack, { what: "needs", node: "c1", minRevision: last });
  });
  after(async () => {
    await stack?.stop();
  });

  /** Ask three times (the third is served from the cache) and return the last answer. */
  async function askThrice(request: Record<string, unknown>): Promise<{ entries: { key: string }[]; revision: number }> {
    const hits = stack.provisioner.verb.counters.cacheHits;
    await askOk(stack, request);
    await askOk(stack, request);
    const r = await askOk(stack, request);
    assert.equal(stack.provisioner.verb.counters.cacheHits, hits + 1, "the third ask is served from the cache");
    return r.body;
  }

  test("after a write to the bucket the same request is answered anew, with the write in it", async () => {
    const request = { what: "needs", node: "c1" };
    const cached = await askThrice(request);
    assert.equal(cached.entries.length, 5);
    const revision = await put(await stack.kv("needs"), "c1.web.config.k9", JSON.stringify({ default: 9 }));
    await until(() => (stack.provisioner.projections.needs.revision >= revision ? true : undefined), 10_000, "the needs projection at the write");
    const hits = stack.provisioner.verb.counters.cacheHits;
    const fresh = (await askOk(stack, request)).body as { entries: { key: string }[]; revision: number };
    assert.equal(stack.provisioner.verb.counters.cacheHits, hits, "not served from the cache");
    assert.equal(fresh.revision, revision);
    assert.deepEqual(
      fresh.entries.map((e) => e.key),
      [0, 1, 2, 3, 4, 9].map((i) => `c1.web.config.k${i}`),
    );
  });

  test("after a write to the registry a needs answer is built anew, though its bucket has not moved", async () => {
    const request = { what: "needs", node: "c1", limit: 50 };
    await askThrice(request);
    const registry = stack.provisioner.projections.registry;
    const before = registry.revision;
    // A kind nobody answers: the reconciler deletes it again, and the registry's revision moves either way.
    await put(await stack.kv("registry"), "cachetestkind", JSON.stringify({ domain: "nobody" }));
    await until(() => (registry.revision > before ? true : undefined), 10_000, "the registry projection past the write");
    const hits = stack.provisioner.verb.counters.cacheHits;
    await askOk(stack, request);
    assert.equal(stack.provisioner.verb.counters.cacheHits, hits, "not served from the cache");
  });
});
