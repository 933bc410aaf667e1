import { test } from "node:test";
import assert from "node:assert/strict";
import { feedEvent, feedEventBytes } from "../../src/feed/events.js";
import { ProjectionStore, type Change } from "../../src/projections/store/store.js";
import { needsSpec, registrySpec } from "../../src/projections/bucket-specs.js";
import { KNOWN_KINDS } from "../../src/reconcile/registry.js";

const enc = new TextEncoder();
const json = (v: unknown): Uint8Array => enc.encode(JSON.stringify(v));
const text = (b: Uint8Array): string => Buffer.from(b).toString("utf8");

/** The event as bytes must say exactly what the text says, for every kind of change. */
function sameEvent(what: string, change: Change | null, isAnswered?: (kind: string) => boolean): string {
  assert.ok(change !== null, "the store applied the change");
  const expected = feedEvent(what, change, isAnswered);
  assert.equal(text(feedEventBytes(what, change, isAnswered)), expected);
  JSON.parse(expected);
  return expected;
}

test("a put of an entry in shape is written from the store's bytes, the same event as its text", () => {
  const s = new ProjectionStore(needsSpec);
  const e = sameEvent("needs", s.apply("PUT", "n1.m0.config.k0", 7, json({ v: 'é ☃ "quoted"' })), () => true);
  assert.match(e, /^\{"what":"needs","op":"put","key":"n1\.m0\.config\.k0","revision":7,"entry":\{/);
  // A value that is not JSON goes into the entry as a string; the bytes path keeps it.
  sameEvent("needs", s.apply("PUT", "n1.m0.config.k1", 8, enc.encode("not json")), () => true);
});

test("a need whose kind nobody answers carries answered:false in the bytes as in the text", () => {
  const s = new ProjectionStore(needsSpec);
  const e = sameEvent("needs", s.apply("PUT", "n1.m0.secret.k0", 3, json({ v: 1 })), (kind) => kind !== "secret");
  assert.match(e, /,"answered":false\}\}$/);
});

test("a delete, a key out of shape and a registry entry give the same event as bytes and as text", () => {
  const s = new ProjectionStore(needsSpec);
  s.apply("PUT", "n1.m0.config.k0", 1, json({ v: 1 }));
  assert.match(sameEvent("needs", s.apply("DEL", "n1.m0.config.k0", 2, new Uint8Array())), /"op":"delete"/);
  assert.match(sameEvent("needs", s.apply("PUT", "not-a-need", 3, json({ v: 1 }))), /"outOfShape":/);
  const r = new ProjectionStore(registrySpec(KNOWN_KINDS));
  sameEvent(
    "registry",
    r.apply("PUT", "config", 1, json({ kind: "config", module: "mesh-config", bucket: "mesh-config_values", key: "<node>.<module>.<name>" })),
  );
});

test("a change read after the store moved on gives the event without its entry, as the text does", () => {
  const s = new ProjectionStore(needsSpec);
  const first = s.apply("PUT", "n1.m0.config.k0", 1, json({ v: 1 }));
  s.apply("PUT", "n1.m0.config.k0", 2, json({ v: 2 }));
  assert.doesNotMatch(sameEvent("needs", first), /"entry"/);
});
