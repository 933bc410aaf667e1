import { test } from "node:test";
import assert from "node:assert/strict";
import { ProjectionStore } from "../../src/projections/store/store.js";
import { needsSpec } from "../../src/projections/bucket-specs.js";
import { publishRebuilt, revisionsOf } from "../../src/projections/rebuild-diff.js";
import type { Change } from "../../src/projections/store/view.js";

const json = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));

function storeOf(puts: [key: string, revision: number][], lastSeq: number): ProjectionStore {
  const s = new ProjectionStore(needsSpec);
  for (const [key, revision] of puts) s.apply("PUT", key, revision, json({ default: revision }));
  s.markSynced(lastSeq);
  return s;
}

test("after a rebuild, only what differs is published: deletes of the keys gone, puts of those new or at another revision", () => {
  // Before: a, b, c in shape and one key out of shape; after: a as it was, b rewritten, c gone, d new, the out-of-shape key gone, another one new.
  const old = storeOf(
    [
      ["n1.m.config.a", 1],
      ["n1.m.config.b", 2],
      ["n1.m.config.c", 3],
      ["n1.m.config", 4],
    ],
    4,
  );
  const rebuilt = storeOf(
    [
      ["n1.m.config.a", 1],
      ["n1.m.config.b", 5],
      ["n1.m.config.d", 6],
      ["n2.m.config", 7],
    ],
    9,
  );
  const before = revisionsOf(old);
  assert.deepEqual([...before].sort(), [
    ["n1.m.config", 4],
    ["n1.m.config.a", 1],
    ["n1.m.config.b", 2],
    ["n1.m.config.c", 3],
  ]);

  const published: Change[] = [];
  publishRebuilt(before, rebuilt, (c) => published.push(c));
  assert.deepEqual(
    published.map((c) => `${c.op} ${c.key} ${c.revision}${c.outOfShape ? " out of shape" : ""}`),
    ["delete n1.m.config.c 9", "delete n1.m.config 9", "put n1.m.config.b 5", "put n1.m.config.d 6", "put n2.m.config 7 out of shape"],
  );
  const d = published.find((c) => c.key === "n1.m.config.d");
  assert.equal(d?.entry?.key, "n1.m.config.d", "a put carries its entry");
  assert.equal(published.find((c) => c.key === "n2.m.config")?.newlyOutOfShape, true);
});
