import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { NameCounts } from "../../src/overview/name-counts.js";

const snapshot = (c: NameCounts): [string, number][] => {
  const out: [string, number][] = [];
  c.forEach((k, n) => out.push([k, n]));
  return out.sort(([a], [b]) => (a < b ? -1 : 1));
};

test("property: any adds and removals count like a Map that drops zeros, past the small arrays too", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: -2, max: 2 })), { maxLength: 400, size: "large" }),
      fc.boolean(),
      (ops, clearMidway) => {
        const c = new NameCounts();
        const model = new Map<string, number>();
        ops.forEach(([i, delta], at) => {
          if (clearMidway && at === ops.length >> 1) {
            c.clear();
            model.clear();
          }
          const name = `m${i}`;
          c.add(name, delta);
          const n = (model.get(name) ?? 0) + delta;
          if (n === 0) model.delete(name);
          else model.set(name, n);
          assert.equal(c.get(name), model.get(name) ?? 0);
          assert.equal(c.has(name), model.has(name));
        });
        assert.equal(c.size, model.size);
        assert.deepEqual(
          snapshot(c),
          [...model].sort(([a], [b]) => (a < b ? -1 : 1)),
        );
      },
    ),
    { numRuns: 300 },
  );
});

test("a name counted back to zero is gone, and the others keep their counts", () => {
  const c = new NameCounts();
  c.add("web", 2);
  c.add("db", 1);
  c.add("cache", 3);
  c.add("web", -2);
  assert.equal(c.size, 2);
  assert.equal(c.has("web"), false);
  assert.deepEqual(snapshot(c), [
    ["cache", 3],
    ["db", 1],
  ]);
});
