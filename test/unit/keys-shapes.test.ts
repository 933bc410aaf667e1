import { test } from "node:test";
import assert from "node:assert/strict";
import { WHATS, parseAppliedKey, parseCollectKey, parseKey, parseNeedsKey, parseRegistryKey, type Shape } from "mesh-provisioner-client/keys";

const KINDS: ReadonlySet<string> = new Set(["config", "secret", "bound", "shell"]);

/** The out-of-shape half of a Shape, failing the test when the key is in shape. */
function out<F>(s: Shape<F>): { reason: string; readable: Partial<Record<string, string>> } {
  assert.equal(s.ok, false, "expected the key to be out of shape");
  return s.ok ? { reason: "", readable: {} } : { reason: s.reason, readable: s.readable };
}

test("WHATS lists the four buckets, registry first", () => {
  assert.deepEqual([...WHATS], ["registry", "needs", "applied", "collect"]);
});

test("a needs key <node>.<module>.<kind>.<name> yields its four fields", () => {
  assert.deepEqual(parseNeedsKey("n1.web.config.port"), {
    ok: true,
    fields: { node: "n1", module: "web", kind: "config", name: "port" },
  });
  assert.deepEqual(parseNeedsKey("n-1.a/b.x=y.p_q"), {
    ok: true,
    fields: { node: "n-1", module: "a/b", kind: "x=y", name: "p_q" },
  });
});

test("a needs key with a wrong token count gives the contract's reason and its leading tokens", () => {
  const o = out(parseNeedsKey("n1.web.config"));
  assert.equal(o.reason, "needs keys have 4 tokens: <node>.<module>.<kind>.<name>");
  assert.deepEqual(o.readable, { node: "n1", module: "web", kind: "config" });
  assert.equal(out(parseNeedsKey("")).reason, "needs keys have 4 tokens: <node>.<module>.<kind>.<name>");
  assert.deepEqual(out(parseNeedsKey("")).readable, {});
  assert.deepEqual(out(parseNeedsKey("n1")).readable, { node: "n1" });
});

test("a needs key with too many tokens keeps only its node readable", () => {
  const o = out(parseNeedsKey("n1.web.config.a.b"));
  assert.equal(o.reason, "needs keys have 4 tokens: <node>.<module>.<kind>.<name>");
  assert.deepEqual(o.readable, { node: "n1" });
  assert.deepEqual(out(parseNeedsKey("n 1.web.config.a.b")).readable, {});
});

test("a needs key with an empty token names it and keeps the other tokens readable", () => {
  const o = out(parseNeedsKey("n1..x.y"));
  assert.equal(o.reason, "token 2 (module) is empty");
  assert.deepEqual(o.readable, { node: "n1", kind: "x", name: "y" });
});

test("a needs key with a token that is not plain names the token, its place and field", () => {
  const o = out(parseNeedsKey("n1.w b.config.port"));
  assert.equal(o.reason, 'token 2 (module) "w b" is not a plain token (only A-Z a-z 0-9 - _ / = are allowed)');
  assert.deepEqual(o.readable, { node: "n1", kind: "config", name: "port" });
});

test("a needs key with several bad tokens names each of them", () => {
  const o = out(parseNeedsKey("*.web.>.port"));
  assert.match(o.reason, /^token 1 \(node\) "\*" .*; token 3 \(kind\) ">" /);
  assert.deepEqual(o.readable, { module: "web", name: "port" });
});

test("an applied key <node>.<module> yields node and module", () => {
  assert.deepEqual(parseAppliedKey("n1.web"), { ok: true, fields: { node: "n1", module: "web" } });
});

test("an applied key with a wrong token count gives the applied reason", () => {
  for (const key of ["n1", "n1.web.x", ""]) {
    assert.equal(out(parseAppliedKey(key)).reason, "applied keys have 2 tokens: <node>.<module>");
  }
  assert.deepEqual(out(parseAppliedKey("n1")).readable, { node: "n1" });
  assert.deepEqual(out(parseAppliedKey("n1.web.x")).readable, { node: "n1" });
});

test("an applied key with a bad token names it and keeps the other readable", () => {
  const o = out(parseAppliedKey("n1.we:b"));
  assert.equal(o.reason, 'token 2 (module) "we:b" is not a plain token (only A-Z a-z 0-9 - _ / = are allowed)');
  assert.deepEqual(o.readable, { node: "n1" });
  assert.deepEqual(out(parseAppliedKey(".web")), { reason: "token 1 (node) is empty", readable: { module: "web" } });
});

test("a collect key yields the decoded collection name", () => {
  assert.deepEqual(parseCollectKey("n1.shell=3Azsh=3Anormal.web"), {
    ok: true,
    fields: { node: "n1", collection: "shell:zsh:normal", contributor: "web" },
  });
  assert.deepEqual(parseCollectKey("n1.caf=C3=A9.web"), {
    ok: true,
    fields: { node: "n1", collection: "café", contributor: "web" },
  });
  assert.deepEqual(parseCollectKey("n1.a=2Eb.c"), { ok: true, fields: { node: "n1", collection: "a.b", contributor: "c" } });
  assert.deepEqual(parseCollectKey("n1.x=3Dy.c"), { ok: true, fields: { node: "n1", collection: "x=y", contributor: "c" } });
});

test("a collect key with a wrong token count gives the collect reason", () => {
  const short = out(parseCollectKey("n1.shell"));
  assert.equal(short.reason, "collect keys have 3 tokens: <node>.<collection>.<contributor>");
  assert.deepEqual(short.readable, { node: "n1", collection: "shell" });
  const unescapedDot = out(parseCollectKey("n1.a.b.c"));
  assert.equal(unescapedDot.reason, "collect keys have 3 tokens: <node>.<collection>.<contributor>");
  assert.deepEqual(unescapedDot.readable, { node: "n1" });
});

test("a collect key with a bad escape names the collection token and the escape problem", () => {
  const cases: Array<[string, RegExp]> = [
    ["n1.shell=3azsh.web", /^token 2 \(collection\) "shell=3azsh": "=3a" at character 6 uses lower-case hex; write "=3A"$/],
    ["n1.=61.web", /^token 2 \(collection\) "=61": "=61" at character 1 escapes "a"/],
    ["n1.a=4.web", /^token 2 \(collection\) "a=4": "=4" at character 2: "=" must be followed by two upper-case hex digits/],
    ["n1.=C3=28.web", /^token 2 \(collection\) "=C3=28": bytes are not valid UTF-8/],
    ["n1.a b.web", /^token 2 \(collection\) "a b": character 2 " "/],
  ];
  for (const [key, re] of cases) {
    const o = out(parseCollectKey(key));
    assert.match(o.reason, re, key);
    assert.deepEqual(o.readable, { node: "n1", contributor: "web" }, key);
  }
  assert.deepEqual(out(parseCollectKey("n1..web")), {
    reason: "token 2 (collection) is empty",
    readable: { node: "n1", contributor: "web" },
  });
});

test("a collect key with a bad node or contributor names it and keeps the decoded collection", () => {
  const o = out(parseCollectKey("n*.caf=C3=A9."));
  assert.match(o.reason, /^token 1 \(node\) "n\*" is not a plain token .*; token 3 \(contributor\) is empty$/);
  assert.deepEqual(o.readable, { collection: "café" });
});

test("a registry key that is a known kind yields the kind", () => {
  for (const k of KINDS) assert.deepEqual(parseRegistryKey(k, KINDS), { ok: true, fields: { kind: k } });
});

test("a registry key that is not a known kind lists the known kinds", () => {
  assert.deepEqual(out(parseRegistryKey("foo", KINDS)), {
    reason: 'registry key "foo" is not a known kind (known: config, secret, bound, shell)',
    readable: { kind: "foo" },
  });
  assert.match(out(parseRegistryKey("foo", new Set())).reason, /\(known: none\)$/);
});

test("a registry key with dots, no text or other characters says why", () => {
  assert.deepEqual(out(parseRegistryKey("config.x", KINDS)), { reason: "registry keys have 1 token: <kind>", readable: {} });
  assert.deepEqual(out(parseRegistryKey("", KINDS)), { reason: "registry key is empty", readable: {} });
  assert.match(out(parseRegistryKey("a b", KINDS)).reason, /^registry key "a b" is not a plain token/);
});

test("a known kind that is not a plain token is still out of shape", () => {
  const odd = new Set(["a b"]);
  assert.equal(parseRegistryKey("a b", odd).ok, false);
});

test("parseKey dispatches on the bucket", () => {
  assert.deepEqual(parseKey("needs", "n1.web.config.port", KINDS), parseNeedsKey("n1.web.config.port"));
  assert.deepEqual(parseKey("applied", "n1.web", KINDS), parseAppliedKey("n1.web"));
  assert.deepEqual(parseKey("collect", "n1.a=2Eb.c", KINDS), parseCollectKey("n1.a=2Eb.c"));
  assert.deepEqual(parseKey("registry", "config", KINDS), parseRegistryKey("config", KINDS));
  assert.equal(parseKey("registry", "n1.web", KINDS).ok, false);
  assert.throws(() => parseKey("nope" as never, "x", KINDS), /unknown bucket "nope"/);
});
