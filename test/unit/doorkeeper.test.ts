import { test } from "node:test";
import assert from "node:assert/strict";
import { answerHash, Doorkeeper } from "../../src/verb/doorkeeper.js";
import { hashKey } from "../../src/projections/store/key-table.js";

const N1 = hashKey('needs?node="n1"&limit=&after=null');

test("a question is let in on its second ask, not its first", () => {
  const d = new Doorkeeper(64);
  assert.equal(d.seenBefore(answerHash(N1, 10, 3)), false);
  assert.equal(d.seenBefore(answerHash(N1, 10, 3)), true);
  assert.equal(d.seenBefore(answerHash(N1, 10, 3)), true);
});

test("the same request at a new revision of its bucket or of the registry is a new question", () => {
  const d = new Doorkeeper(64);
  d.seenBefore(answerHash(N1, 10, 3));
  assert.equal(d.seenBefore(answerHash(N1, 11, 3)), false);
  assert.equal(d.seenBefore(answerHash(N1, 10, 4)), false);
  // Revisions past 2^32 still tell apart.
  d.seenBefore(answerHash(N1, 2 ** 32 + 5, 3));
  assert.equal(d.seenBefore(answerHash(N1, 2 ** 32 + 6, 3)), false);
});

test("thousands of questions asked once each let almost none in; asked again at once, almost all", () => {
  const d = new Doorkeeper(16384);
  const hashes = Array.from({ length: 1000 }, (_, i) => answerHash(hashKey(`needs?node="n${i}"&limit=&after=null`), 1234, 7));
  const first = hashes.filter((h) => d.seenBefore(h)).length;
  assert.ok(first <= 5, `${first} of 1000 first asks let in`);
  const again = hashes.filter((h) => d.seenBefore(h)).length;
  assert.ok(again >= 900, `${again} of 1000 second asks let in`);
});

test("a question pushed out by many others since is a first ask again", () => {
  const d = new Doorkeeper(16);
  const old = hashKey("old");
  d.seenBefore(old);
  for (let i = 0; i < 10_000; i++) d.seenBefore(hashKey(`k${i}`));
  assert.equal(d.seenBefore(old), false);
});
