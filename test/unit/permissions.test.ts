import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { grantFor, ROLES, ALWAYS_DENIED, PURGE_DENIED } from "../../src/permissions/grants.js";
import { accountsConfigText, EXAMPLE_USERS } from "../../src/permissions/server-config.js";
import { Failure } from "../../src/failure.js";

const root = new URL("../../../", import.meta.url);

test("the example nats-server configuration in docs/ is the one generated from the grants", () => {
  const committed = readFileSync(new URL("docs/nats-server.example.conf", root), "utf8");
  assert.equal(committed, accountsConfigText(EXAMPLE_USERS), "regenerate with: bin/mesh-provisioner permissions --example > docs/nats-server.example.conf");
});

test("no role gets the JetStream API wholesale, and every role is denied stream delete, message delete and the buckets' purge", () => {
  for (const role of ROLES) {
    const g = grantFor(role, "n1");
    for (const s of [...g.publish.allow, ...g.subscribe.allow]) {
      assert.ok(!["$JS.API.>", "$JS.>", ">", "$KV.>", "$O.>"].includes(s), `${role} is allowed ${s}`);
    }
    for (const d of ALWAYS_DENIED) assert.ok(g.publish.deny.includes(d), `${role} lacks deny ${d}`);
  }
});

test("only the service's grant reaches the checkpoints, and it may purge no stream but theirs", () => {
  const reaches = (s: string): boolean => s.includes("OBJ_mesh-provisioner_checkpoints") || s.startsWith("$O.");
  for (const role of ["node", "provider"] as const) {
    const g = grantFor(role, "n1");
    assert.deepEqual([...g.publish.allow, ...g.subscribe.allow].filter(reaches), [], `${role} reaches the checkpoints`);
    assert.ok(g.publish.deny.includes(PURGE_DENIED), `${role} may purge a stream`);
  }
  const p = grantFor("provisioner");
  assert.ok(p.publish.allow.includes("$O.mesh-provisioner_checkpoints.>"));
  assert.deepEqual(
    p.publish.allow.filter((s) => s.includes(".STREAM.PURGE.")),
    ["$JS.API.STREAM.PURGE.OBJ_mesh-provisioner_checkpoints"],
  );
});

test("a node's grant writes only its own keys of the three node buckets", () => {
  const g = grantFor("node", "n7");
  const writes = g.publish.allow.filter((s) => s.startsWith("$KV."));
  assert.deepEqual(writes.sort(), ["$KV.mesh-provisioner_applied.n7.>", "$KV.mesh-provisioner_collect.n7.>", "$KV.mesh-provisioner_needs.n7.>"]);
  assert.equal(g.allow_responses, false);
});

test("a node role without a plain-token node is refused", () => {
  assert.throws(() => grantFor("node"), Failure);
  assert.throws(() => grantFor("node", "n1.>"), Failure);
  assert.throws(() => grantFor("node", "*"), Failure);
});
