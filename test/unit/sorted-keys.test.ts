import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { SortedKeys, compareKeys, lowerBound } from "../../src/projections/sorted-keys.js";

/** A deterministic shuffle (LCG), so failures reproduce. */
function shuffled<T>(items: readonly T[], seed = 42): T[] {
  const a = [...items];
  let s = seed >>> 0;
  for (let i = a.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a;
}

const keysOf = (n: number): string[] => Array.from({ length: n }, (_, i) => `n${String(i).padStart(4, "0")}.m`);

describe("SortedKeys", () => {
  test("a bulk load in random order reads back in key order", () => {
    const all = keysOf(500);
    const s = new SortedKeys();
    for (const k of shuffled(all)) s.add(k, true);
    assert.equal(s.size, 500);
    assert.deepEqual([...s.view()], all);
  });

  test("keys added in place (not bulk) are kept in order at every step", () => {
    const s = new SortedKeys();
    const seen: string[] = [];
    for (const k of shuffled(keysOf(200), 7)) {
      s.add(k);
      seen.push(k);
      seen.sort();
      assert.deepEqual([...s.view()], seen);
    }
  });

  test("after a bulk load, in-place inserts land at their sorted place", () => {
    const s = new SortedKeys();
    for (const k of ["d", "b", "f", "a"]) s.add(k, true);
    assert.deepEqual([...s.view()], ["a", "b", "d", "f"]);
    s.add("c");
    s.add("e");
    s.add("0");
    s.add("z");
    assert.deepEqual([...s.view()], ["0", "a", "b", "c", "d", "e", "f", "z"]);
  });

  test("an in-place insert before the first read of a bulk load is still ordered", () => {
    const s = new SortedKeys();
    for (const k of ["m", "c", "x"]) s.add(k, true);
    s.add("a"); // not bulk, but the set is still unsorted
    assert.deepEqual([...s.view()], ["a", "c", "m", "x"]);
  });

  test("remove takes a key out in place and keeps the others ordered", () => {
    const s = new SortedKeys();
    for (const k of shuffled(["a", "b", "c", "d", "e"])) s.add(k, true);
    s.remove("c");
    assert.deepEqual([...s.view()], ["a", "b", "d", "e"]);
    s.remove("a");
    s.remove("e");
    assert.deepEqual([...s.view()], ["b", "d"]);
    assert.equal(s.size, 2);
  });

  test("removing an absent key changes nothing", () => {
    const s = new SortedKeys();
    for (const k of ["b", "d"]) s.add(k);
    s.remove("c");
    s.remove("a");
    s.remove("z");
    assert.deepEqual([...s.view()], ["b", "d"]);
  });

  test("remove during an unsorted bulk load removes the right key", () => {
    const s = new SortedKeys();
    for (const k of ["q", "b", "k"]) s.add(k, true);
    s.remove("q");
    assert.deepEqual([...s.view()], ["b", "k"]);
  });

  test("the set can be emptied and filled again in order", () => {
    const s = new SortedKeys();
    for (const k of ["b", "a"]) s.add(k, true);
    s.remove("a");
    s.remove("b");
    assert.equal(s.size, 0);
    assert.deepEqual([...s.view()], []);
    s.add("y");
    s.add("x");
    assert.deepEqual([...s.view()], ["x", "y"]);
  });

  test("mixed random inserts and removes match a reference sorted array", () => {
    const s = new SortedKeys();
    const ref = new Set<string>();
    let seed = 99;
    const rnd = (n: number): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed % n;
    };
    for (let step = 0; step < 2000; step++) {
      const k = `k${rnd(300)}`;
      if (ref.has(k)) {
        s.remove(k);
        ref.delete(k);
      } else {
        s.add(k, step < 500);
        ref.add(k);
      }
    }
    assert.deepEqual([...s.view()], [...ref].sort());
  });

  describe("startAfter", () => {
    const s = new SortedKeys();
    for (const k of ["b", "d", "f"]) s.add(k, true);

    test("undefined starts at the beginning", () => {
      assert.equal(s.startAfter(undefined), 0);
    });

    test("a present key starts strictly after it", () => {
      assert.equal(s.startAfter("b"), 1);
      assert.equal(s.startAfter("d"), 2);
      assert.equal(s.startAfter("f"), 3);
    });

    test("an absent key starts at the first key greater than it", () => {
      assert.equal(s.startAfter("a"), 0);
      assert.equal(s.startAfter("c"), 1);
      assert.equal(s.startAfter("e"), 2);
      assert.equal(s.startAfter("g"), 3);
      assert.equal(s.startAfter(""), 0);
      // a key that is a prefix of a present key sorts before it
      assert.equal(s.startAfter("d\u0000"), 2);
    });

    test("on an empty set every start is 0", () => {
      const e = new SortedKeys();
      assert.equal(e.startAfter(undefined), 0);
      assert.equal(e.startAfter("x"), 0);
    });

    test("startAfter sorts a pending bulk load first", () => {
      const b = new SortedKeys();
      for (const k of ["z", "a", "m"]) b.add(k, true);
      assert.equal(b.startAfter("a"), 1);
      assert.equal(b.view()[1], "m");
    });
  });

  test("order is plain code-unit order (upper case before lower, '.' before digits)", () => {
    const s = new SortedKeys();
    for (const k of ["a", "B", "n1.x", "n10", "n1/x", "A"]) s.add(k, true);
    assert.deepEqual([...s.view()], ["A", "B", "a", "n1.x", "n1/x", "n10"]);
  });
});

test("compareKeys orders by code unit and is 0 only for equal keys", () => {
  assert.equal(compareKeys("a", "b"), -1);
  assert.equal(compareKeys("b", "a"), 1);
  assert.equal(compareKeys("a", "a"), 0);
  assert.equal(compareKeys("Z", "a"), -1);
  assert.equal(compareKeys("a", "a.b"), -1);
});

test("lowerBound is the first index whose key is not less than the probe", () => {
  const arr = ["b", "d", "f"];
  assert.equal(lowerBound(arr, "a"), 0);
  assert.equal(lowerBound(arr, "b"), 0);
  assert.equal(lowerBound(arr, "c"), 1);
  assert.equal(lowerBound(arr, "f"), 2);
  assert.equal(lowerBound(arr, "g"), 3);
  assert.equal(lowerBound([], "x"), 0);
});
