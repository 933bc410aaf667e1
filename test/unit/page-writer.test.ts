import { test, describe } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { PageWriter } from "../../src/verb/page-writer.js";
import { needsSpec } from "../../src/projections/bucket-specs.js";
import { parseNeedsKey } from "mesh-provisioner-client/keys";

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

  test("any mix of texts, bytes, copies of other buffers and truncations gives exactly the bytes written, in order", () => {
    const source = Buffer.from("abcdefghijklmnopqrstuvwxyz0123456789".repeat(40));
    const op = fc.oneof(
      fc.record({ text: fc.string({ unit: "grapheme", maxLength: 3000 }) }),
      fc.record({ byte: fc.integer({ min: 0x20, max: 0x7e }) }),
      fc.record({ from: fc.nat(source.length), n: fc.nat(400) }),
      fc.record({ back: fc.nat(50) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300, size: "medium" }), (ops) => {
        const w = new PageWriter();
        let model = Buffer.alloc(0);
        for (const o of ops) {
          if ("text" in o) {
            w.write(o.text);
            model = Buffer.concat([model, Buffer.from(o.text)]);
          } else if ("byte" in o) {
            w.byte(o.byte);
            model = Buffer.concat([model, Buffer.from([o.byte])]);
          } else if ("from" in o) {
            const end = Math.min(source.length, o.from + o.n);
            assert.equal(w.copy(source, o.from, end), end - o.from);
            model = Buffer.concat([model, source.subarray(o.from, end)]);
          } else {
            const mark = Math.max(0, w.length - o.back);
            w.truncate(mark);
            model = model.subarray(0, mark);
          }
          assert.equal(w.length, model.length);
        }
        assert.deepEqual(w.finish("[", "]", Buffer.alloc), Buffer.concat([Buffer.from("["), model, Buffer.from("]")]));
        assert.equal(w.finish("", "", Buffer.alloc).length, 0, "finish leaves the writer empty for the next page");
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
