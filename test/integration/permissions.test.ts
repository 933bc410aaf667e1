import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { headers, type NatsConnection } from "@nats-io/nats-core";
import { jetstreamManager } from "@nats-io/jetstream";
import type { Provisioner } from "../../src/main.js";
import { BUCKETS, CHECKPOINT_BUCKET, objectStreamName, streamName } from "mesh-provisioner-client/keys";
import { Objm } from "@nats-io/obj";
import { NEEDS_VERB_SUBJECT, VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { GrantedMesh, grantedUsers, jetstreamAs, refused, SHORT } from "../helpers/granted.js";
import { eventually } from "../helpers/eventually.js";

const USERS = grantedUsers();

describe("runs-as and least privilege on a real server", () => {
  const mesh = new GrantedMesh(USERS);
  const client = mesh.as.bind(mesh);
  let svcNc: NatsConnection;
  let provisioner: Provisioner;

  before(async () => {
    await mesh.start();
    ({ svcNc, provisioner } = mesh);
    await eventually(() => assert.equal(provisioner.projections.registry.store.size, 13));
  });

  after(async () => {
    await mesh.stop();
  });

  test("the service, under its own grant alone, creates the buckets, writes the registry and answers", async () => {
    const m = await svcNc.request(VERB_SUBJECT, "", SHORT);
    assert.equal(m.json<{ entries: unknown[] }>().entries.length, 13);
    assert.equal(provisioner.seat.isHolder, true);
  });

  test("node n1 puts and deletes its own keys, and every route to n2's keys or the registry is refused", async () => {
    const n1 = await client(USERS.n1);
    const n2 = await client(USERS.n2);
    const n2needs = await n2.kv(BUCKETS.needs);
    const n2rev = await n2needs.put("n2.web.config.port", JSON.stringify({ default: 1 }));

    const needs = await n1.kv(BUCKETS.needs);
    const rev = await needs.put("n1.web.config.port", JSON.stringify({ default: 8080 }));
    assert.ok(rev > 0);
    await needs.delete("n1.web.config.port");
    for (const b of [BUCKETS.applied, BUCKETS.collect]) {
      const kv = await n1.kv(b);
      await kv.put(b === BUCKETS.applied ? "n1.web" : "n1.shell.web", "{}");
    }

    await refused("put on n2's key", () => needs.put("n2.web.config.port", "x"));
    await refused("delete of n2's key", () => needs.delete("n2.web.config.port"));
    await refused("purge of n2's key", () => needs.purge("n2.web.config.port"));
    const h = headers();
    h.set("Nats-Rollup", "all");
    await refused("a roll-up header on n1's own key", () => n1.js.publish(`$KV.${BUCKETS.needs}.n1.web.config.x`, "{}", { headers: h }));
    const registry = await n1.kv(BUCKETS.registry);
    await refused("a registry put", () => registry.put("secret", "{}"));
    const jsm = await jetstreamManager(n1.nc, SHORT);
    const stream = streamName(BUCKETS.needs);
    await refused("stream purge", () => jsm.streams.purge(stream));
    await refused("stream delete", () => jsm.streams.delete(stream));
    await refused("stream update", () => jsm.streams.update(stream, { allow_rollup_hdrs: true }));
    await refused("message delete", () => jsm.streams.deleteMessage(stream, n2rev));

    // n2's data is intact, seen through the verb by the provisioner's user.
    const reply = await svcNc.request(VERB_SUBJECT, JSON.stringify({ what: "needs", node: "n2", minRevision: n2rev }), SHORT);
    const entries = reply.json<{ entries: { key: string; revision: number }[] }>().entries;
    assert.deepEqual(
      entries.map((e) => [e.key, e.revision]),
      [["n2.web.config.port", n2rev]],
    );
  });

  test("node n1 reads the registry by get and by watch", async () => {
    const n1 = await client(USERS.n1);
    const registry = await n1.kv(BUCKETS.registry);
    const e = await registry.get("secret");
    assert.equal(e?.json<{ module: string }>().module, "mesh-vault");
    const w = await registry.watch();
    const seen: string[] = [];
    for await (const x of w) {
      seen.push(x.key);
      if (seen.length === 13) break;
    }
    assert.equal(new Set(seen).size, 13);
  });

  test("a provider watches the needs but cannot write them", async () => {
    const n2 = await client(USERS.n2);
    const rev = await (await n2.kv(BUCKETS.needs)).put("n2.db.secret.password", "{}");
    const p = await client(USERS.provider);
    const needs = await p.kv(BUCKETS.needs);
    const got = await needs.get("n2.db.secret.password");
    assert.equal(got?.revision, rev);
    const w = await needs.watch();
    for await (const x of w) {
      if (x.key === "n2.db.secret.password") break;
    }
    await refused("a provider's put", () => needs.put("n2.db.secret.password", "x"));
    await refused("a provider's delete", () => needs.delete("n2.db.secret.password"));
    const m = await p.nc.request(NEEDS_VERB_SUBJECT, JSON.stringify({ what: "needs", node: "n2" }), SHORT);
    assert.ok(m.json<{ entries: unknown[] }>().entries.length >= 1);
  });

  test("nodes and providers can neither read nor write the checkpoints", async () => {
    for (const u of [USERS.n1, USERS.provider]) {
      const c = await client(u);
      await refused(`${u.user} opening the checkpoints`, () => new Objm(c.js).open(CHECKPOINT_BUCKET));
      await refused(`${u.user} reading a checkpoint's meta`, () =>
        c.nc.request(`$JS.API.STREAM.MSG.GET.${objectStreamName(CHECKPOINT_BUCKET)}`, JSON.stringify({ last_by_subj: `$O.${CHECKPOINT_BUCKET}.M.>` }), SHORT),
      );
      await refused(`${u.user} writing a chunk`, () => c.js.publish(`$O.${CHECKPOINT_BUCKET}.C.forged`, "x", SHORT));
      await refused(`${u.user} reading the chunks`, () => c.js.consumers.getPushConsumer(objectStreamName(CHECKPOINT_BUCKET)).then((pc) => pc.consume()));
    }
  });

  test("the service's own user cannot write the node buckets", async () => {
    const j = jetstreamAs(svcNc, USERS.svc);
    await refused("a needs put by the service", () => j.publish(`$KV.${BUCKETS.needs}.n1.web.config.x`, "{}", SHORT));
    await refused("an applied put by the service", () => j.publish(`$KV.${BUCKETS.applied}.n1.web`, "{}", SHORT));
  });

  test("under its own grant the service writes a checkpoint at its graceful stop, and its next start loads it", async () => {
    const n1 = await client(USERS.n1);
    const kv = await n1.kv(BUCKETS.needs);
    for (let i = 0; i < 5; i++) await kv.put(`n1.web.config.cp${i}`, "{}");
    await eventually(() => assert.ok(provisioner.projections.needs.store.get("n1.web.config.cp4") !== undefined));
    await provisioner.stop();
    assert.equal(provisioner.checkpoints.snapshot()["needs"]?.written, 1, JSON.stringify(provisioner.checkpoints.snapshot()));
    provisioner = await mesh.startService();
    assert.equal(provisioner.checkpoints.snapshot()["needs"]?.start, "checkpoint", JSON.stringify(provisioner.checkpoints.snapshot()));
    assert.ok(provisioner.projections.needs.store.get("n1.web.config.cp4") !== undefined);
  });
});
