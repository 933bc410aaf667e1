import { test } from "node:test";
import assert from "node:assert/strict";
import { Doorkeeper } from "../../src/verb/doorkeeper.js";

test("a key is let in on its second ask, not its first", () => {
  const d = new Doorkeeper(64);
  assert.equal(d.seenBefore('{"what":"needs","node":"n1"}@10/3'), false);
  assert.equal(d.seenBefore('{"what":"needs","node":"n1"}@10/3'), true);
  assert.equal(d.seenBefore('{"what":"needs","node":"n1"}@10/3'), true);
  // A new revision is a new question.
  assert.equal(d.seenBefore('{"what":"needs","node":"n1"}@11/3'), false);
});

test("thousands of questions asked once each let almost none in; asked again at once, almost all", () => {
  const d = new Doorkeeper(16384);
  const keys = Array.from({ length: 1000 }, (_, i) => `{"what":"needs","node":"n${i}"}@1234/7`);
  const first = keys.filter((k) => d.seenBefore(k)).length;
  assert.ok(first <= 5, `${first} of 1000 first asks let in`);
  const again = keys.filter((k) => d.seenBefore(k)).length;
  assert.ok(again >= 900, `${again} of 1000 second asks let in`);
});

test("a key pushed out by many others since is a first ask again", () => {
  const d = new Doorkeeper(16);
  d.seenBefore("old");
  for (let i = 0; i < 10_000; i++) d.seenBefore(`k${i}`);
  assert.equal(d.seenBefore("old"), false);
});
