import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { grantFor, GRANT_ROLES, inDomain, ALWAYS_DENIED, PURGE_DENIED } from "../../src/permissions/grants.js";
import { accountsConfigText, EXAMPLE_SITE, EXAMPLE_USERS, siteLeafExampleText } from "../../src/permissions/server-config.js";
import { Failure } from "../../src/failure.js";

const root = new URL("../../../", import.meta.url);

test("the example nats-server configuration in docs/ is the one generated from the grants", () => {
  const committed = readFileSync(new URL("docs/nats-server.example.conf", root), "utf8");
  assert.equal(committed, accountsConfigText(EXAMPLE_USERS), "regenerate with: bin/mesh-provisioner permissions --example > docs/nats-server.example.conf");
});

test("the example site's leaf server configuration in docs/ is the one generated from the grants", () => {
  const committed = readFileSync(new URL("docs/site-leaf.example.conf", root), "utf8");
  assert.equal(
    committed,
    siteLeafExampleText(EXAMPLE_SITE),
    "regenerate with: bin/mesh-provisioner permissions --leaf-config --node n1 --node n2 --js-domain hub --site-domain site-a > docs/site-leaf.example.conf",
  );
});

test("no role gets the JetStream API wholesale, and every role is denied stream delete, message delete and the buckets' purge", () => {
  for (const role of GRANT_ROLES) {
    const g = grantFor(role, "n1");
    for (const s of [...g.publish.allow, ...g.subscribe.allow]) {
      assert.ok(!["$JS.API.>", "$JS.>", ">", "$KV.>", "$O.>"].includes(s), `${role} is allowed ${s}`);
    }
    for (const d of ALWAYS_DENIED) assert.ok(g.publish.deny.includes(d), `${role} lacks deny ${d}`);
  }
});

test("nodes and providers do not reach the checkpoints; only the service's grant writes them, and it may purge no stream but theirs", () => {
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
  const o = grantFor("operator");
  assert.ok(o.publish.allow.includes("$JS.API.STREAM.INFO.OBJ_mesh-provisioner_checkpoints"), "the operator reads them");
  assert.deepEqual(
    o.publish.allow.filter((s) => s.startsWith("$O.") || /STREAM\.(CREATE|PURGE)\.OBJ_/.test(s)),
    [],
    "the operator writes none of them",
  );
});

test("the operator's grant reads everything and writes nothing", () => {
  const g = grantFor("operator");
  const writes = /^\$KV\.|^\$O\.|^mesh-provisioner\.feed\.|\.STREAM\.(CREATE|UPDATE|PURGE|DELETE)\.|\.STREAM\.MSG\.DELETE\.|\.CONSUMER\.DURABLE\./;
  assert.deepEqual(
    g.publish.allow.filter((s) => writes.test(s)),
    [],
  );
  for (const d of ["$KV.>", "$O.>", "mesh-provisioner.feed.>", PURGE_DENIED, "$JS.API.STREAM.UPDATE.>", "$JS.API.STREAM.CREATE.>"]) {
    assert.ok(g.publish.deny.includes(d), `the operator lacks deny ${d}`);
  }
  // Every verb subject, and every bucket's read (stream info, both gets, a watch's consumer).
  for (const s of ["mesh-provisioner.provisioning", "mesh-provisioner.provisioning.*", "mesh-provisioner.provisioning-needs", "$SRV.*.mesh-provisioner"]) {
    assert.ok(g.publish.allow.includes(s), `the operator may not ask ${s}`);
  }
  for (const b of ["registry", "needs", "applied", "collect", "seat"]) {
    for (const api of ["STREAM.INFO", "DIRECT.GET", "STREAM.MSG.GET", "CONSUMER.CREATE"]) {
      assert.ok(g.publish.allow.includes(`$JS.API.${api}.KV_mesh-provisioner_${b}`), `the operator may not ${api} ${b}`);
    }
  }
  assert.deepEqual(g.subscribe.allow, ["_INBOX_mesh-operator.>", "mesh-provisioner.feed.>"]);
  assert.equal(g.allow_responses, false, "it answers nothing");
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

test("the provisioner's grant takes the operator's inbox prefix too, so query, dump and verify run under it with no flag", () => {
  assert.ok(grantFor("provisioner").subscribe.allow.includes("_INBOX_mesh-operator.>"));
});

test("the site's grant reads every bucket and the checkpoints, answers every verb subject, and writes nothing", () => {
  const g = grantFor("site");
  const writes = /^\$KV\.|^\$O\.|^mesh-provisioner\.feed\.|\.STREAM\.(CREATE|UPDATE|PURGE|DELETE)\.|\.STREAM\.MSG\.DELETE\.|\.CONSUMER\.DURABLE\./;
  assert.deepEqual(
    g.publish.allow.filter((s) => writes.test(s)),
    [],
  );
  for (const d of ["$KV.>", "$O.>", "mesh-provisioner.feed.>", PURGE_DENIED]) assert.ok(g.publish.deny.includes(d), `the site lacks deny ${d}`);
  for (const b of ["KV_mesh-provisioner_registry", "KV_mesh-provisioner_needs", "KV_mesh-provisioner_seat", "OBJ_mesh-provisioner_checkpoints"]) {
    assert.ok(g.publish.allow.includes(`$JS.API.CONSUMER.CREATE.${b}.>`), `the site may not watch ${b}`);
  }
  for (const s of ["mesh-provisioner.provisioning", "mesh-provisioner.provisioning.*", "mesh-provisioner.provisioning-needs", "$SRV.*"]) {
    assert.ok(g.subscribe.allow.includes(s), `the site does not answer on ${s}`);
  }
  assert.equal(g.allow_responses, true);
});

test("--js-domain moves every JetStream API subject and KV write under $JS.<d>.API, keeps the rest, and denies in both spellings", () => {
  const g = grantFor("node", "n1", { jsDomain: "hub" });
  assert.deepEqual(
    g.publish.allow.filter((s) => s.startsWith("$JS.API.") || s.startsWith("$KV.")),
    [],
  );
  assert.ok(g.publish.allow.includes("$JS.hub.API.$KV.mesh-provisioner_needs.n1.>"));
  assert.ok(g.publish.allow.includes("$JS.hub.API.DIRECT.GET.KV_mesh-provisioner_registry.>"));
  assert.ok(g.publish.allow.includes("$JS.hub.API.CONSUMER.CREATE.KV_mesh-provisioner_registry.>"));
  assert.ok(g.publish.allow.includes("$JS.FC.KV_mesh-provisioner_registry.>"), "flow control carries no domain");
  assert.ok(g.publish.allow.includes("mesh-provisioner.provisioning.n1"));
  for (const d of ALWAYS_DENIED) {
    assert.ok(g.publish.deny.includes(d) && g.publish.deny.includes(d.replace("$JS.API.", "$JS.hub.API.")), `both spellings of ${d}`);
  }
  assert.ok(g.publish.deny.includes("$JS.hub.API.$KV.mesh-provisioner_registry.>"));
  assert.deepEqual(g.subscribe, grantFor("node", "n1").subscribe, "inboxes and the feed carry no domain");
  assert.deepEqual(
    inDomain(grantFor("provisioner"), "hub").publish.allow.filter((s) => s.startsWith("$O.")),
    ["$O.mesh-provisioner_checkpoints.>"],
  );
});

test("a leaf's grant is the union of its site's nodes' and instance's, never the verb's requests to the site, and needs its nodes named", () => {
  assert.throws(() => grantFor("leaf"), Failure);
  assert.throws(() => grantFor("leaf", undefined, { nodes: ["n1", "*"] }), Failure);
  const g = grantFor("leaf", undefined, { nodes: ["n1", "n2"], jsDomain: "hub" });
  const n1 = grantFor("node", "n1", { jsDomain: "hub" });
  const site = grantFor("site", undefined, { jsDomain: "hub" });
  for (const s of [...n1.publish.allow, ...site.publish.allow]) assert.ok(g.publish.allow.includes(s), `the leaf does not carry ${s} into the hub`);
  assert.deepEqual(
    g.publish.allow.filter((s) => s.includes("$KV.")),
    ["n1", "n2"].flatMap((n) => ["needs", "applied", "collect"].map((b) => `$JS.hub.API.$KV.mesh-provisioner_${b}.${n}.>`)),
    "it writes its own nodes' keys alone",
  );
  assert.ok(g.subscribe.allow.includes("_INBOX_mesh-node_n2.>") && g.subscribe.allow.includes("_INBOX_mesh-provisioner.>"));
  assert.ok(!g.subscribe.allow.some((s) => s.startsWith("mesh-provisioner.provisioning") || s.startsWith("$SRV.")), "the hub sends no asks to the site");
  assert.ok(!g.subscribe.allow.includes("_INBOX_mesh-node_n3.>"));
});
