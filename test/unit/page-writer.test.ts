import { test, describe } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { PageWriter } from "../../src/verb/page-writer.js";
import { needsSpec } from "../../src/projections/buckets.js";
import { parseNeedsKey } from "../../src/keys/mod.js";

describe("PageWriter: a page's bytes written once", () => {
  test("writes any text as UTF-8, growing past its first buffer, and returns each text's size in bytes", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme", maxLength: 40_000 }), { maxLength: 12 }), fc.string(), fc.string(), (parts, head, tail) => {
        const w = new PageWriter();
        for (const p of parts) assert.equal(w.write(p), Buffer.byteLength(p));
        const out = w.finish(head, tail, Buffer.alloc);
        assert.equal(out.toString("utf8"), head + parts.join("") + tail);
        assert.equal(out.length, Buffer.byteLength(head + parts.join("") + tail));
        assert.equal(w.length, 0, "finish leaves the writer empty for the next page");
      }),
      { numRuns: 300 },
    );
  });

  test("truncate takes back what was written after a mark", () => {
    const w = new PageWriter();
    w.write("[1");
    const mark = w.length;
    w.write(",2é");
    w.truncate(mark);
    w.write(",3");
    assert.equal(w.finish("", "]", Buffer.alloc).toString(), "[1,3]");
  });
});

describe("needsSpec.kindOf: the kind without building the fields", () => {
  const token = fc.stringMatching(/^[-/_=a-zA-Z0-9]{1,12}$/);
  test("equals the kind field of every in-shape needs key", () => {
    fc.assert(
      fc.property(token, token, token, token, (node, module, kind, name) => {
        const key = `${node}.${module}.${kind}.${name}`;
        const parsed = parseNeedsKey(key);
        assert.ok(parsed.ok);
        assert.equal(needsSpec.kindOf?.(key), parsed.fields.kind);
      }),
      { numRuns: 2000 },
    );
  });
});
