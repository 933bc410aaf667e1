/**
 * A node writing its own keys across a leaf node, as docs/clients.md shows
 * it: a hub with JetStream in domain `hub` and the service's instance, and a
 * site's leaf server with a JetStream domain of its own, whose local user
 * holds the node's grant. The node's KV put of its own key, made through the
 * hub's domain (a JetStream publish on `$JS.hub.API.$KV.<bucket>.<key>`),
 * lands in the hub's bucket and is answered back to it by the verb across the
 * leaf; another node's key is refused by the grant at the leaf.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { ProvisionerClient, inboxPrefix, needsKey } from "mesh-provisioner-client";
import { BUCKETS } from "mesh-provisioner-client/keys";
import { freePort, startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { grantFor } from "../../src/permissions/grants.js";
import { Fleet } from "../helpers/processes.js";
import { spawnServed } from "../helpers/served.js";
import { eventually } from "../helpers/eventually.js";

describe("a node at a site writes its own keys across the leaf node, through the hub's JetStream domain", () => {
  const n1 = { user: "node-n1", password: randomBytes(12).toString("hex") };
  let hub: RunningNatsServer;
  let leaf: RunningNatsServer;
  let fleet: Fleet;
  let nc: NatsConnection;

  before(async () => {
    const leafPort = await freePort();
    hub = await startNatsServer({ jsDomain: "hub", configText: `leafnodes { listen: "127.0.0.1:${leafPort}" }` });
    // The site: JetStream of its own (domain "site"), and the node's grant as the leaf's local user.
    leaf = await startNatsServer({
      jsDomain: "site",
      configText: `accounts: ${JSON.stringify({ MESH: { jetstream: "enabled", users: [{ ...n1, permissions: grantFor("node", "n1", { jsDomain: "hub" }) }] } })}\nleafnodes { remotes: [{ url: "nats-leaf://127.0.0.1:${leafPort}", account: "MESH" }] }`,
    });
    fleet = new Fleet({ server: hub.url });
    await spawnServed(fleet);
    // The node, as docs/clients.md connects it: its user at the leaf, and the inbox prefix its grant allows.
    nc = await connect({ servers: leaf.url, user: n1.user, pass: n1.password, inboxPrefix: inboxPrefix("node", "n1") });
    // The leaf node link is up once the verb at the hub answers through it.
    await eventually(async () => new ProvisionerClient(nc, { scope: { node: "n1" }, timeoutMs: 1_000 }).get({ what: "registry" }), {
      timeoutMs: 15_000,
      intervalMs: 200,
      message: "the verb across the leaf",
    });
  });

  after(async () => {
    await nc?.close();
    await fleet?.killAll();
    await leaf?.stop();
    await hub?.stop();
  });

  test("its put lands in the hub's bucket and the verb, answered at the hub, gives it back at the revision it made", async () => {
    // As docs/clients.md shows it: the bucket bound without asking for its stream's info, which the grant does not allow.
    const needs = await new Kvm(jetstream(nc, { domain: "hub" })).open(BUCKETS.needs, { bindOnly: true });
    const seq = await needs.put(needsKey("n1", "web", "config", "port"), JSON.stringify({ default: 8080 }));
    const client = new ProvisionerClient(nc, { scope: { node: "n1" } });
    const { revision, entries } = await client.get({ what: "needs", minRevision: seq });
    assert.ok(revision >= seq, `answered at ${revision}, written at ${seq}`);
    assert.deepEqual(
      entries.map((e) => [e.key, e.value, e.revision]),
      [["n1.web.config.port", { default: 8080 }, seq]],
    );
    // The same publish the KV client made, by hand: behind the hub's domain, acknowledged by the hub's stream.
    const ack = await jetstream(nc).publish(`$JS.hub.API.$KV.${BUCKETS.needs}.${needsKey("n1", "web", "config", "host")}`, JSON.stringify("a"));
    assert.equal(ack.domain, "hub", "the hub's stream took it, not one at the site");
    assert.equal(ack.seq, seq + 1);
    assert.equal("stale" in (await client.get({ what: "needs" })), false, "an instance that hears its stream says nothing of staleness");
  });

  test("another node's key is refused by the grant at the leaf, and never reaches the hub's bucket", async () => {
    const needs = await new Kvm(jetstream(nc, { domain: "hub", timeout: 2_000 })).open(BUCKETS.needs, { bindOnly: true });
    await assert.rejects(needs.put(needsKey("n2", "web", "config", "port"), "{}"), /Permissions Violation for Publish/);
    const mesh = await connect({ servers: hub.url });
    try {
      const { entries } = await new ProvisionerClient(mesh).get({ what: "needs" });
      assert.deepEqual(
        entries.filter((e) => e.node === "n2"),
        [],
      );
    } finally {
      await mesh.close();
    }
  });
});
