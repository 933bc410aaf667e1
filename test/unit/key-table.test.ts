import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { hashKey, KeyTable } from "../../src/projections/store/key-table.js";

/** Slots are indexes into `keys`; `hashes` can be forced to collide. */
function table(keys: string[], hash: (k: string) => number): KeyTable {
  return new KeyTable({ keyIs: (slot, key) => keys[slot] === key, hashOf: (slot) => hash(keys[slot] as string) });
}

test("finds, adds and deletes keys, growing past its first size", () => {
  const keys = Array.from({ length: 1000 }, (_, i) => `n${i}.m.config.k`);
  const t = table(keys, hashKey);
  keys.forEach((k, i) => t.add(i, hashKey(k)));
  assert.equal(t.size, 1000);
  keys.forEach((k, i) => assert.equal(t.get(k), i));
  assert.equal(t.get("absent"), -1);
  assert.equal(t.delete(keys[10] as string), 10);
  assert.equal(t.delete(keys[10] as string), -1);
  assert.equal(t.get(keys[10] as string), -1);
  assert.equal(t.size, 999);
});

test("room reserved for n keys up front: adding them never grows the table, and every one is found", () => {
  const keys = Array.from({ length: 5000 }, (_, i) => `n${i}.m.config.k`);
  const t = table(keys, hashKey);
  t.add(0, hashKey(keys[0] as string));
  t.reserve(keys.length - 1);
  const cap = t.capacity;
  assert.ok(cap >= 2 * keys.length && cap < 4 * keys.length, `capacity ${cap} for ${keys.length} keys`);
  keys.forEach((k, i) => i > 0 && t.add(i, hashKey(k)));
  assert.equal(t.capacity, cap, "no growth while adding what was reserved");
  keys.forEach((k, i) => assert.equal(t.get(k), i));
});

test("property: with heavy collisions, any sequence of adds and deletes agrees with a Map", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 200 })), { maxLength: 2000, size: "large" }),
      fc.integer({ min: 1, max: 8 }),
      (ops, buckets) => {
        const keys = Array.from({ length: 201 }, (_, i) => `k${i}`);
        // Few distinct hashes: long probe runs, wrap-around and backward shifts get exercised.
        const t = table(keys, (k) => hashKey(k) % buckets);
        const model = new Map<string, number>();
        for (const [add, i] of ops) {
          const k = keys[i] as string;
          const h = hashKey(k) % buckets;
          if (add && !model.has(k)) {
            model.set(k, i);
            t.add(i, h);
          } else if (!add) {
            assert.equal(t.delete(k, h), model.has(k) ? i : -1);
            model.delete(k);
          }
        }
        assert.equal(t.size, model.size);
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i] as string;
          assert.equal(t.get(k, hashKey(k) % buckets), model.has(k) ? i : -1);
        }
      },
    ),
    { numRuns: 500 },
  );
});
