import { test } from "node:test";
import assert from "node:assert/strict";
import { Slots } from "../../src/projections/store/slots.js";

test("slots reserved for a snapshot up front: allocating them never grows the columns, and what was set stays", () => {
  const s = new Slots();
  const first = s.alloc();
  s.revision[first] = 7;
  s.reserve(100_000);
  const cap = s.capacity;
  assert.ok(cap >= 100_001, `capacity ${cap}`);
  for (let i = 0; i < 100_000; i++) s.seg[s.alloc()] = 0;
  assert.equal(s.capacity, cap, "no growth while allocating what was reserved");
  assert.equal(s.revision[first], 7);
  s.alloc();
  assert.ok(s.capacity > cap, "one more than reserved grows them");
});

test("reserving less than the room left changes nothing", () => {
  const s = new Slots();
  const cap = s.capacity;
  s.reserve(10);
  assert.equal(s.capacity, cap);
});
