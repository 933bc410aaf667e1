import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startStack, type Stack } from "../helpers/stack.js";
import { askOk, put } from "../helpers/verb-pages.js";
import { encodeName } from "mesh-provisioner-client/keys";
import { mulberry32 } from "../../chaos/rng.js";

/** A random name of 1-12 code points from several scripts and planes (never a lone surrogate). */
function randomName(rand: () => number): string {
  const ranges: [number, number][] = [
    [0x21, 0x7e], // ASCII punctuation, digits, letters
    [0xa1, 0x24f], // Latin-1 and Latin Extended
    [0x391, 0x3c9], // Greek
    [0x4e00, 0x4fff], // CJK
    [0xac00, 0xacff], // Hangul
    [0x1f300, 0x1f5ff], // pictographs (astral: surrogate pairs in JS)
  ];
  const n = 1 + Math.floor(rand() * 12);
  let s = "";
  for (let i = 0; i < n; i++) {
    const [lo, hi] = ranges[Math.floor(rand() * ranges.length)] as [number, number];
    s += String.fromCodePoint(lo + Math.floor(rand() * (hi - lo + 1)));
  }
  return s;
}

// A seeded generator (the chaos run's), so a failure names a name that can be reproduced.
const SEED = Number(process.env["ESCAPING_SEED"] ?? Date.now() % 1_000_000);
const RANDOM = randomName(mulberry32(SEED));

/** Collection name -> its escaped token as written by a node's client. */
const NAMES: readonly (readonly [string, string])[] = [
  ["shell:zsh:normal", "shell=3Azsh=3Anormal"],
  ["a.b", "a=2Eb"],
  ["x=y", "x=3Dy"],
  ["café", "caf=C3=A9"],
  [RANDOM, encodeName(RANDOM)],
];

describe(`collection names written with =hex escaping (random name ${JSON.stringify(RANDOM)}, ESCAPING_SEED=${SEED})`, () => {
  let stack: Stack;
  let last = 0;
  const revisionOf = new Map<string, number>();

  before(async () => {
    stack = await startStack();
    const kv = await stack.kv("collect");
    for (const [name, escaped] of NAMES) {
      const key = `n1.${escaped}.c1`;
      last = await put(kv, key, JSON.stringify({ name }));
      revisionOf.set(name, last);
    }
  });
  after(async () => {
    await stack?.stop();
  });

  test("the escapes in the contract are spelled as encodeName spells them", () => {
    for (const [name, escaped] of NAMES) assert.equal(encodeName(name), escaped, name);
  });

  test("every entry is answered with its decoded collection name, and none is out of shape", async () => {
    const r = await askOk(stack, { what: "collect", minRevision: last });
    assert.deepEqual(r.body.outOfShape, []);
    const byKey = new Map<string, { collection: string; node: string; contributor: string; value: unknown }>(
      r.body.entries.map((e: { key: string }) => [e.key, e]),
    );
    assert.equal(byKey.size, NAMES.length);
    for (const [name, escaped] of NAMES) {
      const e = byKey.get(`n1.${escaped}.c1`);
      assert.ok(e, `entry for ${escaped}`);
      assert.equal(e.collection, name);
      assert.equal(e.node, "n1");
      assert.equal(e.contributor, "c1");
      assert.deepEqual(e.value, { name });
    }
  });

  test('{"what":"collect","collection":"shell:zsh:normal"} narrows by the name', async () => {
    const r = await askOk(stack, { what: "collect", collection: "shell:zsh:normal" });
    assert.deepEqual(
      r.body.entries.map((e: { key: string; collection: string }) => [e.key, e.collection]),
      [["n1.shell=3Azsh=3Anormal.c1", "shell:zsh:normal"]],
    );
  });

  test("each collection, including the random one, is found by its name alone", async () => {
    for (const [name, escaped] of NAMES) {
      const r = await askOk(stack, { what: "collect", collection: name });
      assert.deepEqual(
        r.body.entries.map((e: { key: string }) => e.key),
        [`n1.${escaped}.c1`],
        name,
      );
      assert.equal(r.body.entries[0].revision, revisionOf.get(name));
    }
  });

  test("narrowing by the escaped form finds nothing", async () => {
    for (const [name, escaped] of NAMES) {
      if (escaped === name) continue;
      const r = await askOk(stack, { what: "collect", collection: escaped });
      assert.deepEqual(r.body.entries, [], `collection ${JSON.stringify(escaped)} is a name nobody wrote`);
      assert.deepEqual(r.body.outOfShape, []);
    }
  });

  test("a name that looks like a wildcard is only a name: it narrows to nothing", async () => {
    for (const name of ["*", ">", "shell*"]) {
      const r = await askOk(stack, { what: "collect", collection: name });
      assert.deepEqual(r.body.entries, [], name);
    }
  });
});
