import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ProjectionStore } from "../../src/projections/store/store.js";
import { collectSpec, needsSpec } from "../../src/projections/bucket-specs.js";
import { valueFragment } from "../../src/projections/store/spec.js";
import { buildPage } from "../../src/verb/answer.js";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The entry JSON as the verb has always answered it: value text as is when JSON.parse takes it, else as a string. */
function expected(key: string, fields: [string, string][], value: Uint8Array, revision: number): unknown {
  const head = Object.fromEntries([["key", key], ...fields]);
  return { ...head, value: JSON.parse(valueFragment(dec.decode(value))), revision };
}

const values = fc.oneof(
  fc.json().map((j) => enc.encode(j)),
  fc.string().map((s) => enc.encode(s)),
  fc.uint8Array({ maxLength: 40 }),
  fc.integer({ min: 0, max: 3000 }).map((n) => enc.encode(JSON.stringify({ pad: "x".repeat(n) }))),
);

test("property: the store after any puts and deletes holds exactly the last value of each key, in key order, while its segments are compacted", () => {
  let compacted = 0;
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.option(values, { freq: 4 })), { minLength: 1, maxLength: 600, size: "large" }), (ops) => {
      // 4 KiB segments and hundreds of operations a run ("large": fast-check's
      // default size draws ~6): most runs fill and compact several.
      const s = new ProjectionStore(needsSpec, { segmentBytes: 4096 });
      const model = new Map<string, { value: Uint8Array; revision: number }>();
      let rev = 0;
      for (const [i, value] of ops) {
        const key = `n${i % 7}.m${i % 3}.config.k${i}`;
        rev++;
        if (value === null) {
          s.apply("DEL", key, rev, new Uint8Array());
          model.delete(key);
        } else {
          s.apply("PUT", key, rev, value);
          model.set(key, { value, revision: rev });
        }
      }
      s.markSynced(rev);
      const keys = [...model.keys()].sort();
      assert.deepEqual(s.entryKeys(), keys);
      assert.equal(s.size, keys.length);
      for (const [key, { value, revision }] of model) {
        const [node, module, kind, name] = key.split(".") as [string, string, string, string];
        const want = expected(
          key,
          [
            ["node", node],
            ["module", module],
            ["kind", kind],
            ["name", name],
          ],
          value,
          revision,
        );
        assert.deepEqual(JSON.parse(s.get(key)?.json ?? "null"), want, key);
      }
      // Every node's answer is the model's entries of that node, in order.
      for (let n = 0; n < 7; n++) {
        const page = JSON.parse(buildPage({ what: "needs", filters: { node: `n${n}` } }, { store: s, maxBytes: 1 << 24 }).body) as {
          entries: { key: string }[];
        };
        assert.deepEqual(
          page.entries.map((e) => e.key),
          keys.filter((k) => k.startsWith(`n${n}.`)),
        );
      }
      compacted += s.compactedBytes;
    }),
    { numRuns: 300 },
  );
  assert.ok(compacted > 0, "some runs compacted a segment");
});

test("property: collect entries keep their decoded collection name through updates, deletes and compaction", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.constantFrom("shell", "shell=3Azsh", "caf=C3=A9", "a=2Eb"), fc.integer({ min: 0, max: 5 }), fc.boolean()), {
        maxLength: 300,
        size: "medium",
      }),
      (ops) => {
        const s = new ProjectionStore(collectSpec, { segmentBytes: 1024 });
        const model = new Map<string, number>();
        let rev = 0;
        for (const [coll, c, put] of ops) {
          const key = `n1.${coll}.c${c}`;
          rev++;
          if (put) {
            s.apply("PUT", key, rev, enc.encode(`{"r":${rev}}`));
            model.set(key, rev);
          } else {
            s.apply("DEL", key, rev, new Uint8Array());
            model.delete(key);
          }
        }
        assert.deepEqual(s.entryKeys(), [...model.keys()].sort());
        for (const [key, r] of model) {
          const e = JSON.parse(s.get(key)?.json ?? "null") as Record<string, unknown>;
          assert.equal(e["collection"], s.get(key)?.fields["collection"]);
          assert.deepEqual(e["value"], { r });
        }
      },
    ),
    { numRuns: 300 },
  );
});

test("property: paging any store with any limit and reply size gives every entry once, in order, each as stored, with answered:false where its kind is unanswered", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.integer({ min: 0, max: 80 }), fc.constantFrom("config", "secret", "port"), fc.option(fc.integer({ min: 0, max: 400 }), { freq: 5 })),
        { minLength: 1, maxLength: 400, size: "medium" },
      ),
      fc.subarray(["config", "secret", "port"]),
      fc.integer({ min: 1, max: 30 }),
      fc.integer({ min: 600, max: 8000 }),
      fc.constantFrom(undefined, "n0", "n3"),
      (ops, answeredKinds, limit, maxBytes, node) => {
        const s = new ProjectionStore(needsSpec, { segmentBytes: 2048 });
        const model = new Map<string, { pad: number; revision: number }>();
        let rev = 0;
        for (const [i, kind, pad] of ops) {
          const key = `n${i % 5}.m${i % 4}.${kind}.k${i}`;
          rev++;
          if (pad === null) {
            s.apply("DEL", key, rev, new Uint8Array());
            model.delete(key);
          } else {
            s.apply("PUT", key, rev, enc.encode(JSON.stringify({ pad: "x".repeat(pad) })));
            model.set(key, { pad, revision: rev });
          }
        }
        s.markSynced(rev);
        const want = [...model.entries()].filter(([k]) => node === undefined || k.startsWith(`${node}.`)).sort(([a], [b]) => (a < b ? -1 : 1));
        const got: Record<string, unknown>[] = [];
        let after: string | undefined;
        for (let pages = 0; pages < 1000; pages++) {
          const page = buildPage(
            { what: "needs", filters: node === undefined ? {} : { node }, limit, after },
            { store: s, maxBytes, isAnswered: (k) => answeredKinds.includes(k) },
          );
          assert.ok(page.bytes.length <= maxBytes, `a page of ${page.bytes.length} bytes over ${maxBytes}`);
          const body = JSON.parse(page.body) as { entries: Record<string, unknown>[]; next?: string };
          assert.ok(body.entries.length <= limit);
          got.push(...body.entries);
          if (body.next === undefined) break;
          after = body.next;
        }
        assert.deepEqual(
          got.map((e) => e["key"]),
          want.map(([k]) => k),
        );
        for (const [i, e] of got.entries()) {
          const [key, { pad, revision }] = want[i] as [string, { pad: number; revision: number }];
          if (e["valueTooLarge"] === true) continue; // a single entry over maxBytes: answered without its value
          assert.deepEqual(e["value"], { pad: "x".repeat(pad) }, key);
          assert.equal(e["revision"], revision);
          assert.equal(e["answered"], answeredKinds.includes(key.split(".")[2] as string) ? undefined : false, key);
        }
      },
    ),
    { numRuns: 300 },
  );
});
