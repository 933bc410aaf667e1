import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { request, type IncomingMessage } from "node:http";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm, type KV } from "@nats-io/kv";
import { connectTo } from "../helpers/stack.js";
import { eventually } from "../helpers/eventually.js";
import { httpGet, type Got } from "../helpers/http-get.js";
import { Fleet } from "../helpers/processes.js";
import { spawnServed } from "../helpers/served.js";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { BUCKETS } from "mesh-provisioner-client/keys";
import { WHATS, type What } from "mesh-provisioner-client/keys";

const TOKEN = "a-token-of-at-least-16-chars";
const AUTH = { authorization: `Bearer ${TOKEN}` };

const get = (url: string, headers: Record<string, string> = AUTH): Promise<Got> => httpGet(url, headers);

const json = async (url: string): Promise<any> => {
  const r = await get(url);
  assert.equal(r.status, 200, r.body);
  return JSON.parse(r.body);
};

/** An open event stream: the events received so far, parsed. */
interface Stream {
  readonly events: { event: string; data: any }[];
  close(): void;
}

async function openEvents(url: string, headers: Record<string, string> = {}): Promise<Stream> {
  const events: { event: string; data: any }[] = [];
  let res: IncomingMessage | undefined;
  const req = request(url, { agent: false, headers });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${url} did not open within 5 s`)), 5000);
    req.once("error", reject);
    req.once("response", (r) => {
      res = r;
      if (r.statusCode !== 200) return reject(new Error(`${url}: ${r.statusCode}`));
      let text = "";
      r.setEncoding("utf8").on("data", (c: string) => {
        text += c;
        let end: number;
        while ((end = text.indexOf("\n\n")) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) });
        }
      });
      clearTimeout(timer);
      resolve();
    });
    req.end();
  });
  return { events, close: () => (req.destroy(), res?.destroy()) };
}

describe("the dashboard's data: overview, node list, node page, filtered events, token", () => {
  let server: RunningNatsServer;
  let client: NatsConnection;
  let fleet: Fleet;
  let base: string;
  const kvs = {} as Record<What, KV>;

  before(async () => {
    server = await startNatsServer();
    client = await connectTo(server);
    fleet = new Fleet({ server: server.url });
    ({ base } = await spawnServed(fleet, { env: { MESH_PROVISIONER_HTTP_TOKEN: TOKEN }, name: "serve-dashboard-api" }));
    const kvm = new Kvm(client);
    for (const w of WHATS) kvs[w] = await kvm.open(BUCKETS[w]);
    // 30 nodes: each with a web module (config + port), every third also an api module with an unanswered kind;
    // even nodes have web applied; node-07 has a key out of shape; two collect items.
    for (let i = 0; i < 30; i++) {
      const n = `node-${String(i).padStart(2, "0")}`;
      await kvs.needs.put(`${n}.web.config.listen`, '{"default":":80"}');
      await kvs.needs.put(`${n}.web.port.http`, "{}");
      if (i % 3 === 0) await kvs.needs.put(`${n}.api.tracing.endpoint`, "{}");
      if (i % 2 === 0) await kvs.applied.put(`${n}.web`, "{}");
    }
    await kvs.needs.put("node-07.web.config", "three tokens");
    await kvs.collect.put("node-01.shell.web", "export A=1");
    await kvs.collect.put("node-02.shell.web", "export A=2");
    // The needs written, and the registry the seat's holder writes at its start: which kinds are answered follows it.
    await eventually(
      async () => {
        const o = await json(`${base}/api/overview`);
        assert.equal(o.totals.needs, 70);
        assert.equal(o.buckets.registry.entries, 13);
      },
      { timeoutMs: 10_000 },
    );
  });

  after(async () => {
    await fleet?.killAll();
    await client?.close().catch(() => undefined);
    await server?.stop();
  });

  test("the overview's totals are the mesh's, counted as the service applied the changes", async () => {
    const o = await json(`${base}/api/overview`);
    assert.deepEqual(o.totals, {
      nodes: 30,
      // every odd node lacks web applied (15); of the even ones, those with an api module (i % 6 == 0: 5) lack it and its kind is unanswered.
      nodesWithProblems: 20,
      modules: 40,
      needs: 70,
      unanswered: 10,
      notApplied: 25,
      applied: 15,
      collect: 2,
      outOfShape: { needs: 1, applied: 0, collect: 0 },
      outOfShapeWithoutNode: 0,
      nodesFlooding: 0,
      flooding: [],
    });
    assert.equal(o.buckets.needs.entries, 70);
    assert.equal(o.buckets.registry.entries, 13);
    assert.equal(o.seat.isHolder, true);
    assert.ok(Buffer.byteLength(JSON.stringify(o)) < 4096, "the overview is small");
  });

  test("the node list is paged, sorted and filtered by the server, and says which part it shows", async () => {
    const p = await json(`${base}/api/nodes?offset=10&limit=5`);
    assert.equal(p.total, 30);
    assert.equal(p.matched, 30);
    assert.equal(p.offset, 10);
    assert.deepEqual(
      p.rows.map((r: any) => r.node),
      ["node-10", "node-11", "node-12", "node-13", "node-14"],
    );
    assert.deepEqual(p.rows[2], {
      node: "node-12",
      modules: 2,
      needs: 3,
      unanswered: 1,
      notApplied: 1,
      applied: 1,
      problems: true,
      collect: 0,
      outOfShape: 0,
      keys: 4,
      bytes: p.rows[2].bytes,
      flooding: false,
      last: p.rows[2].last,
    });
    assert.ok(p.rows[2].bytes > 100, "the bytes of its entries as held");
    assert.equal(p.totals.nodes, 30);
    const m = await json(`${base}/api/nodes?match=NODE-2`);
    assert.deepEqual(
      m.rows.map((r: any) => r.node),
      Array.from({ length: 10 }, (_, i) => `node-2${i}`),
    );
    const wrong = await json(`${base}/api/nodes?problems=1&limit=500`);
    assert.equal(wrong.matched, 20);
    assert.ok(wrong.rows.every((r: any) => r.problems));
    for (const bad of ["limit=0", "limit=501", "offset=-1", "problems=maybe"]) {
      const r = await get(`${base}/api/nodes?${bad}`);
      assert.equal(r.status, 400, bad);
      assert.equal(JSON.parse(r.body).error.code, "E_BAD_REQUEST");
    }
  });

  test("a node's page holds its needs with answered flags, what is applied, its collect items and its keys out of shape", async () => {
    const d = await json(`${base}/api/node?node=node-06`);
    assert.equal(d.row.needs, 3);
    assert.deepEqual(
      d.needs.entries.map((e: any) => [e.key, e.answered ?? true]),
      [
        ["node-06.api.tracing.endpoint", false],
        ["node-06.web.config.listen", true],
        ["node-06.web.port.http", true],
      ],
    );
    assert.deepEqual(
      d.applied.entries.map((e: any) => e.key),
      ["node-06.web"],
    );
    const seven = await json(`${base}/api/node?node=node-07`);
    assert.deepEqual(
      seven.needs.outOfShape.map((o: any) => o.key),
      ["node-07.web.config"],
    );
    const none = await json(`${base}/api/node?node=nobody`);
    assert.equal(none.row, null);
    assert.deepEqual(none.needs.entries, []);
    assert.equal((await get(`${base}/api/node?node=a.b`)).status, 400);
    assert.equal((await get(`${base}/api/node`)).status, 400);
  });

  test("a node's event stream carries that node's changes and the registry's, not other nodes'", async () => {
    const s = await openEvents(`${base}/events?node=node-03`, AUTH);
    try {
      await eventually(() => assert.equal(s.events[0]?.event, "overview"), { timeoutMs: 5000 });
      await kvs.needs.put("node-04.web.secret.key", "{}");
      const rev = await kvs.needs.put("node-03.web.secret.key", '{"length":32}');
      const change = await eventually(
        () => {
          const c = s.events.find((e) => e.event === "change" && e.data.key === "node-03.web.secret.key");
          assert.ok(c, JSON.stringify(s.events.map((e) => e.event)));
          return c;
        },
        { timeoutMs: 5000 },
      );
      assert.equal(change.data.revision, rev);
      assert.deepEqual(change.data.entry.value, { length: 32 });
      assert.ok(!s.events.some((e) => e.event === "change" && e.data.key.startsWith("node-04.")), "another node's change is not sent");
      // The overview moved (two needs more): it is sent again, throttled.
      await eventually(() => assert.ok(s.events.some((e) => e.event === "overview" && e.data.totals.needs === 72)), { timeoutMs: 5000 });
    } finally {
      s.close();
    }
  });

  test("a stream without a node gets the overview's counts only, whatever the mesh writes", async () => {
    const s = await openEvents(`${base}/events?access_token=${TOKEN}`);
    try {
      for (let i = 0; i < 50; i++) await kvs.needs.put(`node-05.web.config.k${i}`, "{}");
      await eventually(() => assert.ok(s.events.some((e) => e.event === "overview" && e.data.totals.needs === 122)), { timeoutMs: 5000 });
      assert.deepEqual([...new Set(s.events.map((e) => e.event))], ["overview"]);
      assert.ok(s.events.length <= 8, `the overview is throttled: ${s.events.length} events for 50 writes`);
    } finally {
      s.close();
    }
  });

  test("with a token, the data and the event stream need it; the page, /healthz, /readyz and /metrics stay open", async () => {
    for (const path of [
      "/api/overview",
      "/api/nodes",
      "/api/node?node=node-01",
      "/api/registry",
      "/api/kind?kind=config",
      "/api/unanswered",
      "/api/out-of-shape",
      "/api/collections",
      "/api/collection?collection=shell",
      "/api/instances",
      "/api/rate",
      "/events",
    ]) {
      const r = await get(`${base}${path}`, {});
      assert.equal(r.status, 401, path);
      assert.equal(JSON.parse(r.body).error.code, "E_UNAUTHORIZED");
      assert.equal((await get(`${base}${path}`, { authorization: "Bearer wrong-token-wrong-token" })).status, 401, path);
    }
    assert.equal((await get(`${base}/api/overview?access_token=${TOKEN}`, {})).status, 200);
    for (const path of ["/api/registry", "/api/collection?collection=shell", "/api/instances", "/api/rate"])
      assert.equal((await get(`${base}${path}`)).status, 200, path);
    for (const path of ["/", "/healthz", "/readyz", "/metrics"]) assert.equal((await get(`${base}${path}`, {})).status, 200, path);
  });
});
