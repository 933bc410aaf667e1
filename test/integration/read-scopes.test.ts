/**
 * Who may read what, on a real server with the grants `permissions` prints:
 * a node reads the registry and its own entries and nothing of another node's
 * by any route its grant allows; a provider reads every node's needs and no
 * applied or collect; the provisioner's user (operators) reads everything.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Msg, NatsConnection } from "@nats-io/nats-core";
import { Svcm } from "@nats-io/services";
import { inboxPrefix } from "../../src/permissions/grants.js";
import type { Provisioner } from "../../src/main.js";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
import { NEEDS_VERB_SUBJECT, nodeVerbSubject, SERVICE_NAME, VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { ProvisionerClient } from "mesh-provisioner-client";
import { eventually } from "../helpers/eventually.js";
import { GrantedMesh, grantedUsers, refused, SHORT } from "../helpers/granted.js";

const USERS = grantedUsers();
const API = "$JS.API";
const NEEDS_STREAM = streamName(BUCKETS.needs);

interface Reply {
  entries: { key: string }[];
  outOfShape: { key: string }[];
}

/** The keys of a verb reply, or its service error code. */
function keysOrCode(m: Msg): string[] | number {
  const code = m.headers?.get("Nats-Service-Error-Code");
  if (code) return Number(code);
  const r = m.json<Reply>();
  return [...r.entries.map((e) => e.key), ...r.outOfShape.map((o) => o.key)];
}

async function ask(nc: NatsConnection, subject: string, body: object): Promise<string[] | number> {
  return keysOrCode(await nc.request(subject, JSON.stringify(body), SHORT));
}

/** A subscription the server refuses: it is closed with an error. */
async function subscribeRefused(nc: NatsConnection, subject: string): Promise<void> {
  const sub = nc.subscribe(subject);
  const closed = await Promise.race([sub.closed, new Promise<"open">((r) => setTimeout(() => r("open"), SHORT.timeout))]);
  assert.ok(closed instanceof Error, `the subscription to ${subject} must be refused, it is ${String(closed)}`);
}

describe("read scopes on a real server, with the printed grants", () => {
  const mesh = new GrantedMesh(USERS);
  let svcNc: NatsConnection;
  let provisioner: Provisioner;
  const N1 = ["n1.web.config.port", "n1.web.secret.db"];
  const N2 = ["n2.db.config.port", "n2.db.secret.password"];
  let last = 0;

  before(async () => {
    await mesh.start();
    ({ svcNc, provisioner } = mesh);
    for (const [u, keys, node] of [
      [USERS.n1, N1, "n1"],
      [USERS.n2, N2, "n2"],
    ] as const) {
      const c = await mesh.as(u);
      for (const k of keys) last = Math.max(last, await (await c.kv(BUCKETS.needs)).put(k, "{}"));
      last = Math.max(last, await (await c.kv(BUCKETS.applied)).put(`${node}.web`, "{}"));
      last = Math.max(last, await (await c.kv(BUCKETS.collect)).put(`${node}.shell.web`, "{}"));
    }
    await eventually(() => assert.equal(provisioner.projections.needs.store.size, 4));
    await eventually(() => assert.equal(provisioner.projections.collect.store.size, 2));
  });

  after(async () => {
    await mesh.stop();
  });

  test("node n1 reads the registry and its own entries on its own subject, without naming itself", async () => {
    const n1 = await mesh.as(USERS.n1);
    const own = nodeVerbSubject("n1");
    assert.deepEqual(await ask(n1.nc, own, { what: "needs" }), N1);
    assert.deepEqual(await ask(n1.nc, own, { what: "needs", node: "n1", module: "web" }), N1);
    assert.deepEqual(await ask(n1.nc, own, { what: "applied" }), ["n1.web"]);
    assert.deepEqual(await ask(n1.nc, own, { what: "collect" }), ["n1.shell.web"]);
    assert.equal(((await ask(n1.nc, own, {})) as string[]).length, 13);
    // The client, told its scope, asks there without being told the subject.
    const c = new ProvisionerClient(n1.nc, { scope: { node: "n1" }, timeoutMs: SHORT.timeout });
    assert.deepEqual(
      (await c.get({ what: "needs" })).entries.map((e) => e.key),
      N1,
    );
    assert.equal((await c.get({ what: "registry" })).entries.length, 13);
  });

  test("node n1 obtains nothing of node n2's by any route its grant allows", async () => {
    const n1 = await mesh.as(USERS.n1);
    // The verb: its own subject refuses another node with a 403; every other verb subject is refused by the server.
    assert.equal(await ask(n1.nc, nodeVerbSubject("n1"), { what: "needs", node: "n2" }), 403);
    assert.equal(await ask(n1.nc, nodeVerbSubject("n1"), { what: "collect", node: "n2" }), 403);
    await refused("the mesh's verb subject", () => n1.nc.request(VERB_SUBJECT, JSON.stringify({ what: "needs" }), SHORT));
    await refused("n2's verb subject", () => n1.nc.request(nodeVerbSubject("n2"), JSON.stringify({ what: "needs" }), SHORT));
    await refused("the providers' verb subject", () => n1.nc.request(NEEDS_VERB_SUBJECT, JSON.stringify({ what: "needs" }), SHORT));
    await refused("a wildcard verb subject", () => n1.nc.request(`${VERB_SUBJECT}.*`, JSON.stringify({ what: "needs" }), SHORT));
    const c = new ProvisionerClient(n1.nc, { timeoutMs: SHORT.timeout });
    await refused("the client asking for n2", () => c.get({ what: "needs", node: "n2" }));
    // The feed: only its own node's subjects and the registry's.
    for (const s of [
      "mesh-provisioner.feed.>",
      "mesh-provisioner.feed.needs.>",
      "mesh-provisioner.feed.needs.n2.>",
      "mesh-provisioner.feed.*.n2.>",
      "mesh-provisioner.feed.applied.*.web",
    ]) {
      await subscribeRefused(n1.nc, s);
    }
    // Replies and watch deliveries of others.
    for (const s of ["_INBOX.>", `${inboxPrefix("node", "n2")}.>`, `${inboxPrefix("provisioner")}.>`, `${inboxPrefix("provider")}.>`, ">"]) {
      await subscribeRefused(n1.nc, s);
    }
    // The JetStream API: no read of a node bucket, by key or by listing its subjects.
    const n2key = `$KV.${BUCKETS.needs}.n2.db.config.port`;
    await refused("a direct get of n2's key", () => n1.nc.request(`${API}.DIRECT.GET.${NEEDS_STREAM}.${n2key}`, "", SHORT));
    await refused("a direct get by body", () => n1.nc.request(`${API}.DIRECT.GET.${NEEDS_STREAM}`, JSON.stringify({ last_by_subj: n2key }), SHORT));
    await refused("a message get", () => n1.nc.request(`${API}.STREAM.MSG.GET.${NEEDS_STREAM}`, JSON.stringify({ last_by_subj: n2key }), SHORT));
    await refused("the stream's subjects", () => n1.nc.request(`${API}.STREAM.INFO.${NEEDS_STREAM}`, JSON.stringify({ subjects_filter: ">" }), SHORT));
    await refused("a consumer on the needs", () =>
      n1.nc.request(
        `${API}.CONSUMER.CREATE.${NEEDS_STREAM}`,
        JSON.stringify({ stream_name: NEEDS_STREAM, config: { ack_policy: "none", deliver_subject: `${inboxPrefix("node", "n1")}.x` } }),
        SHORT,
      ),
    );
    await refused("a watch of the needs", async () => {
      const w = await (await n1.kv(BUCKETS.needs)).watch();
      for await (const e of w) return e;
    });
    // $SRV: what the service is and counts, never an entry.
    for (const verb of ["INFO", "STATS", "PING"]) {
      const m = await n1.nc.request(`$SRV.${verb}.${SERVICE_NAME}`, "", SHORT);
      assert.doesNotMatch(m.string(), /n2\./, `$SRV.${verb}`);
    }
  });

  test("the service's discovery lists an endpoint for each scope", async () => {
    const n1 = await mesh.as(USERS.n1);
    const infos = [];
    for await (const i of await new Svcm(n1.nc).client({ strategy: "count", maxMessages: 1, maxWait: SHORT.timeout }).info(SERVICE_NAME)) infos.push(i);
    assert.deepEqual(infos[0]?.endpoints.map((e) => e.subject).sort(), [VERB_SUBJECT, NEEDS_VERB_SUBJECT, nodeVerbSubject("*")].sort());
  });

  test("a provider reads every node's needs and no applied or collect", async () => {
    const p = await mesh.as(USERS.provider);
    assert.deepEqual(await ask(p.nc, NEEDS_VERB_SUBJECT, { what: "needs" }), [...N1, ...N2]);
    assert.deepEqual(await ask(p.nc, NEEDS_VERB_SUBJECT, { what: "needs", node: "n2" }), N2);
    assert.equal(await ask(p.nc, NEEDS_VERB_SUBJECT, { what: "applied" }), 403);
    assert.equal(await ask(p.nc, NEEDS_VERB_SUBJECT, { what: "collect", node: "n1" }), 403);
    await refused("the mesh's verb subject", () => p.nc.request(VERB_SUBJECT, JSON.stringify({ what: "applied" }), SHORT));
    await refused("a node's verb subject", () => p.nc.request(nodeVerbSubject("n1"), JSON.stringify({ what: "applied" }), SHORT));
    await subscribeRefused(p.nc, "mesh-provisioner.feed.applied.>");
    await subscribeRefused(p.nc, "mesh-provisioner.feed.collect.>");
    const c = new ProvisionerClient(p.nc, { scope: "needs", timeoutMs: SHORT.timeout });
    assert.deepEqual(
      (await c.get({ what: "needs", node: "n1" })).entries.map((e) => e.key),
      N1,
    );
  });

  test("the provisioner's user reads everything, on every verb subject", async () => {
    assert.deepEqual(await ask(svcNc, VERB_SUBJECT, { what: "applied" }), ["n1.web", "n2.web"]);
    assert.deepEqual(await ask(svcNc, nodeVerbSubject("n2"), { what: "collect" }), ["n2.shell.web"]);
    assert.deepEqual(await ask(svcNc, NEEDS_VERB_SUBJECT, { what: "needs", minRevision: last }), [...N1, ...N2]);
    const c = new ProvisionerClient(svcNc, { timeoutMs: SHORT.timeout });
    assert.deepEqual(
      (await c.get({ what: "applied", node: "n2" })).entries.map((e) => e.key),
      ["n2.web"],
    );
    assert.deepEqual(
      (await c.get({ what: "collect" })).entries.map((e) => e.key),
      ["n1.shell.web", "n2.shell.web"],
    );
  });
});
