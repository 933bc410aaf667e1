import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeName, encodeName } from "mesh-provisioner-client/keys";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";

/** The reason decodeName gives for a spelling it refuses. */
function reasonOf(escaped: string): string {
  const d = decodeName(escaped);
  assert.equal(d.ok, false, `${JSON.stringify(escaped)} should be refused`);
  return d.ok ? "" : d.reason;
}

const PROTOCOL_EXAMPLES: Array<[string, string]> = [
  ["shell:zsh:normal", "shell=3Azsh=3Anormal"],
  ["a.b", "a=2Eb"],
  ["x=y", "x=3Dy"],
  ["café", "caf=C3=A9"],
];

test("encodeName writes the contract's examples", () => {
  for (const [name, escaped] of PROTOCOL_EXAMPLES) assert.equal(encodeName(name), escaped);
});

test("decodeName reads the contract's examples back to their names", () => {
  for (const [name, escaped] of PROTOCOL_EXAMPLES) assert.deepEqual(decodeName(escaped), { ok: true, name });
});

test("encodeName leaves A-Z a-z 0-9 - _ / as they are and returns the same string", () => {
  const plain = "ABCXYZabcxyz0189-_/";
  assert.equal(encodeName(plain), plain);
  assert.deepEqual(decodeName(plain), { ok: true, name: plain });
});

test("encodeName escapes every other ASCII byte with upper-case hex", () => {
  assert.equal(encodeName(" "), "=20");
  assert.equal(encodeName("*>."), "=2A=3E=2E");
  assert.equal(encodeName("\u0000\n\u007f"), "=00=0A=7F");
  assert.equal(encodeName("a:b"), "a=3Ab");
});

test("encodeName writes 2-, 3- and 4-byte UTF-8 sequences", () => {
  assert.equal(encodeName("é"), "=C3=A9");
  assert.equal(encodeName("€"), "=E2=82=AC");
  assert.equal(encodeName("😀"), "=F0=9F=98=80");
  assert.equal(encodeName("\u{10FFFF}"), "=F4=8F=BF=BF");
  assert.equal(encodeName("\uFFFF"), "=EF=BF=BF");
});

test("a leading byte order mark is part of the name and survives the round trip", () => {
  assert.equal(encodeName("\uFEFFx"), "=EF=BB=BFx");
  assert.deepEqual(decodeName("=EF=BB=BFx"), { ok: true, name: "\uFEFFx" });
});

test("encodeName refuses an empty name with BAD_REQUEST", () => {
  assert.throws(
    () => encodeName(""),
    (e: unknown) => e instanceof ProvisionerError && e.kind === "BAD_REQUEST",
  );
});

test("encodeName refuses lone surrogates with BAD_REQUEST", () => {
  for (const s of ["\uD800", "a\uDC00", "\uD83Dx", "x\uDE00\uD83D"]) {
    assert.throws(
      () => encodeName(s),
      (e: unknown) => e instanceof ProvisionerError && e.kind === "BAD_REQUEST" && /lone surrogate/.test(e.message),
    );
  }
});

test("decodeName refuses an empty string", () => {
  assert.match(reasonOf(""), /empty/);
});

test("decodeName refuses characters outside A-Z a-z 0-9 - _ / = and names their position", () => {
  assert.match(reasonOf("a.b"), /^character 2 "\." \(U\+002E\) is not allowed.*write it as "=2E"$/);
  assert.match(reasonOf("a b"), /character 2 " "/);
  assert.match(reasonOf("café"), /character 4 "é" \(U\+00E9\).*"=C3=A9"/);
  assert.match(reasonOf("x😀"), /character 2 "😀" \(U\+1F600\)/);
  assert.match(reasonOf("*"), /character 1 "\*"/);
  assert.match(reasonOf("a\uD800"), /character 2 .*U\+D800/);
});

test("decodeName refuses '=' not followed by two hex digits", () => {
  const cases: Array<[string, string]> = [
    ["=", '"=" at character 1'],
    ["a=4", '"=4" at character 2'],
    ["=G1", '"=G1" at character 1'],
    ["x=y", '"=y" at character 2'],
    ["==3D", '"==3" at character 1'],
    ["=3\u00e9", '"=3\u00e9" at character 1'],
  ];
  for (const [s, prefix] of cases) {
    assert.equal(reasonOf(s), `${prefix}: "=" must be followed by two upper-case hex digits (write "=3D" for "=" itself)`);
  }
});

test("decodeName refuses lower-case hex and says which spelling to use", () => {
  assert.equal(reasonOf("shell=3azsh"), '"=3a" at character 6 uses lower-case hex; write "=3A"');
  assert.equal(reasonOf("caf=c3=A9"), '"=c3" at character 4 uses lower-case hex; write "=C3"');
  assert.equal(reasonOf("=aB"), '"=aB" at character 1 uses lower-case hex; write "=AB"');
});

test("decodeName refuses the escape of a byte that needs none", () => {
  assert.equal(reasonOf("=61"), '"=61" at character 1 escapes "a", which needs no escape; write "a" itself');
  assert.match(reasonOf("x=2D"), /"=2D" at character 2 escapes "-"/);
  assert.match(reasonOf("=2F"), /escapes "\/"/);
  assert.match(reasonOf("=5F"), /escapes "_"/);
  assert.match(reasonOf("=30"), /escapes "0"/);
  assert.match(reasonOf("=6a"), /escapes "j"/); // needless even when also lower-case
});

test("decodeName accepts the escape of every byte that needs one", () => {
  assert.deepEqual(decodeName("=3D"), { ok: true, name: "=" });
  assert.deepEqual(decodeName("=2E=2A=3E=20"), { ok: true, name: ".*> " });
  assert.deepEqual(decodeName("=00"), { ok: true, name: "\u0000" });
});

test("decodeName refuses bytes that are not UTF-8 and names the sequence", () => {
  const cases: Array<[string, RegExp]> = [
    ["=C3", /"=C3" at character 1 is cut short at the end/],
    ["ab=C3=28", /"=C3=28" at character 3 is cut short \(a continuation byte is missing\)/],
    ["=80", /"=80" at character 1 is a continuation byte without a lead byte/],
    ["=C0=AF", /"=C0" at character 1 starts an overlong encoding/],
    ["=E0=80=AF", /"=E0=80" at character 1 is an overlong encoding/],
    ["=F0=80=80=AF", /"=F0=80" .*overlong/],
    ["=ED=A0=80", /"=ED=A0" at character 1 encodes a surrogate/],
    ["=F4=90=80=80", /above U\+10FFFF/],
    ["=FF", /"=FF" at character 1 is a byte that never appears in UTF-8/],
    ["=E2=82", /"=E2=82" at character 1 is cut short/],
  ];
  for (const [s, re] of cases) {
    const r = reasonOf(s);
    assert.match(r, /^bytes are not valid UTF-8: /);
    assert.match(r, re);
  }
});

test("decodeName reads long names that need the scratch buffer to grow", () => {
  const name = "é".repeat(5000) + ".x";
  assert.deepEqual(decodeName(encodeName(name)), { ok: true, name });
});
