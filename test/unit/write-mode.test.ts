import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { conditionalRegistryWrites, parseServerVersion, versionAtLeast } from "../../src/reconcile/write-mode.js";

describe("how the registry is written on each nats-server", () => {
  test("compare-and-sets from 2.12.0 on, plain writes before it", () => {
    for (const v of ["2.12.0", "2.12.1", "2.15.2", "v2.14.0", "3.0.0", "2.12.0-RC.3"]) assert.equal(conditionalRegistryWrites(v), true, v);
    for (const v of ["2.9.10", "2.9.21", "2.10.19", "2.11.9", "1.99.99"]) assert.equal(conditionalRegistryWrites(v), false, v);
  });

  test("a version that cannot be read gets the plain writes, which are safe on every server", () => {
    for (const v of [undefined, "", "dev", "2.x"]) assert.equal(conditionalRegistryWrites(v), false, String(v));
  });

  test("versions compare by number, part by part", () => {
    assert.deepEqual(parseServerVersion("v2.15.2"), [2, 15, 2]);
    assert.equal(versionAtLeast("2.10.0", "2.9.21"), true);
    assert.equal(versionAtLeast("2.9.21", "2.10.0"), false);
    assert.equal(versionAtLeast("2.12.0", "2.12.0"), true);
  });
});
