import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm, type KV } from "@nats-io/kv";
import { connectTo } from "../helpers/stack.js";
import { eventually } from "../helpers/eventually.js";
import { httpGet } from "../helpers/http-get.js";
import { Fleet, type ServiceProcess } from "../helpers/processes.js";
import { spawnServed } from "../helpers/served.js";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { BUCKETS, encodeName, WHATS, type What } from "mesh-provisioner-client/keys";

async function get(url: string): Promise<{ status: number; body: string; revisions?: string }> {
  const r = await httpGet(url);
  return { status: r.status, body: r.body, revisions: r.headers["x-mesh-revisions"] as string | undefined };
}

const json = async (url: string): Promise<any> => {
  const r = await get(url);
  assert.equal(r.status, 200, r.body);
  return JSON.parse(r.body);
};

const SHELL = encodeName("shell:zsh:normal");

describe("the dashboard's mesh-wide lists: registry, kinds, unanswered needs, keys out of shape, collections, instances, change rate", () => {
  let server: RunningNatsServer;
  let client: NatsConnection;
  let fleet: Fleet;
  let serve: ServiceProcess;
  let base: string;
  const kvs = {} as Record<What, KV>;

  before(async () => {
    server = await startNatsServer();
    client = await connectTo(server);
    fleet = new Fleet({ server: server.url });
    ({ proc: serve, base } = await spawnServed(fleet, { name: "serve-mesh-api" }));
    const kvm = new Kvm(client);
    for (const w of WHATS) kvs[w] = await kvm.open(BUCKETS[w]);
    // 12 nodes with a web module (config + port); every fourth also a tracing need no domain answers;
    // each node contributes to shell:zsh:normal, the first three to environment; two keys out of shape.
    for (let i = 0; i < 12; i++) {
      const n = `node-${String(i).padStart(2, "0")}`;
      await kvs.needs.put(`${n}.web.config.listen`, '{"default":":80"}');
      await kvs.needs.put(`${n}.web.port.http`, "{}");
      if (i % 4 === 0) await kvs.needs.put(`${n}.api.tracing.endpoint`, "{}");
      await kvs.collect.put(`${n}.${SHELL}.web`, `alias w${i}=web`);
      if (i < 3) await kvs.collect.put(`${n}.environment.api`, `API=${i}`);
    }
    await kvs.needs.put("node-07.web.config", "three tokens");
    await kvs.applied.put("node-03.web.extra", "{}");
    await eventually(async () => assert.equal((await json(`${base}/api/overview`)).totals.collect, 15), { timeoutMs: 10_000 });
    await eventually(async () => assert.equal((await json(`${base}/api/overview`)).totals.needs, 27), { timeoutMs: 10_000 });
    // Synced is not reconciled: the registry's first writes land after the first sync. Only tracing's 3 needs stay unanswered once all 13 kinds are in.
    await eventually(async () => assert.equal((await json(`${base}/api/overview`)).totals.unanswered, 3), { timeoutMs: 10_000 });
    // Both keys out of shape applied (needs and applied), not only the buckets the counts above cover.
    await eventually(async () => assert.equal((await json(`${base}/api/out-of-shape`)).total, 2), { timeoutMs: 10_000 });
  });

  after(async () => {
    await fleet?.killAll();
    await client?.close().catch(() => undefined);
    await server?.stop();
  });

  test("the registry lists every kind with the domain that answers it, where its values are and its needs across the mesh", async () => {
    const r = await json(`${base}/api/registry?limit=500`);
    // The 13 kinds of the registry, and tracing, which needs name and no domain answers.
    assert.equal(r.total, 14);
    assert.equal(r.matched, 14);
    const byKind = Object.fromEntries(r.rows.map((k: any) => [k.kind, k]));
    assert.deepEqual(byKind["config"].entry, { module: "mesh-config", bucket: "mesh-config_values", key: "<node>.<module>.<name>" });
    assert.equal(byKind["config"].needs, 12);
    assert.equal(byKind["config"].answered, true);
    assert.deepEqual(byKind["secret"].entry, { module: "mesh-vault", verb: "mesh-vault.secret" });
    assert.equal(byKind["secret"].needs, 0);
    assert.deepEqual(byKind["tracing"], { kind: "tracing", answered: false, entry: null, revision: null, needs: 3 });
    const paged = await json(`${base}/api/registry?offset=2&limit=3&match=C`);
    // access, collected, config, consumers, contribution, machine, secret, tracing: the 3rd to the 5th.
    assert.equal(paged.matched, 8);
    assert.deepEqual(
      paged.rows.map((k: any) => k.kind),
      ["config", "consumers", "contribution"],
    );
    assert.equal(paged.offset, 2);
    assert.equal(paged.total, 14);
  });

  test("a kind's page lists the nodes with needs of it, each with how many, paged and filtered by name", async () => {
    const k = await json(`${base}/api/kind?kind=tracing`);
    assert.equal(k.answered, false);
    assert.equal(k.needs, 3);
    assert.equal(k.nodes.matched, 3);
    assert.equal(k.nodes.total, 12);
    assert.deepEqual(
      k.nodes.rows.map((n: any) => [n.node, n.ofKind]),
      [
        ["node-00", 1],
        ["node-04", 1],
        ["node-08", 1],
      ],
    );
    const c = await json(`${base}/api/kind?kind=config&match=node-1&limit=1&offset=1`);
    assert.equal(c.nodes.matched, 2);
    assert.deepEqual(
      c.nodes.rows.map((n: any) => [n.node, n.ofKind]),
      [["node-11", 1]],
    );
    assert.equal(c.entry.module, "mesh-config");
  });

  test("the needs no domain answers: their kinds, and the nodes that have some", async () => {
    const u = await json(`${base}/api/unanswered`);
    assert.deepEqual(u.kinds, [{ kind: "tracing", needs: 3 }]);
    assert.equal(u.kindsTotal, 1);
    assert.equal(u.needs, 3);
    assert.deepEqual(
      u.nodes.rows.map((n: any) => [n.node, n.unanswered]),
      [
        ["node-00", 1],
        ["node-04", 1],
        ["node-08", 1],
      ],
    );
  });

  test("the keys out of shape are listed across the buckets with why and their node, paged and filtered", async () => {
    const o = await json(`${base}/api/out-of-shape`);
    assert.equal(o.total, 2);
    assert.deepEqual(
      o.rows.map((r: any) => [r.what, r.key, r.node]),
      [
        ["needs", "node-07.web.config", "node-07"],
        ["applied", "node-03.web.extra", "node-03"],
      ],
    );
    assert.match(o.rows[0].reason, /needs keys have 4 tokens/);
    const second = await json(`${base}/api/out-of-shape?offset=1&limit=1`);
    assert.deepEqual(
      second.rows.map((r: any) => r.key),
      ["node-03.web.extra"],
    );
    const only = await json(`${base}/api/out-of-shape?what=applied`);
    assert.equal(only.total, 1);
    const matched = await json(`${base}/api/out-of-shape?match=NODE-07`);
    assert.equal(matched.matched, 1);
    assert.equal(matched.rows[0].key, "node-07.web.config");
  });

  test("the collections are listed with their items, and a collection's items across the mesh with who contributed each", async () => {
    const cs = await json(`${base}/api/collections`);
    assert.deepEqual(cs.rows, [
      { collection: "environment", items: 3 },
      { collection: "shell:zsh:normal", items: 12 },
    ]);
    const c = await json(`${base}/api/collection?collection=${encodeURIComponent("shell:zsh:normal")}&offset=10&limit=5`);
    assert.equal(c.total, 12);
    assert.equal(c.matched, 12);
    assert.deepEqual(
      c.rows.map((e: any) => [e.node, e.contributor, e.value]),
      [
        ["node-10", "web", "alias w10=web"],
        ["node-11", "web", "alias w11=web"],
      ],
    );
    const m = await json(`${base}/api/collection?collection=environment&match=node-02`);
    assert.equal(m.matched, 1);
    assert.equal(m.rows[0].value, "API=2");
    const none = await json(`${base}/api/collection?collection=nothing-here`);
    assert.deepEqual([none.total, none.matched, none.rows], [0, 0, []]);
  });

  test("the instances: each one answering, which holds the seat, how far behind each projection is and how it started", async () => {
    const second = fleet.spawn({ args: [], name: "serve-mesh-api-2" });
    try {
      await second.waitForLine((l) => l.msg.startsWith("all projections synced"), 15_000, "all projections synced");
      const got = await eventually(
        async () => {
          const i = await json(`${base}/api/instances`);
          assert.equal(i.instances.length, 2, JSON.stringify(i));
          // A standby joins the verb once synced: until then it is listed without its instance's stats.
          assert.deepEqual(i.instances.map((x: any) => x.instance).sort(), [serve.instance, second.instance].sort(), JSON.stringify(i));
          return i;
        },
        { timeoutMs: 10_000, intervalMs: 300 },
      );
      assert.equal(got.holders, 1);
      const self = got.instances.find((i: any) => i.self);
      assert.equal(self.instance, serve.instance);
      assert.equal(self.isHolder, true);
      assert.equal(self.projections.needs.lag, 0);
      assert.equal(self.projections.needs.behindFurthest, 0);
      assert.equal(self.projections.needs.revision, got.furthest.needs);
      assert.deepEqual(self.projections.needs.start, { from: "full", reason: "missing" });
      const other = got.instances.find((i: any) => !i.self);
      assert.equal(other.instance, second.instance);
      assert.equal(other.isHolder, false);
    } finally {
      await second.stop("SIGTERM");
    }
  });

  test("the change rate counts each bucket's changes applied in the last hour, in ten-second steps", async () => {
    const before = await json(`${base}/api/rate`);
    assert.equal(before.stepMs, 10_000);
    assert.equal(before.counts.needs.length, 360);
    const sum = (r: any, w: string): number => r.counts[w].reduce((a: number, b: number) => a + b, 0);
    for (let i = 0; i < 5; i++) await kvs.applied.put(`node-0${i}.web`, "{}");
    await eventually(async () => assert.equal(sum(await json(`${base}/api/rate`), "applied") - sum(before, "applied"), 5), { timeoutMs: 5000 });
    const after = await json(`${base}/api/rate`);
    assert.ok(sum(after, "needs") >= 27, "the needs put since the service synced are counted");
  });

  test("the change rate counts from the process's start: the registry's first writes, made by this instance on a new mesh, are in it", async () => {
    // The mesh was new: every registry entry is a write this instance made (the seat holder's first reconcile) after its first sync.
    const entries = (await json(`${base}/api/overview`)).buckets.registry.entries;
    assert.ok(entries >= 13, `the registry holds the table's kinds (${entries})`);
    const rate = await json(`${base}/api/rate`);
    assert.equal(
      rate.counts.registry.reduce((a: number, b: number) => a + b, 0),
      entries,
      "each registry write of this instance is counted in the hour",
    );
  });

  test("every answer says the revisions it was read at, as the overview's buckets report them", async () => {
    const r = await get(`${base}/api/collections`);
    const o = await json(`${base}/api/overview`);
    assert.equal(r.revisions, WHATS.map((w) => o.buckets[w].revision).join(","));
  });

  test("a parameter out of range or missing is a 400 E_BAD_REQUEST that says which", async () => {
    for (const path of [
      "/api/registry?limit=0",
      "/api/registry?limit=501",
      "/api/kind",
      "/api/kind?kind=a.b",
      "/api/unanswered?offset=-1",
      "/api/out-of-shape?what=nodes",
      "/api/collections?match=" + "x".repeat(257),
      "/api/collection",
      "/api/collection?collection=shell&limit=x",
    ]) {
      const r = await get(`${base}${path}`);
      assert.equal(r.status, 400, path);
      assert.equal(JSON.parse(r.body).error.code, "E_BAD_REQUEST", path);
    }
  });
});
