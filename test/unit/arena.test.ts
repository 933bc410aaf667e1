import { test, describe } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { AnswerArena } from "../../src/verb/arena.js";

describe("AnswerArena: replies carved from one ring", () => {
  test("a reply stays intact exactly until a later reply writes over its bytes", () => {
    // Model: fill each reply with its own number, then check every reply the
    // arena calls intact still holds its number, and that the arena never
    // calls a reply overwritten while its bytes are untouched.
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 200 }), (sizes) => {
        const arena = new AnswerArena(256);
        const taken = sizes.map((n, i) => {
          const c = arena.take(n);
          assert.equal(c.bytes.length, n);
          c.bytes.fill(i % 251);
          return { ...c, i };
        });
        for (const t of taken) {
          const holds = t.bytes.every((b) => b === t.i % 251);
          if (arena.intact(t.at)) assert.ok(holds, `reply ${t.i} is called intact but was written over`);
        }
        // The most recent reply is always intact.
        assert.ok(arena.intact(taken[taken.length - 1]!.at));
      }),
      { numRuns: 500 },
    );
  });

  test("once the ring has gone all the way round, the oldest replies are no longer intact", () => {
    const arena = new AnswerArena(100);
    const first = arena.take(10);
    for (let i = 0; i < 9; i++) arena.take(10);
    assert.ok(arena.intact(first.at), "exactly one ring's worth later, nothing has been written over yet");
    arena.take(10);
    assert.equal(arena.intact(first.at), false);
  });

  test("a reply is fresh (safe to send again) only while a quarter of the ring is left before it is written over", () => {
    const arena = new AnswerArena(1000);
    const first = arena.take(100);
    arena.take(100);
    for (let i = 0; i < 5; i++) arena.take(100);
    // 700 carved: 300 left before `first` is reached, more than a quarter (250).
    assert.ok(arena.fresh(first.at));
    arena.take(100);
    // 800 carved: 200 left: intact, not fresh.
    assert.ok(arena.intact(first.at));
    assert.equal(arena.fresh(first.at), false);
  });

  test("property: a reply sent again from a fresh place survives what may be carved before the client copies it", () => {
    // Whatever the sizes, a reply handed out (fresh, or copied forward with again) keeps its bytes
    // while up to a quarter of the ring more is carved and written.
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 300 }), fc.integer({ min: 0, max: 40 }), (sizes, pick) => {
        const arena = new AnswerArena(1000);
        const cached = arena.take(60);
        cached.bytes.fill(7);
        let n = 0;
        for (const size of sizes) {
          if (n++ === pick) break;
          arena.take(size).bytes.fill(1);
        }
        if (!arena.intact(cached.at)) return;
        const sent = arena.fresh(cached.at) ? cached : arena.again(cached);
        assert.ok(sent.bytes.every((b) => b === 7), "the reply handed out holds the cached bytes");
        // Carve up to a quarter of the ring (what a burst may build before the client copies), writing each.
        let carved = 0;
        for (const size of sizes) {
          if (carved + size > 250) break;
          arena.take(size).bytes.fill(2);
          carved += size;
        }
        assert.ok(sent.bytes.every((b) => b === 7), "the reply handed out was written over before the client could copy it");
      }),
      { numRuns: 500 },
    );
  });

  test("a reply larger than an eighth of the ring gets its own buffer, always intact", () => {
    const arena = new AnswerArena(800);
    const big = arena.take(101);
    assert.equal(big.at, undefined);
    for (let i = 0; i < 100; i++) arena.take(90);
    assert.ok(arena.intact(big.at));
    assert.equal(big.bytes.buffer.byteLength, 101, "not a view into the ring");
  });
});
