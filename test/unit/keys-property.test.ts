import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { TOKEN_RE, decodeName, encodeName, parseAppliedKey, parseCollectKey, parseNeedsKey } from "mesh-provisioner-client/keys";

const RUNS = 2000;
/** The token rule of a NATS KV key, and nats.js's rule for a whole KV key. */
const KV_TOKEN = /^[-/_=a-zA-Z0-9]+$/;
const NATSJS_KEY = /^[-/=.\w]+$/;

/** Non-empty names over all of Unicode (whole code points, so no lone surrogates). */
const names = fc.oneof(
  fc.string({ unit: "binary", minLength: 1 }),
  fc.string({ unit: "grapheme", minLength: 1 }),
  fc.string({ unit: "binary-ascii", minLength: 1 }),
);

/** Strings made of plain characters, "=" and near-miss escapes: what decodeName must survive. */
const escapeLike = fc
  .array(
    fc.oneof(
      fc.constantFrom("a", "Z", "0", "-", "_", "/", "=", ".", " ", "é", "g", "G"),
      fc.integer({ min: 0, max: 255 }).map((b) => "=" + b.toString(16).toUpperCase().padStart(2, "0")),
      fc.integer({ min: 0, max: 255 }).map((b) => "=" + b.toString(16).padStart(2, "0")),
      fc.string({ unit: "binary", maxLength: 3 }),
      // canonical escapes of whole code points, so that many samples are accepted
      fc.string({ unit: "binary", minLength: 1, maxLength: 2 }).map(encodeName),
      fc.string({ unit: "binary", minLength: 1, maxLength: 2 }).map(encodeName),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));

/** Byte strings mixing random bytes with the UTF-8 of whole code points (about half are valid UTF-8). */
const utf8ishBytes = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 255 }).map((b) => [b]),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).map((c) => [...new TextEncoder().encode(c)]),
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => Uint8Array.from(parts.flat()));

test("every well-formed name round-trips through encodeName and decodeName", () => {
  fc.assert(
    fc.property(names, (n) => {
      assert.deepEqual(decodeName(encodeName(n)), { ok: true, name: n });
    }),
    { numRuns: RUNS },
  );
});

test("every encoded name is a valid NATS KV key token, also inside a collect key", () => {
  fc.assert(
    fc.property(names, (n) => {
      const enc = encodeName(n);
      assert.match(enc, KV_TOKEN);
      const key = `n1.${enc}.c`;
      assert.match(key, NATSJS_KEY);
      assert.ok(key.split(".").every((t) => t.length > 0));
      assert.deepEqual(parseCollectKey(key), { ok: true, fields: { node: "n1", collection: n, contributor: "c" } });
    }),
    { numRuns: RUNS },
  );
});

test("any spelling decodeName accepts is the canonical one: it re-encodes to itself", () => {
  fc.assert(
    fc.property(escapeLike, (s) => {
      const d = decodeName(s);
      if (d.ok) assert.equal(encodeName(d.name), s);
    }),
    { numRuns: RUNS },
  );
});

test("decodeName never throws and always says why it refuses", () => {
  fc.assert(
    fc.property(fc.oneof(escapeLike, fc.string({ unit: "binary" }), fc.string()), (s) => {
      const d = decodeName(s);
      if (!d.ok) assert.ok(d.reason.length > 0);
    }),
    { numRuns: RUNS },
  );
});

test("random byte strings written as escapes decode exactly when they are UTF-8", () => {
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  fc.assert(
    fc.property(utf8ishBytes, (bytes) => {
      // The canonical spelling of these bytes: escapes only where a byte needs one.
      const s = [...bytes]
        .map((b) => (/[A-Za-z0-9_/-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : "=" + b.toString(16).toUpperCase().padStart(2, "0")))
        .join("");
      let expected: string | null;
      try {
        expected = strict.decode(bytes);
      } catch {
        expected = null;
      }
      const d = decodeName(s);
      if (expected === null) assert.equal(d.ok, false);
      else {
        assert.deepEqual(d, { ok: true, name: expected });
        assert.equal(encodeName(expected), s);
      }
    }),
    { numRuns: RUNS },
  );
});

/** Keys of 0-5 tokens made of plain characters, dots, spaces, "=" escapes and non-ASCII. */
const keyLike = fc
  .array(fc.oneof(fc.constantFrom("n1", "web", "", "a b", "=", "=3A", "=3a", "é", "*", "x=2Ey"), fc.string({ unit: "binary-ascii" })), {
    minLength: 1,
    maxLength: 5,
  })
  .map((tokens) => tokens.join("."));

test("the shape checks accept exactly the keys whose tokens are all plain and of the right count", () => {
  fc.assert(
    fc.property(keyLike, (key) => {
      const t = key.split(".");
      const plain = t.every((x) => TOKEN_RE.test(x));
      const needs = parseNeedsKey(key);
      assert.equal(needs.ok, plain && t.length === 4);
      if (needs.ok) assert.deepEqual(needs.fields, { node: t[0], module: t[1], kind: t[2], name: t[3] });
      const applied = parseAppliedKey(key);
      assert.equal(applied.ok, plain && t.length === 2);
      if (applied.ok) assert.deepEqual(applied.fields, { node: t[0], module: t[1] });
      const collect = parseCollectKey(key);
      const d = t.length === 3 ? decodeName(t[1]!) : null;
      assert.equal(collect.ok, t.length === 3 && TOKEN_RE.test(t[0]!) && TOKEN_RE.test(t[2]!) && d !== null && d.ok);
      if (collect.ok && d?.ok) assert.deepEqual(collect.fields, { node: t[0], collection: d.name, contributor: t[2] });
    }),
    { numRuns: RUNS },
  );
});
