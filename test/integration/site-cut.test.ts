/**
 * A site cut off from its hub, on real servers: a hub with JetStream in
 * domain `hub` (its instance holds the seat), a site's leaf server without
 * JetStream joined to it through a relay the test cuts and mends, and an
 * instance at the site (`--no-seat --js-domain hub`). While the link is down
 * the site's instance keeps answering from its projection and says how
 * stale: `stale` with `silentMs` growing; a `minRevision` past what it holds
 * is a 504 within `--max-wait`, carrying `stale`. Once the link is back it
 * catches up on what the hub wrote meanwhile and `stale` is gone, without a
 * restart; the hub's instance holds the seat throughout.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import type { KV } from "@nats-io/kv";
import { BUCKETS, SEAT_BUCKET } from "mesh-provisioner-client/keys";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import type { Page, Staleness } from "mesh-provisioner-client/protocol/messages.js";
import type { StatsReply } from "mesh-provisioner-client/protocol/stats.js";
import { statsOf } from "mesh-provisioner-client/protocol/stats.js";
import { freePort, startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { jetStreamAccess } from "../../src/streams/jetstream-access.js";
import { Fleet } from "../helpers/processes.js";
import { spawnServed, type Served } from "../helpers/served.js";
import { eventually } from "../helpers/eventually.js";
import { httpGet } from "../helpers/http-get.js";

/**
 * The site's instance says stale after this long without hearing from the hub: a quiet stream is heard once a
 * second (the stall check's read of its state), so this leaves a second for a read slowed by a busy machine.
 */
const STALE_AFTER_MS = 2_000;
/** The site's --max-wait: a minRevision it cannot reach is a 504 within it. */
const MAX_WAIT_MS = 2_000;

interface Reply {
  readonly page?: Page<"needs">;
  readonly error?: { code: number; message: string };
  readonly stale?: Staleness;
  readonly ms: number;
}

/** Ask the verb on `nc` (the nearest instance answers: at the leaf, the site's own). */
async function ask(nc: NatsConnection, req: Record<string, unknown>): Promise<Reply> {
  const t0 = Date.now();
  const m = await nc.request(VERB_SUBJECT, JSON.stringify({ what: "needs", ...req }), { timeout: MAX_WAIT_MS + 3_000 });
  const body = m.json<Record<string, unknown>>();
  const ms = Date.now() - t0;
  if (body["error"] !== undefined) return { error: body["error"] as Reply["error"], stale: body["stale"] as Staleness | undefined, ms };
  const page = body as unknown as Page<"needs">;
  return { page, stale: page.stale, ms };
}

const keysOf = (r: Reply): string[] => (r.page?.entries ?? []).map((e) => e.key);

describe("a site cut off from its hub keeps answering, says how stale, and catches up when the link is back", () => {
  let hub: RunningNatsServer;
  let leaf: RunningNatsServer;
  let relay: TcpProxy;
  let atHub: NatsConnection;
  let atLeaf: NatsConnection;
  let needs: KV;
  let seatKv: KV;
  let fleet: Fleet;
  let siteFleet: Fleet;
  let hubInstance: Served;
  let siteInstance: Served;
  /** The hub's instance's hold of the seat as the key names it: the same for the whole test. */
  let hold: string;
  let before1: number;
  let during: number;

  const holdNow = async (): Promise<string> => {
    const e = await seatKv.get("holder");
    assert.ok(e !== null && e.operation === "PUT", "the seat is held");
    const v = e.json<{ instance: string; since: string }>();
    return `${v.instance} since ${v.since}`;
  };

  before(async () => {
    const leafPort = await freePort();
    relay = await startTcpProxy({ port: leafPort });
    // The hub advertises the relay as its leaf node address: a leaf adds the address the hub advertises to its
    // remote's, and would otherwise reconnect straight to the hub around a cut relay.
    hub = await startNatsServer({ jsDomain: "hub", configText: `leafnodes { listen: "127.0.0.1:${leafPort}", advertise: "127.0.0.1:${relay.port}" }` });
    leaf = await startNatsServer({ jetstream: false, configText: `leafnodes { remotes: [{ url: "nats-leaf://127.0.0.1:${relay.port}" }] }` });
    atHub = await connect({ servers: hub.url });
    atLeaf = await connect({ servers: leaf.url });
    const throughLeaf = jetStreamAccess(atLeaf, { domain: "hub" });
    await eventually(async () => (await throughLeaf.manager()).getAccountInfo(), { timeoutMs: 15_000, intervalMs: 100, message: "the leaf's link to the hub" });

    fleet = new Fleet({ server: hub.url });
    hubInstance = await spawnServed(fleet, { name: "hub", args: ["--seat-ttl", "2s"] });
    const kvm = jetStreamAccess(atHub).kvm();
    needs = await kvm.open(BUCKETS.needs);
    seatKv = await kvm.open(SEAT_BUCKET);
    await eventually(async () => (hold = await holdNow()), { timeoutMs: 10_000, message: "the hub's instance takes the seat" });
    before1 = await needs.put("n1.web.config.port", JSON.stringify({ default: 8080 }));
    siteFleet = new Fleet({ server: leaf.url });
    siteInstance = await spawnServed(siteFleet, {
      name: "site",
      args: ["--js-domain", "hub", "--no-seat", "--stale-after", `${STALE_AFTER_MS}ms`, "--max-wait", `${MAX_WAIT_MS}ms`, "--seat-ttl", "2s"],
    });
  });

  after(async () => {
    relay?.restore();
    await siteFleet?.killAll();
    await fleet?.killAll();
    await atLeaf?.close();
    await atHub?.close();
    await leaf?.stop();
    await relay?.close();
    await hub?.stop();
  });

  test("while the link is up the site's instance answers the site, current and without stale; it never campaigns nor creates", async () => {
    const r = await eventually(
      async () => {
        const r = await ask(atLeaf, { node: "n1", minRevision: before1 });
        assert.deepEqual(keysOf(r), ["n1.web.config.port"], JSON.stringify(r));
        return r;
      },
      { timeoutMs: 10_000, message: "the site answers at the hub's revision" },
    );
    assert.equal(r.stale, undefined, "a projection that hears its stream says nothing of staleness");
    assert.equal(await holdNow(), hold);
    const site = siteInstance.proc;
    assert.ok(
      site.lines.some((l) => l.msg.startsWith("running without the seat")),
      site.tail(20),
    );
    assert.ok(!site.lines.some((l) => /created the missing bucket|holds the seat: it writes/.test(l.msg)), site.tail(40));
  });

  test("cut: the site keeps answering from its projection, with stale naming the revision it holds, and silentMs growing", async () => {
    relay.cut();
    during = await needs.put("n1.web.config.host", JSON.stringify({ default: "localhost" }));
    const first = await eventually(
      async () => {
        const r = await ask(atLeaf, { node: "n1" });
        assert.ok(r.stale !== undefined, `stale once silent past ${STALE_AFTER_MS} ms: ${JSON.stringify(r)}`);
        return r;
      },
      { timeoutMs: 10_000, intervalMs: 200, message: "the site's answers say stale" },
    );
    const stale = first.stale!;
    assert.deepEqual(keysOf(first), ["n1.web.config.port"], "answered from what it holds: the write made at the hub since is not there");
    assert.equal(stale.revision, first.page!.revision, "stale names the revision of the answer");
    assert.ok(stale.revision < during, `it holds ${stale.revision}, the hub wrote ${during}`);
    assert.ok(stale.silentMs > STALE_AFTER_MS, JSON.stringify(stale));
    assert.match(stale.since, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The same question again, a while later: answered from the answer cache, its silence longer, since unchanged.
    const siteStats = async () => statsOf((await atLeaf.request("$SRV.STATS.mesh-provisioner", "", { timeout: 3_000 })).json<StatsReply>());
    const hits = (await siteStats())?.cacheHits ?? 0;
    await new Promise((r) => setTimeout(r, 300));
    const again = await ask(atLeaf, { node: "n1" });
    assert.ok(again.stale !== undefined && again.stale.silentMs > stale.silentMs, JSON.stringify(again.stale));
    assert.equal(again.stale.since, stale.since);
    assert.deepEqual(keysOf(again), keysOf(first));
    assert.equal((await siteStats())?.cacheHits, hits + 1, "the page came from the answer cache, and still says stale");

    // $SRV.STATS and /metrics say the same.
    const stats = await siteStats();
    const projection = stats?.projections?.needs;
    assert.ok(projection?.stale !== undefined && projection.heardAt === stale.since, JSON.stringify(projection));
    const metrics = await httpGet(`${siteInstance.base}/metrics`);
    assert.match(metrics.body, /^mesh_provisioner_projection_stale\{bucket="needs"\} 1$/m);
    // The dashboard says it too: its overview (the header's "may be stale" pill) and its instances page.
    const overview = JSON.parse((await httpGet(`${siteInstance.base}/api/overview`)).body) as { buckets: Record<string, { staleSince: string | null }> };
    assert.equal(overview.buckets["needs"]?.staleSince, stale.since, JSON.stringify(overview.buckets));
    const instances = JSON.parse((await httpGet(`${siteInstance.base}/api/instances`)).body) as {
      instances: { self: boolean; projections: Record<string, { staleSince: string | null }> }[];
    };
    const self = instances.instances.find((i) => i.self);
    assert.equal(self?.projections["needs"]?.staleSince, stale.since, JSON.stringify(instances));
  });

  test("cut: a minRevision past what the site holds is a 504 within --max-wait, carrying stale", async () => {
    const r = await ask(atLeaf, { node: "n1", minRevision: during });
    assert.equal(r.error?.code, 504, JSON.stringify(r));
    assert.ok(r.stale !== undefined && r.stale.revision < during, JSON.stringify(r));
    assert.ok(r.ms < MAX_WAIT_MS + 1_500, `answered in ${r.ms} ms`);
    assert.equal(await holdNow(), hold, "the hub's instance holds the seat through the cut");
  });

  test("mended: the site catches up on the hub's writes without a restart, and stale is gone", async () => {
    relay.restore();
    const after = await needs.put("n1.web.config.user", JSON.stringify({ default: "web" }));
    const r = await eventually(
      async () => {
        const r = await ask(atLeaf, { node: "n1", minRevision: after });
        assert.deepEqual(keysOf(r), ["n1.web.config.host", "n1.web.config.port", "n1.web.config.user"], JSON.stringify(r));
        assert.equal(r.stale, undefined, JSON.stringify(r.stale));
        return r;
      },
      { timeoutMs: 20_000, intervalMs: 200, message: "the site catches up" },
    );
    assert.ok(r.page!.revision >= after);
    // Quiet is not stale: with nothing written for longer than --stale-after, the watch still hears the stream (its state, read every second).
    await new Promise((r) => setTimeout(r, 2 * STALE_AFTER_MS));
    const quiet = await ask(atLeaf, { node: "n1" });
    assert.equal(quiet.stale, undefined, JSON.stringify(quiet.stale));
    const metrics = await httpGet(`${siteInstance.base}/metrics`);
    assert.match(metrics.body, /^mesh_provisioner_projection_stale\{bucket="needs"\} 0$/m);
    const overview = JSON.parse((await httpGet(`${siteInstance.base}/api/overview`)).body) as { buckets: Record<string, { staleSince: string | null }> };
    assert.deepEqual(
      Object.values(overview.buckets).map((b) => b.staleSince),
      [null, null, null, null],
      "the dashboard's pill is gone",
    );
    assert.equal(siteInstance.proc.exit, undefined, "the site's instance was never restarted");
    assert.equal(await holdNow(), hold, "no handover");
    const hubLog = hubInstance.proc;
    assert.ok(!hubLog.lines.some((l) => l.msg.startsWith("this instance no longer holds the seat")), hubLog.tail(30));
  });
});
