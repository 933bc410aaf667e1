/**
 * Grants at a site, on real servers: a hub with JetStream in domain `hub`
 * (users: the provisioner's and the site's `leaf` user, as printed) and a
 * site's leaf server with a JetStream domain of its own (`site-a`), whose
 * local users are those `permissions --leaf-config` prints (nodes n1 and n2
 * and the site's instance, each reaching the hub's buckets through `hub`),
 * its remote authenticated as the printed `leaf` user.
 *
 * A node at the site writes and reads its own keys through the hub's domain
 * and reaches nothing of another node's by any route; the site's grant reads
 * everything and writes nothing; and the leaf user's grant reads from the
 * hub's side: publish is what the leaf sends in, subscribe what it is sent.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import { headers, type NatsConnection } from "@nats-io/nats-core";
import { BUCKETS, SEAT_BUCKET, streamName } from "mesh-provisioner-client/keys";
import { ProvisionerClient } from "mesh-provisioner-client";
import { freePort, startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { accountsConfig, siteLeafConfig, siteUsers, type UserSpec } from "../../src/permissions/server-config.js";
import { inboxPrefix } from "../../src/permissions/inbox.js";
import { violationIn } from "../../src/permissions/violation.js";
import { jetStreamAccess } from "../../src/streams/jetstream-access.js";
import { Fleet, type ServiceProcess } from "../helpers/processes.js";
import { spawnServed } from "../helpers/served.js";
import { httpGet } from "../helpers/http-get.js";
import { eventually } from "../helpers/eventually.js";
import { killAll, run } from "../helpers/cli-run.js";

const pw = (): string => randomBytes(12).toString("hex");
const HUB = "hub";
const SVC: UserSpec = { user: "mesh-provisioner", password: pw(), role: "provisioner" };
const LEAF: UserSpec = { user: "leaf-site-a", password: pw(), role: "leaf", nodes: ["n1", "n2"], jsDomain: HUB };
/** Writes what the hub's nodes would: n2's keys, the ones n1 must not reach. */
const ADMIN = { user: "admin", password: pw() };
/** The site's users as `permissions --leaf-config --node n1 --node n2 --js-domain hub` prints them, with fresh passwords. */
const SITE_USERS: UserSpec[] = siteUsers(["n1", "n2"], HUB).map((u) => ({ ...u, password: pw() }));
const site = (role: string, node?: string): UserSpec => SITE_USERS.find((u) => u.role === role && u.node === node)!;
const N1 = site("node", "n1");
/** A user of the site's server with no grant at all (a site misconfigured): only the leaf user's grant confines it. */
const OPEN = { user: "open", password: pw() };
const SITE = site("site");

const NEEDS = BUCKETS.needs;
const NEEDS_STREAM = streamName(NEEDS);
const SHORT = { timeout: 1500 };

/** A configuration's members, without the outer braces, to append to the generated file. */
const members = (o: Record<string, unknown>): string => JSON.stringify(o, null, 2).slice(1, -1);

/** The environment of a command: no ambient NATS_* setting. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn" };
  for (const k of Object.keys(env)) if (k.startsWith("NATS_")) delete env[k];
  return env;
}

/** `fn` must fail with a permissions violation (not a timeout, not "no responders"). */
async function violates(what: string, fn: () => Promise<unknown>): Promise<void> {
  await assert.rejects(fn(), (err: unknown) => {
    assert.ok(violationIn(err) !== undefined, `${what}: expected a permissions violation, got ${String(err)}`);
    return true;
  });
}

/** A subscription the server refuses: its callback is told of the violation, and nothing arrives. */
async function subscribeRefused(nc: NatsConnection, subject: string): Promise<void> {
  let violation: unknown;
  let delivered = 0;
  nc.subscribe(subject, {
    callback: (err) => {
      if (err) violation = err;
      else delivered++;
    },
  });
  await eventually(() => assert.ok(violationIn(violation) !== undefined, `subscribe on ${subject} refused`), { timeoutMs: 5_000, intervalMs: 50 });
  assert.equal(delivered, 0);
}

describe("grants at a site: a hub in domain hub, a site's leaf server with JetStream domain site-a", () => {
  let hub: RunningNatsServer;
  let leaf: RunningNatsServer;
  let admin: NatsConnection;
  let n1: NatsConnection;
  const fleet: { hub?: Fleet; site?: Fleet } = {};
  let hubServe: ServiceProcess;

  before(async () => {
    const leafPort = await freePort();
    const hubUsers = accountsConfig([SVC, LEAF]) as { accounts: { MESH: { users: unknown[] } } };
    hubUsers.accounts.MESH.users.push({ user: ADMIN.user, password: ADMIN.password });
    hub = await startNatsServer({ jsDomain: HUB, configText: `leafnodes { listen: "127.0.0.1:${leafPort}" }\n${members(hubUsers)}` });
    // The site's configuration as printed, but for the jetstream block, which the test's server writes with its store.
    const siteConfig = siteLeafConfig({ hubUrl: `nats-leaf://127.0.0.1:${leafPort}`, remote: LEAF, users: SITE_USERS, siteDomain: "site-a" });
    delete siteConfig["jetstream"];
    (siteConfig as { accounts: { MESH: { users: unknown[] } } }).accounts.MESH.users.push(OPEN);
    leaf = await startNatsServer({ jsDomain: "site-a", configText: members(siteConfig) });
    admin = await connect({ servers: hub.url, user: ADMIN.user, pass: ADMIN.password });
    n1 = await connect({ servers: leaf.url, user: N1.user, pass: N1.password, inboxPrefix: inboxPrefix("node", "n1") });
    fleet.hub = new Fleet({ server: hub.url, env: { LOG_FORMAT: "json" } });
    fleet.site = new Fleet({ server: leaf.url, env: { LOG_FORMAT: "json" } });
    const svc = fleet.hub.spawn({ args: ["--user", SVC.user, "--password", SVC.password], name: "hub-serve" });
    hubServe = svc;
    await svc.waitForLine((l) => l.msg === "all projections synced: answering from them", 30_000, "all projections synced");
    // n2's key, written at the hub.
    const needs = await jetStreamAccess(admin).kvm().open(NEEDS);
    await needs.put("n2.web.config.port", JSON.stringify({ default: 9090 }));
    // The link is up once n1's own verb subject is answered across it.
    const client = new ProvisionerClient(n1, { scope: { node: "n1" }, timeoutMs: 2_000 });
    await eventually(async () => assert.ok((await client.get({ what: "registry" })).entries.length > 0), { timeoutMs: 20_000, intervalMs: 200 });
  });

  after(async () => {
    killAll();
    await fleet.site?.killAll();
    await fleet.hub?.killAll();
    await n1?.close().catch(() => undefined);
    await admin?.close().catch(() => undefined);
    await leaf?.stop();
    await hub?.stop();
  });

  test("n1 at the site writes its own keys through the hub's domain and reads them back, answered by the hub's instance", async () => {
    const js = jetStreamAccess(n1, { domain: HUB, inboxPrefix: inboxPrefix("node", "n1") }).client(SHORT);
    const ack = await js.publish(`$JS.${HUB}.API.$KV.${NEEDS}.n1.web.config.port`, JSON.stringify({ default: 8080 }));
    assert.equal(ack.domain, HUB, "the hub's JetStream took the write");
    const client = new ProvisionerClient(n1, { scope: { node: "n1" }, timeoutMs: 5_000 });
    const answer = await client.get({ what: "needs", minRevision: ack.seq });
    assert.deepEqual(
      answer.entries.map((e) => [e.key, e.value]),
      [["n1.web.config.port", { default: 8080 }]],
      "its own key, and not n2's",
    );
    // The registry it may read directly, by direct get through the hub's domain.
    // (The seat's holder writes the registry kind by kind after its first sync: poll until this one is there.)
    await eventually(async () => {
      const reg = await n1.request(`$JS.${HUB}.API.DIRECT.GET.${streamName(BUCKETS.registry)}.$KV.${BUCKETS.registry}.config`, "", SHORT);
      assert.equal(reg.headers?.get("Nats-Subject"), `$KV.${BUCKETS.registry}.config`, `${reg.headers?.code} ${reg.headers?.description}`);
    });
    // A write at the site without the domain finds no stream: the domain is how the site reaches the hub's buckets.
    await violates("a put without the domain (not in the grant printed with --js-domain)", () =>
      js.publish(`$KV.${NEEDS}.n1.web.config.other`, "{}", { timeout: SHORT.timeout }),
    );
  });

  test("n1 at the site reaches nothing of n2's across the leaf: not by the verb, a get, a watch, the feed, an inbox or a put", async () => {
    const js = jetStreamAccess(n1, { domain: HUB, inboxPrefix: inboxPrefix("node", "n1") }).client(SHORT);
    const n2Key = `$KV.${NEEDS}.n2.web.config.port`;
    await violates("n2's verb subject", () => n1.request("mesh-provisioner.provisioning.n2", JSON.stringify({ what: "needs" }), SHORT));
    await violates("the mesh's verb subject", () => n1.request("mesh-provisioner.provisioning", JSON.stringify({ what: "needs", node: "n2" }), SHORT));
    await violates("the needs verb subject", () => n1.request("mesh-provisioner.provisioning-needs", JSON.stringify({ what: "needs" }), SHORT));
    await violates("direct get of n2's key", () => n1.request(`$JS.${HUB}.API.DIRECT.GET.${NEEDS_STREAM}.${n2Key}`, "", SHORT));
    await violates("direct get by body", () => n1.request(`$JS.${HUB}.API.DIRECT.GET.${NEEDS_STREAM}`, JSON.stringify({ last_by_subj: n2Key }), SHORT));
    await violates("message get", () => n1.request(`$JS.${HUB}.API.STREAM.MSG.GET.${NEEDS_STREAM}`, JSON.stringify({ last_by_subj: n2Key }), SHORT));
    await violates("stream info (its subjects list every node's keys)", () => n1.request(`$JS.${HUB}.API.STREAM.INFO.${NEEDS_STREAM}`, "", SHORT));
    const consumer = { stream_name: NEEDS_STREAM, config: { filter_subject: `$KV.${NEEDS}.n2.>`, deliver_subject: `${inboxPrefix("node", "n1")}.w` } };
    await violates("a watch's consumer on n2's keys", () =>
      n1.request(`$JS.${HUB}.API.CONSUMER.CREATE.${NEEDS_STREAM}.w.$KV.${NEEDS}.n2.>`, JSON.stringify(consumer), SHORT),
    );
    await violates("a put of n2's key through the domain", () => js.publish(`$JS.${HUB}.API.${n2Key}`, "{}", { timeout: SHORT.timeout }));
    await violates("a put of n2's key without it", () => js.publish(n2Key, "{}", { timeout: SHORT.timeout }));
    const rollup = headers();
    rollup.set("KV-Operation", "DEL");
    await violates("a delete of n2's key", () => js.publish(`$JS.${HUB}.API.${n2Key}`, "", { headers: rollup, timeout: SHORT.timeout }));
    await violates("a purge of the bucket", () =>
      n1.request(`$JS.${HUB}.API.STREAM.PURGE.${NEEDS_STREAM}`, JSON.stringify({ filter: `$KV.${NEEDS}.n2.>` }), SHORT),
    );

    // The feed of n2's keys and n2's inbox are refused at the site; nothing of n2's arrives on a connection of n1's.
    const other = await connect({ servers: leaf.url, user: N1.user, pass: N1.password, inboxPrefix: inboxPrefix("node", "n1") });
    try {
      await subscribeRefused(other, "mesh-provisioner.feed.needs.n2.>");
      await subscribeRefused(other, `${inboxPrefix("node", "n2")}.>`);
      await subscribeRefused(other, `${inboxPrefix("provisioner")}.>`);
    } finally {
      await other.close().catch(() => undefined);
    }
    // n2's key is as the hub wrote it.
    const needs = await jetStreamAccess(admin).kvm().open(NEEDS);
    assert.deepEqual((await needs.get("n2.web.config.port"))?.json(), { default: 9090 });
  });

  test("the leaf user's grant confines the whole site: even a local user with no grant writes no other site's node and hears nothing of it", async () => {
    // Under n1's inbox prefix: the hub delivers replies to the site on its local users' prefixes alone.
    const open = await connect({ servers: leaf.url, user: OPEN.user, pass: OPEN.password, inboxPrefix: inboxPrefix("node", "n1") });
    try {
      const heard: string[] = [];
      open.subscribe("mesh-provisioner.feed.>", { callback: (err, m) => void (err || heard.push(m.subject)) });
      open.subscribe("_INBOX_mesh-node_n3.>", { callback: (err, m) => void (err || heard.push(m.subject)) });
      await open.flush();
      const js = jetStreamAccess(open, { domain: HUB }).client(SHORT);
      // Its own site's node, as a control: the write reaches the hub's bucket.
      await eventually(() => js.publish(`$JS.${HUB}.API.$KV.${NEEDS}.n1.open.config.x`, "{}"), { timeoutMs: 5_000, intervalMs: 100 });
      // Another site's node n3, the registry and the seat: the hub takes none of them from this leaf.
      for (const subject of [`$KV.${NEEDS}.n3.web.config.port`, `$KV.${BUCKETS.registry}.config`, `$KV.${SEAT_BUCKET}.holder`]) {
        await assert.rejects(js.publish(`$JS.${HUB}.API.${subject}`, "{}", { timeout: SHORT.timeout }), `${subject} is not written from the site`);
      }
      // The hub's feed of its own site's node reaches the site; the feed of n3 and n3's inbox do not.
      await eventually(
        async () => {
          for (const s of ["mesh-provisioner.feed.needs.n1.x", "mesh-provisioner.feed.needs.n3.x", "_INBOX_mesh-node_n3.x"]) admin.publish(s);
          await admin.flush();
          await open.flush();
          assert.ok(heard.includes("mesh-provisioner.feed.needs.n1.x"), `heard: ${heard.join(", ")}`);
        },
        { timeoutMs: 5_000, intervalMs: 100 },
      );
      await admin.flush();
      await open.flush();
      assert.deepEqual(
        heard.filter((s) => s.includes("n3")),
        [],
        "nothing of n3's crossed to the site",
      );
      const needs = await jetStreamAccess(admin).kvm().open(NEEDS);
      assert.equal(await needs.get("n3.web.config.port"), null);
      assert.equal((await needs.get("n1.open.config.x"))?.string(), "{}");
    } finally {
      await open.close().catch(() => undefined);
    }
  });

  test("the site's grant reads everything through the domain: query, dump and verify at the site need no --inbox-prefix", async () => {
    const as = ["--server", leaf.url, "--user", SITE.user, "--password", SITE.password, "--js-domain", HUB];
    const q = await run(["query", "needs", "--json", ...as], cleanEnv(), 20_000);
    assert.equal(q.code, 0, q.stderr);
    const keys = (JSON.parse(q.stdout) as { entries: { key: string }[] }).entries.map((e) => e.key);
    assert.ok(keys.includes("n1.web.config.port") && keys.includes("n2.web.config.port"), `every node's needs: ${keys.join(", ")}`);
    const d = await run(["dump", ...as], cleanEnv(), 20_000);
    assert.equal(d.code, 0, d.stderr);
    const v = await run(["verify", "--attempts", "3", ...as], cleanEnv(), 30_000);
    assert.equal(v.code, 0, v.stderr + v.stdout);
    assert.match(v.stdout, /the projections equal the buckets/);
  });

  test("the site's grant writes nothing: no KV put, no object, no feed event, no stream created or updated", async () => {
    const nc = await connect({ servers: leaf.url, user: SITE.user, pass: SITE.password, inboxPrefix: inboxPrefix("site") });
    try {
      const access = jetStreamAccess(nc, { domain: HUB, inboxPrefix: inboxPrefix("site") });
      const js = access.client(SHORT);
      const registry = await access.kvm().open(BUCKETS.registry);
      assert.equal((await registry.get("secret"))?.json<{ module: string }>().module, "mesh-vault", "it reads the registry");
      await violates("a registry put", () => registry.put("secret", "{}"));
      await violates("a needs put", () => js.publish(`$JS.${HUB}.API.$KV.${NEEDS}.n1.web.config.port`, "{}", { timeout: SHORT.timeout }));
      await violates("a seat put", () => js.publish(`$JS.${HUB}.API.$KV.${SEAT_BUCKET}.holder`, "{}", { timeout: SHORT.timeout }));
      await violates("an object chunk", () => nc.request("$O.mesh-provisioner_checkpoints.C.x", "", SHORT));
      await violates("a feed event", () => nc.request("mesh-provisioner.feed.needs.n1.web.config.port", "{}", SHORT));
      await violates("stream create", () => nc.request(`$JS.${HUB}.API.STREAM.CREATE.${NEEDS_STREAM}`, JSON.stringify({ name: NEEDS_STREAM }), SHORT));
      await violates("stream update", () => nc.request(`$JS.${HUB}.API.STREAM.UPDATE.${NEEDS_STREAM}`, JSON.stringify({ name: NEEDS_STREAM }), SHORT));
    } finally {
      await nc.close();
    }
  });
  test("an instance at the site under the site's grant (serve --no-seat --js-domain hub) syncs, answers the site's nodes at the site, and writes nothing", async () => {
    const args = ["--user", SITE.user, "--password", SITE.password, "--no-seat", "--js-domain", HUB];
    const served = await spawnServed(fleet.site!, { args, name: "site-serve" });
    const client = new ProvisionerClient(n1, { scope: { node: "n1" }, timeoutMs: 5_000 });
    const answered = async (): Promise<number> => {
      const m = /^mesh_provisioner_verb_requests_total\{what="needs",status="200"\} (\d+)/m.exec((await httpGet(`${served.base}/metrics`)).body);
      return Number(m?.[1] ?? 0);
    };
    const before = await answered();
    for (let i = 0; i < 10; i++) {
      const keys = (await client.get({ what: "needs" })).entries.map((e) => e.key);
      assert.ok(keys.includes("n1.web.config.port") && keys.every((k) => k.startsWith("n1.")), `n1's own keys: ${keys.join(", ")}`);
    }
    // NATS hands a request to the queue subscriber on the same server first: all ten were the site's, though the hub's is up.
    assert.equal((await answered()) - before, 10, "the site's instance answered every ask of its node");
    const bad = served.proc.lines.filter((l) => l.fields["level"] === "error" || l.fields["level"] === "fatal" || /permission/i.test(l.msg));
    assert.deepEqual(bad, [], served.proc.tail(40));
    // Its node's ask is answered by the hub's instance, across the link, once the site's stops.
    await served.proc.stop("SIGTERM");
    assert.ok((await client.get({ what: "needs" })).entries.some((e) => e.key === "n1.web.config.port"));
  });

  test("a site's node asking while no instance answers is told no responders at once", async () => {
    await hubServe.stop("SIGTERM");
    const t0 = Date.now();
    await assert.rejects(n1.request("mesh-provisioner.provisioning.n1", JSON.stringify({ what: "registry" }), { timeout: 10_000 }), /no responders/i);
    assert.ok(Date.now() - t0 < 2_000, `told within 2 s, not the request's 10 s timeout (took ${Date.now() - t0} ms)`);
  });
});

describe("a leaf user's grant, from the hub's side: publish is what the leaf sends in, subscribe what the hub sends out", () => {
  test("a subject crosses into the hub only by the leaf user's publish allow, and out to the leaf only by its subscribe allow", async () => {
    const leafPort = await freePort();
    const perms = { publish: { allow: ["up.>"] }, subscribe: { allow: ["down.>"] } };
    const link = { user: "leaf", password: pw() };
    const hubUsers = `accounts { MESH { users: [ { user: hubc, password: p }, ${JSON.stringify({ ...link, permissions: perms })} ] } }`;
    const hub = await startNatsServer({ jetstream: false, configText: `leafnodes { listen: "127.0.0.1:${leafPort}" }\n${hubUsers}` });
    const url = `nats-leaf://${link.user}:${link.password}@127.0.0.1:${leafPort}`;
    const leaf = await startNatsServer({
      jetstream: false,
      configText: `leafnodes { remotes: [{ url: "${url}", account: MESH }] }\naccounts { MESH { users: [ { user: sitec, password: p } ] } }`,
    });
    const atHub = await connect({ servers: hub.url, user: "hubc", pass: "p" });
    const atSite = await connect({ servers: leaf.url, user: "sitec", pass: "p" });
    try {
      const got: string[] = [];
      for (const [nc, subject] of [
        [atHub, "up.x"],
        [atHub, "down.x"],
        [atSite, "down.y"],
        [atSite, "up.y"],
      ] as const) {
        nc.subscribe(subject, {
          callback: (err, m) => {
            if (!err) got.push(`${nc === atHub ? "hub" : "site"} ${m.subject}`);
          },
        });
        await nc.flush();
      }
      // Each side publishes both subjects until the allowed ones have crossed (the link's interest takes a moment).
      await eventually(
        async () => {
          for (const s of ["up.x", "down.x"]) atSite.publish(s);
          for (const s of ["down.y", "up.y"]) atHub.publish(s);
          await atSite.flush();
          await atHub.flush();
          assert.ok(got.includes("hub up.x") && got.includes("site down.y"), `crossed: ${got.join(", ")}`);
        },
        { timeoutMs: 15_000, intervalMs: 200 },
      );
      // Flushed both ways once more: what is not allowed has had every chance to cross.
      atSite.publish("down.x");
      atHub.publish("up.y");
      await atSite.flush();
      await atHub.flush();
      await atHub.request("nothing.answers", "", { timeout: 200 }).catch(() => undefined);
      assert.ok(!got.includes("hub down.x"), "the leaf sends into the hub only what its publish allows");
      assert.ok(!got.includes("site up.y"), "the hub sends to the leaf only what its subscribe allows");
    } finally {
      await atSite.close();
      await atHub.close();
      await leaf.stop();
      await hub.stop();
    }
  });
});
