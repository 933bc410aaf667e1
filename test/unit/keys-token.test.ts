import { test } from "node:test";
import assert from "node:assert/strict";
import { TOKEN_RE, isPlainToken, splitKey, tokenProblem } from "mesh-provisioner-client/keys";

test("TOKEN_RE accepts exactly the contract's token characters A-Z a-z 0-9 - _ / =", () => {
  assert.equal(TOKEN_RE.source, "^[A-Za-z0-9_/=-]+$");
  for (const t of ["n1", "web", "A-Z_09", "a/b", "shell=3Azsh", "=", "-", "_", "/"]) assert.ok(TOKEN_RE.test(t), t);
});

test("isPlainToken refuses empty strings, wildcards, dots, spaces and non-ASCII", () => {
  for (const t of ["", "*", ">", ".", "a.b", "a b", " ", "café", "a\n", "a:b", "a+b", "#"]) {
    assert.equal(isPlainToken(t), false, JSON.stringify(t));
  }
});

test("isPlainToken refuses values that are not strings", () => {
  for (const v of [undefined, null, 1, true, {}, ["a"], Symbol("a")]) assert.equal(isPlainToken(v), false);
});

test("isPlainToken accepts plain tokens and narrows the type to string", () => {
  const v: unknown = "node-1";
  assert.ok(isPlainToken(v));
  if (isPlainToken(v)) assert.equal(v.length, 6);
});

test("splitKey splits on every dot and keeps empty tokens", () => {
  assert.deepEqual(splitKey("n1.web.config.port"), ["n1", "web", "config", "port"]);
  assert.deepEqual(splitKey("n1..x.y"), ["n1", "", "x", "y"]);
  assert.deepEqual(splitKey(""), [""]);
  assert.deepEqual(splitKey("a."), ["a", ""]);
});

test("tokenProblem is null for a plain token", () => {
  assert.equal(tokenProblem("n1"), null);
  assert.equal(tokenProblem("x=3Dy"), null);
});

test("tokenProblem names an empty token", () => {
  assert.equal(tokenProblem(""), "empty token");
});

test("tokenProblem names the token and the allowed characters otherwise", () => {
  assert.equal(tokenProblem("a b"), 'token "a b" has characters outside A-Z a-z 0-9 - _ / =');
  assert.match(tokenProblem(">")!, /^token ">" has characters outside/);
});
