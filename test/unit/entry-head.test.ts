import { test, describe } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { StringHead, TokenHead } from "../../src/projections/store/entry-head.js";
import { entryHead } from "../../src/projections/store/spec.js";
import { wholeDigits, writeWhole } from "../../src/bytes.js";

/** A plain token: what a key in shape is made of. */
const token = fc.stringMatching(/^[A-Za-z0-9_\-/=]{1,24}$/);

describe("TokenHead: an entry's head written from its key's tokens", () => {
  test("writes exactly what entryHead builds as a string, at any offset, and says its length first", () => {
    const fieldNames = fc.constantFrom(["node", "module"], ["node", "module", "kind", "name"], ["only"]);
    fc.assert(
      fc.property(
        fieldNames.chain((names) => fc.tuple(fc.constant(names), fc.array(token, { minLength: names.length, maxLength: names.length }), fc.nat(64))),
        ([names, tokens, at]) => {
          const key = tokens.join(".");
          const expected = entryHead(
            key,
            names.map((n, i) => [n, tokens[i] as string]),
          );
          const head = new TokenHead(names);
          assert.equal(head.bytes(key), Buffer.byteLength(expected));
          const buf = Buffer.alloc(at + expected.length + 8, 0x7e);
          assert.equal(head.write(buf, at, key), expected.length);
          assert.equal(buf.toString("latin1", at, at + expected.length), expected);
          assert.equal(buf[at - 1] ?? 0x7e, 0x7e, "nothing written before it");
          assert.equal(buf[at + expected.length], 0x7e, "nothing written after it");
        },
      ),
    );
  });

  test("a needs key's head, spelled out", () => {
    const buf = Buffer.alloc(200);
    const n = new TokenHead(["node", "module", "kind", "name"]).write(buf, 0, "n1.web.config.port");
    assert.equal(buf.toString("latin1", 0, n), '{"key":"n1.web.config.port","node":"n1","module":"web","kind":"config","name":"port","value":');
  });
});

describe("StringHead: an entry's head built as a string", () => {
  test("writes its builder's text as UTF-8 and measures it in bytes", () => {
    const head = new StringHead((key, f) => entryHead(key, [["collection", f["collection"] as string]], "collection"));
    const fields = { collection: 'clés "ssh"' };
    const expected = entryHead("n1.cl=c3=a9s.web", [["collection", fields.collection]], "collection");
    assert.equal(head.bytes("n1.cl=c3=a9s.web", fields), Buffer.byteLength(expected));
    const buf = Buffer.alloc(200);
    assert.equal(head.write(buf, 3, "n1.cl=c3=a9s.web", fields), Buffer.byteLength(expected));
    assert.equal(buf.toString("utf8", 3, 3 + Buffer.byteLength(expected)), expected);
  });
});

describe("writeWhole: a revision's digits without its string", () => {
  test("writes what String(n) spells, for any whole number up to 2^53", () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat(), fc.maxSafeNat(), fc.constantFrom(0, 9, 10, 99, 100, 2 ** 53)), (n) => {
        const buf = Buffer.alloc(24, 0x20);
        assert.equal(wholeDigits(n), String(n).length);
        assert.equal(writeWhole(buf, n, 2), String(n).length);
        assert.equal(buf.toString("latin1", 2, 2 + String(n).length), String(n));
        assert.equal(buf[1], 0x20);
      }),
    );
  });
});
