import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startStack, type Reply, type Stack } from "../helpers/stack.js";
import { allPages, asAnswered, askOk, askRaw, pool } from "../helpers/verb-pages.js";

const MAX_PAYLOAD = 64 * 1024;
const NODES = Array.from({ length: 30 }, (_, i) => `n${String(i).padStart(2, "0")}`);
const PER_NODE = 100;

/** Needs in shape: 30 nodes x 5 modules x 20 names, each ~1 KB of JSON. */
function needsKeys(): string[] {
  const keys: string[] = [];
  for (const node of NODES)
    for (let m = 0; m < 5; m++) for (let k = 0; k < PER_NODE / 5; k++) keys.push(`${node}.mod${m}.config.k${String(k).padStart(2, "0")}`);
  return keys;
}
const valueFor = (key: string): string => JSON.stringify({ key, pad: "p".repeat(1000 - key.length) });

/** Out-of-shape keys spread over the key range, some before and after every entry. */
const OUT_OF_SHAPE = ["a0.x", "n03.mod1.config", "n07.mod2.config.k05.extra", "n12", "n15.mod2", "n29.mod4.config.k19.z.z", "zz.x.y"];
/** Fits alone on a page (60 KB) and cannot fit in any (its value alone is over the page budget). */
const LARGE = { key: "n15.mod2.config.klarge", value: JSON.stringify("L".repeat(60 * 1024)) };
const HUGE = { key: "n15.mod2.config.khuge", value: JSON.stringify("H".repeat(MAX_PAYLOAD - 400)) };

interface Traversal {
  pages: Reply[];
  keys: string[];
  oos: string[];
}

describe("paging through large answers on a 64 KiB max payload", () => {
  let stack: Stack;
  const revisionOf = new Map<string, number>();
  const allKeys = [...needsKeys(), LARGE.key, HUGE.key].sort();
  let lastRevision = 0;

  before(async () => {
    stack = await startStack({ server: { maxPayload: MAX_PAYLOAD } });
    const kv = await stack.kv("needs");
    const items: { key: string; value: string }[] = needsKeys().map((key) => ({ key, value: valueFor(key) }));
    // Interleave the out-of-shape keys and the two large values with the rest.
    OUT_OF_SHAPE.forEach((key, i) => items.splice(400 * (i + 1), 0, { key, value: "{}" }));
    items.splice(1500, 0, LARGE, HUGE);
    const revs = await pool(items, 64, (it) => kv.put(it.key, it.value));
    items.forEach((it, i) => revisionOf.set(it.key, revs[i] as number));
    lastRevision = Math.max(...revs);
    await askOk(stack, { what: "needs", minRevision: lastRevision, limit: 1 });
  });
  after(async () => {
    await stack?.stop();
  });

  /** Page through, checking what must hold for every traversal. */
  async function traverse(request: Record<string, unknown>): Promise<Traversal> {
    const pages = await allPages(stack, request);
    const keys: string[] = [];
    const oos: string[] = [];
    let after: string | undefined;
    pages.forEach((p, i) => {
      const isLast = i === pages.length - 1;
      assert.ok(p.bytes <= MAX_PAYLOAD, `page ${i + 1} is ${p.bytes} bytes`);
      assert.equal(p.body.next === undefined, isLast, `next is absent on the last page only (page ${i + 1} of ${pages.length})`);
      assert.equal(p.body.revision, lastRevision, "every page answers at the same revision");
      if (request["limit"] !== undefined) assert.ok(p.body.entries.length <= (request["limit"] as number));
      const next = p.body.next as string | undefined;
      for (const e of p.body.entries as { key: string }[]) {
        assert.ok(after === undefined || e.key > after, `${e.key} is after the previous page's next ${after}`);
        assert.ok(next === undefined || e.key <= next, `${e.key} is within the page's range up to ${next}`);
        keys.push(e.key);
      }
      for (const o of p.body.outOfShape as { key: string; reason: string }[]) {
        // Each out-of-shape key is reported on the page whose key range holds it.
        assert.ok(after === undefined || o.key > after, `${o.key} after ${after}`);
        assert.ok(next === undefined || o.key <= next, `${o.key} up to ${next}`);
        assert.ok(o.reason.length > 0);
        oos.push(o.key);
      }
      after = next;
    });
    for (let i = 1; i < keys.length; i++)
      assert.ok((keys[i - 1] as string) < (keys[i] as string), `keys in strictly increasing order at ${i}: ${keys[i - 1]} ${keys[i]}`);
    return { pages, keys, oos };
  }

  const sameSet = (got: string[], want: string[], what: string): void => {
    assert.equal(new Set(got).size, got.length, `${what}: no key twice`);
    assert.deepEqual(got, want, what);
  };

  test("the server's max payload is 64 KiB as configured", () => {
    assert.equal(stack.client.info?.max_payload, MAX_PAYLOAD);
    assert.equal(stack.provisioner.nc.info?.max_payload, MAX_PAYLOAD);
  });

  for (const limit of [undefined, 7]) {
    test(`all needs${limit ? ` with limit ${limit}` : " with no limit"}: every entry once in key order, each page within max payload, out-of-shape keys once`, async () => {
      const t = await traverse({ what: "needs", ...(limit ? { limit } : {}) });
      sameSet(t.keys, allKeys, "entries");
      sameSet([...t.oos].sort(), [...OUT_OF_SHAPE].sort(), "out-of-shape keys");
      if (limit) assert.ok(t.pages.length >= Math.ceil(allKeys.length / limit));
      else assert.ok(t.pages.length > 40, `${t.pages.length} pages: the payload, not a count, splits them`);
      // Every value is the one written, at the revision its put returned.
      const entries = t.pages.flatMap((p) => p.body.entries as { key: string; value: unknown; revision: number; valueTooLarge?: boolean }[]);
      for (const e of entries) {
        assert.equal(e.revision, revisionOf.get(e.key), e.key);
        if (e.key === HUGE.key) continue;
        if (e.key === LARGE.key) assert.equal(e.value, JSON.parse(LARGE.value));
        else assert.deepEqual(e.value, asAnswered(valueFor(e.key)));
      }
    });
  }

  for (const limit of [undefined, 7]) {
    test(`needs of each node${limit ? ` with limit ${limit}` : ""}: every entry of that node once, its out-of-shape keys once`, async () => {
      for (const node of NODES) {
        const t = await traverse({ what: "needs", node, ...(limit ? { limit } : {}) });
        sameSet(
          t.keys,
          allKeys.filter((k) => k.startsWith(`${node}.`)),
          `entries of ${node}`,
        );
        sameSet([...t.oos].sort(), OUT_OF_SHAPE.filter((k) => k === node || k.startsWith(`${node}.`)).sort(), `out-of-shape keys of ${node}`);
      }
    });
  }

  test("an entry whose value cannot fit in any reply is answered with valueTooLarge, and paging continues past it", async () => {
    const t = await traverse({ what: "needs", node: "n15", module: "mod2" });
    const i = t.keys.indexOf(HUGE.key);
    assert.ok(i >= 0 && i < t.keys.length - 1, "entries follow the huge one");
    const huge = t.pages.flatMap((p) => p.body.entries).find((e: { key: string }) => e.key === HUGE.key);
    assert.equal(huge.valueTooLarge, true);
    assert.equal(huge.value, undefined);
    assert.equal(huge.node, "n15");
    assert.equal(huge.module, "mod2");
    assert.equal(huge.revision, revisionOf.get(HUGE.key));
    assert.equal(typeof huge.valueBytes, "number");
    // The 60 KB value fits alone and is answered in full.
    const large = t.pages.flatMap((p) => p.body.entries).find((e: { key: string }) => e.key === LARGE.key);
    assert.equal(large.value, JSON.parse(LARGE.value));
    assert.equal(large.valueTooLarge, undefined);
  });

  test("valueBytes is the size of the value that was left out", async () => {
    const r = await askOk(stack, { what: "needs", after: "n15.mod2.config.kh", limit: 1 });
    const huge = r.body.entries[0];
    assert.equal(huge.key, HUGE.key);
    assert.equal(huge.valueBytes, Buffer.byteLength(HUGE.value));
  });

  test("after past the last key answers no entries and no next; after between keys continues at the next key", async () => {
    const end = await askOk(stack, { what: "needs", after: "~" });
    assert.deepEqual(end.body.entries, []);
    assert.deepEqual(end.body.outOfShape, []);
    assert.equal(end.body.next, undefined);
    const mid = await askOk(stack, { what: "needs", after: "n04.mod1.config.k05x", limit: 1 });
    assert.equal(mid.body.entries[0].key, "n04.mod1.config.k06");
    assert.equal(mid.body.next, "n04.mod1.config.k06");
  });

  test("the same page asked again at the same revision is the same bytes, kept on its second ask and served from the cache on its third", async () => {
    // Limits no other test asks with: questions new to the service.
    for (const request of [
      { what: "needs", limit: 4321 },
      { what: "needs", limit: 7, after: "n10.mod3.config.k05" },
      { what: "needs", node: "n20", limit: 4322 },
    ]) {
      const hits = stack.provisioner.verb.counters.cacheHits;
      const a = await askRaw(stack.client, request);
      const b = await askRaw(stack.client, request);
      assert.equal(stack.provisioner.verb.counters.cacheHits, hits, `no cache hit before the third ask of ${JSON.stringify(request)}`);
      const c = await askRaw(stack.client, request);
      assert.deepEqual(Buffer.from(b.data), Buffer.from(a.data), JSON.stringify(request));
      assert.deepEqual(Buffer.from(c.data), Buffer.from(a.data), JSON.stringify(request));
      assert.equal(stack.provisioner.verb.counters.cacheHits, hits + 1, `a cache hit for ${JSON.stringify(request)}`);
    }
  });
});
