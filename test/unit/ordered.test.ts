import { test, describe } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { LEAF, OrderedSet, STRING_ORDER } from "../../src/projections/store/ordered.js";

/** Every item from `after` (exclusive unless inclusive) on, read with a cursor. */
function from(s: OrderedSet<string>, after: string | undefined, inclusive = false): string[] {
  const out: string[] = [];
  const c = s.seek(after, inclusive);
  for (let x = s.at(c); x !== undefined; x = s.at(c)) {
    out.push(x);
    s.advance(c);
  }
  return out;
}

describe("OrderedSet", () => {
  test("keeps keys in code-unit order whatever order they come in", () => {
    const s = new OrderedSet(STRING_ORDER);
    for (const k of ["m", "a", "z", "b", "A", "é", "0"]) s.insert(k, k);
    assert.deepEqual(s.keys(), ["0", "A", "a", "b", "m", "z", "é"]);
    assert.equal(s.size, 7);
  });

  test("remove says whether the key was there and keeps the rest in order", () => {
    const s = new OrderedSet(STRING_ORDER);
    for (const k of ["a", "b", "c"]) s.insert(k, k);
    assert.equal(s.remove("b"), true);
    assert.equal(s.remove("b"), false);
    assert.equal(s.remove("zz"), false);
    assert.deepEqual(s.keys(), ["a", "c"]);
    assert.equal(s.size, 2);
  });

  test("seek finds the first key after (or at) a probe, across leaves", () => {
    const s = new OrderedSet(STRING_ORDER);
    const keys = Array.from({ length: LEAF * 3 }, (_, i) => `k${String(i).padStart(5, "0")}`);
    for (const k of [...keys].reverse()) s.insert(k, k);
    assert.deepEqual(s.keys(), keys);
    assert.deepEqual(from(s, undefined), keys);
    assert.deepEqual(from(s, keys[LEAF]), keys.slice(LEAF + 1));
    assert.deepEqual(from(s, keys[LEAF], true), keys.slice(LEAF));
    assert.deepEqual(from(s, "k00100x"), keys.slice(101), "a probe between two keys");
    assert.deepEqual(from(s, "zzz"), []);
    assert.deepEqual(from(s, ""), keys);
  });

  test("emptied leaves are dropped and the set stays usable", () => {
    const s = new OrderedSet(STRING_ORDER);
    const keys = Array.from({ length: LEAF * 2 + 7 }, (_, i) => `k${String(i).padStart(5, "0")}`);
    for (const k of keys) s.insert(k, k);
    for (const k of keys) assert.ok(s.remove(k));
    assert.equal(s.size, 0);
    assert.deepEqual(from(s, undefined), []);
    s.insert("x", "x");
    assert.deepEqual(s.keys(), ["x"]);
  });

  test("an insert compares a logarithm of the keys: the same few dozen at 10k and at 1M", () => {
    const comparesPerInsert = (n: number): number => {
      let compares = 0;
      const s = new OrderedSet<string>({ compare: (k, item) => (compares++, STRING_ORDER.compare(k, item)), keyOf: (x) => x });
      for (let i = 0; i < n; i++) s.insert(`a${String(i * 2).padStart(8, "0")}`, `a${String(i * 2).padStart(8, "0")}`);
      compares = 0;
      const probes = 2000;
      for (let i = 0; i < probes; i++) {
        const k = `a${String(((i * 7919) % n) * 2 + 1).padStart(8, "0")}`;
        s.insert(k, k);
      }
      return compares / probes;
    };
    const small = comparesPerInsert(10_000);
    const large = comparesPerInsert(1_000_000);
    // Within a leaf: log2(LEAF) + 1 item compares, plus up to 2 to try the last insert's place first, whatever the size (leaves are found by their first keys).
    assert.ok(small <= Math.log2(LEAF) + 3, `${small} compares per insert at 10k`);
    assert.ok(large <= Math.log2(LEAF) + 3, `${large} compares per insert at 1M`);
  });

  test("keys that come in order after the last insert cost two comparisons each", () => {
    let compares = 0;
    const s = new OrderedSet<string>({ compare: (k, item) => (compares++, STRING_ORDER.compare(k, item)), keyOf: (x) => x });
    for (let n = 0; n < 200; n++) s.insert(`n${String((n * 7919) % 200).padStart(3, "0")}.a`, `n${String((n * 7919) % 200).padStart(3, "0")}.a`);
    compares = 0;
    // Each node's further keys, in order, right after its first: a node writing its keys together.
    for (let n = 0; n < 200; n++)
      for (let k = 0; k < 50; k++) {
        const key = `n${String(n).padStart(3, "0")}.b${String(k).padStart(2, "0")}`;
        s.insert(key, key);
      }
    assert.ok(compares / (200 * 50) < 2.5, `${compares / (200 * 50)} compares per insert`);
    assert.deepEqual(s.keys(), [...s.keys()].sort());
  });

  test("property: ascending runs interleaved with removals stay in order (the last-insert shortcut)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 1200 }), fc.boolean()), { maxLength: 12 }), (runs) => {
        const s = new OrderedSet(STRING_ORDER);
        const model = new Set<string>();
        for (const [prefix, length, removeSome] of runs) {
          for (let i = 0; i < length; i++) {
            const k = `p${String(prefix).padStart(2, "0")}.${String(i).padStart(5, "0")}`;
            if (!model.has(k)) {
              model.add(k);
              s.insert(k, k);
            }
            if (removeSome && i % 7 === 3) {
              s.remove(k);
              model.delete(k);
            }
          }
        }
        assert.deepEqual(s.keys(), [...model].sort());
      }),
      { numRuns: 200 },
    );
  });

  test("keys that come node by node (a snapshot, a rollout) fill the leaves to over three quarters, not half, and stay in order", () => {
    const s = new OrderedSet(STRING_ORDER);
    const keys: string[] = [];
    // As the bench loads them: node after node (n0, n1, … n1999: not code-unit order), each node's keys across its modules.
    for (let n = 0; n < 2000; n++) for (let k = 0; k < 100; k++) keys.push(`n${n}.m${k % 10}.config.k${k}`);
    for (const k of keys) s.insert(k, k);
    assert.deepEqual(s.keys(), [...keys].sort());
    const leaves = (s as unknown as { leaves: unknown[][] }).leaves;
    const fill = keys.length / (leaves.length * LEAF);
    assert.ok(fill > 0.75, `leaves ${(fill * 100).toFixed(0)} % full on average`);
    assert.ok(leaves.every((l) => l.length >= 1 && l.length <= LEAF));
  });

  test("property: inserts in runs at random places (clusters) keep every key in order, every seek right, every leaf within bounds", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 1, max: 400 })), { minLength: 1, maxLength: 30 }), (runs) => {
        const s = new OrderedSet(STRING_ORDER);
        const model = new Set<string>();
        for (const [prefix, length] of runs) {
          for (let i = 0; i < length; i++) {
            const k = `p${String(prefix).padStart(2, "0")}.${String(i).padStart(4, "0")}`;
            if (!model.has(k)) {
              model.add(k);
              s.insert(k, k);
            }
          }
        }
        const sorted = [...model].sort();
        assert.deepEqual(s.keys(), sorted);
        for (const probe of ["p00.0000", "p50.0200", "p99.9999", sorted[sorted.length >> 1] as string]) {
          assert.deepEqual(
            from(s, probe, true),
            sorted.filter((k) => k >= probe),
          );
        }
        const leaves = (s as unknown as { leaves: unknown[][] }).leaves;
        assert.ok(leaves.every((l) => l.length >= 1 && l.length <= LEAF));
      }),
      { numRuns: 200 },
    );
  });

  test("property: any sequence of inserts and removes matches a sorted array, and every seek agrees", () => {
    const key = fc.string({ unit: fc.constantFrom("a", "b", "c", ".", "z", "0"), maxLength: 5 });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), key), { maxLength: 3000, size: "large" }), fc.array(key, { maxLength: 10 }), (ops, probes) => {
        const s = new OrderedSet(STRING_ORDER);
        const model = new Set<string>();
        for (const [add, k] of ops) {
          if (add && !model.has(k)) {
            model.add(k);
            s.insert(k, k);
          } else if (!add) assert.equal(s.remove(k), model.delete(k));
        }
        const sorted = [...model].sort();
        assert.deepEqual(s.keys(), sorted);
        assert.equal(s.size, sorted.length);
        for (const p of probes) {
          assert.deepEqual(
            from(s, p),
            sorted.filter((k) => k > p),
          );
          assert.deepEqual(
            from(s, p, true),
            sorted.filter((k) => k >= p),
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});
