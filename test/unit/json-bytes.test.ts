import { test, describe } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { isJsonUtf8 } from "../../src/projections/store/json-bytes.js";

const enc = new TextEncoder();
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The rule it must match: the bytes decode as UTF-8 (no BOM stripped) and JSON.parse takes the text. */
function reference(bytes: Uint8Array): boolean {
  try {
    JSON.parse(strict.decode(bytes));
    return true;
  } catch {
    return false;
  }
}

const yes = ['{"a":1}', "[]", "{}", " 1 ", "-0.5e+10", '"x\\u00e9\\n"', "true", "null", "false", '{"a":[1,{"b":null}],"c":"é"}', "\t[ 1 , 2 ]\r\n", "0", "1E5"];
const no = [
  "",
  " ",
  "{",
  "}",
  "[1,]",
  '{"a":1,}',
  "01",
  "1.",
  ".5",
  "+1",
  "-",
  "1e",
  "tru",
  "nul",
  "'x'",
  '"a',
  '"\\x"',
  '"\\u12"',
  "{a:1}",
  "[1 2]",
  "1 2",
  '{"a" 1}',
  '{"a":}',
  "NaN",
  '"tab\there"',
  "[1]]",
  "{}{}",
];

describe("isJsonUtf8", () => {
  for (const t of yes) test(`takes ${JSON.stringify(t)}`, () => assert.equal(isJsonUtf8(enc.encode(t)), true));
  for (const t of no) test(`refuses ${JSON.stringify(t)}`, () => assert.equal(isJsonUtf8(enc.encode(t)), false));

  test("refuses bytes that are not UTF-8, and a leading BOM, even around valid JSON", () => {
    assert.equal(isJsonUtf8(Uint8Array.from([0x22, 0xff, 0x22])), false);
    assert.equal(isJsonUtf8(Uint8Array.from([0x22, 0xc0, 0xaf, 0x22])), false, "an overlong form");
    assert.equal(isJsonUtf8(Uint8Array.from([0x22, 0xed, 0xa0, 0x80, 0x22])), false, "an encoded surrogate");
    assert.equal(isJsonUtf8(Uint8Array.from([0xef, 0xbb, 0xbf, 0x31])), false, "a BOM before 1");
    assert.equal(isJsonUtf8(Uint8Array.from([0x22, 0xf0, 0x9f, 0x98, 0x80, 0x22])), true, "an emoji");
  });

  test("reads only its range of a larger buffer", () => {
    const b = enc.encode('xx{"a":1}yy');
    assert.equal(isJsonUtf8(b, 2, 9), true);
    assert.equal(isJsonUtf8(b, 2, 8), false);
  });

  test("deep nesting needs no recursion", () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    assert.equal(isJsonUtf8(enc.encode(deep)), true);
    assert.equal(isJsonUtf8(enc.encode(deep + "]")), false);
  });

  test("property: agrees with strict decoding + JSON.parse on JSON values, their mutations and random bytes", () => {
    const mutated = fc.tuple(fc.json(), fc.nat(), fc.integer({ min: 0, max: 255 })).map(([j, at, b]) => {
      const bytes = enc.encode(j);
      if (bytes.length > 0) bytes[at % bytes.length] = b;
      return bytes;
    });
    const truncated = fc.tuple(fc.json(), fc.nat()).map(([j, n]) => enc.encode(j).slice(0, n % (j.length + 1)));
    const sample = fc.oneof(
      fc.json().map((j) => enc.encode(j)),
      mutated,
      truncated,
      fc.uint8Array({ maxLength: 12 }),
      fc.string({ unit: fc.constantFrom("[", "]", "{", "}", ",", ":", '"', "1", "-", ".", "e", " ", "a", "\\", "u", "0") }).map((s) => enc.encode(s)),
    );
    fc.assert(
      fc.property(sample, (bytes) => {
        assert.equal(isJsonUtf8(bytes), reference(bytes), Buffer.from(bytes).toString("hex"));
      }),
      { numRuns: 20_000 },
    );
  });
});
