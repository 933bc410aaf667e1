/**
 * A hub and two sites on real servers (issue 47): a hub of three servers with
 * JetStream in domain `hub`, site `a` a leaf server without JetStream, site
 * `b` a leaf server with a JetStream domain of its own, each joined to the hub
 * through a relay the test cuts and mends. One instance at the hub holds the
 * seat; one instance at each site (`serve --no-seat --js-domain hub`) answers
 * its site's nodes. Nodes write their own keys in the hub's buckets through
 * the domain and ask the verb, with the TypeScript client and with the Go
 * client (test/go-site, built here with the machine's go).
 *
 * The history check: a recorder at the hub sees every write to the needs
 * bucket with its revision, so the bucket's state at any revision can be
 * rebuilt; every answer a node got names a revision, and its entries must be
 * the bucket's at that revision, never ahead of it nor unlike it. Every
 * answer asked while the site's link was down, once its instance could have
 * noticed (`--stale-after` and the once-a-second check), says `stale`.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm, KvWatchInclude, type KV } from "@nats-io/kv";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
import { NoAnswerError, ProvisionerClient, nodeVerbSubject } from "mesh-provisioner-client";
import { HUB_DOMAIN, startSites, type Site, type Sites } from "../helpers/sites.js";
import { Fleet, ROOT } from "../helpers/processes.js";
import { executable, toolForTests } from "../helpers/tool.js";
import { spawnServed, type Served } from "../helpers/served.js";
import { eventually } from "../helpers/eventually.js";
import { httpGet } from "../helpers/http-get.js";
import { parseExposition } from "../helpers/prometheus-text.js";
import { recordSeat, type SeatHistory } from "../helpers/seat-history.js";

const STALE_AFTER_MS = 1_000;
/** After a cut, by when every answer must say stale: --stale-after, the once-a-second check, a request's way. */
const STALE_BY_MS = STALE_AFTER_MS + 1_500;
const CUT_MS = 5_000;
/** The site instances' --max-wait: a minRevision the site cannot reach is a 504 by then. */
const MAX_WAIT_MS = 2_000;
const ASK_TIMEOUT_MS = 3_000;

interface Staleness {
  readonly since: string;
  readonly silentMs: number;
  readonly revision: number;
}

/** One write to the needs bucket as the hub's recorder saw it. */
interface Op {
  readonly key: string;
  readonly revision: number;
  readonly put: boolean;
}

/** One answer a node got. */
interface Asked {
  readonly node: string;
  readonly askedAt: number;
  readonly answeredAt: number;
  readonly revision: number;
  /** key → the revision of its entry, for every entry and entry out of shape. */
  readonly entries: ReadonlyMap<string, number | undefined>;
  readonly stale: Staleness | undefined;
}

const run = promisify(execFile);
const goFound = ((): { bin: string } | { missing: string } => {
  const dirs = [...(process.env["PATH"] ?? "").split(delimiter).filter(Boolean), "/usr/local/go/bin"];
  const bin = dirs.map((d) => join(d, "go")).find(executable);
  return bin ? { bin } : { missing: "go was not found on PATH or at /usr/local/go/bin/go" };
})();
const go = toolForTests(goFound, "go", "a Go node at each site");

/** The node's keys in the bucket at `revision`, each with the revision of its value: rebuilt from every write up to it. */
function stateAt(ops: readonly Op[], node: string, revision: number): Map<string, number> {
  const state = new Map<string, number>();
  for (const op of ops) {
    if (op.revision > revision || !op.key.startsWith(`${node}.`)) continue;
    if (op.put) state.set(op.key, op.revision);
    else state.delete(op.key);
  }
  return state;
}

/** Record every write to the needs bucket from now on, at the hub. */
async function recordNeeds(nc: NatsConnection): Promise<{ ops: Op[]; stop: () => void }> {
  const kv = await new Kvm(nc).open(BUCKETS.needs);
  const ops: Op[] = [];
  const w = await kv.watch({ key: ">", include: KvWatchInclude.AllHistory });
  void (async () => {
    for await (const e of w) ops.push({ key: e.key, revision: e.revision, put: e.operation === "PUT" });
  })().catch(() => undefined);
  return { ops, stop: () => w.stop() };
}

/** Verb requests an instance answered, as its /metrics counts them. */
async function answeredBy(served: Served): Promise<number> {
  const text = (await httpGet(`${served.base}/metrics`)).body;
  return parseExposition(text)
    .samples.filter((s) => s.name === "mesh_provisioner_verb_requests_total")
    .reduce((sum, s) => sum + s.value, 0);
}

/** A node at a site: its connection to the site's leaf server, its keys written through the hub's domain, its client. */
class SiteNode {
  readonly client: ProvisionerClient;
  private constructor(
    readonly name: string,
    readonly nc: NatsConnection,
    private readonly kv: KV,
    private readonly answers: Asked[],
  ) {
    this.client = new ProvisionerClient(nc, { scope: { node: name }, timeoutMs: ASK_TIMEOUT_MS });
  }

  static async at(site: Site, name: string, answers: Asked[]): Promise<SiteNode> {
    const nc = await connect({ servers: site.url, name, maxReconnectAttempts: -1 });
    const kv = await new Kvm(jetstream(nc, { domain: HUB_DOMAIN })).open(BUCKETS.needs);
    return new SiteNode(name, nc, kv, answers);
  }

  put(module: string, name: string, value: unknown): Promise<number> {
    return this.kv.put(`${this.name}.${module}.config.${name}`, JSON.stringify({ default: value }));
  }

  /** Ask for this node's needs (one page) and record the answer for the history check. */
  async ask(minRevision?: number): Promise<Asked> {
    const askedAt = Date.now();
    const page = await this.client.page({ what: "needs", node: this.name, ...(minRevision === undefined ? {} : { minRevision }) });
    const entries = new Map<string, number | undefined>(page.entries.map((e) => [e.key, e.revision]));
    for (const o of page.outOfShape) entries.set(o.key, undefined);
    const stale = page.stale;
    const asked: Asked = { node: this.name, askedAt, answeredAt: Date.now(), revision: page.revision, entries, stale };
    this.answers.push(asked);
    return asked;
  }

  close(): Promise<void> {
    return this.nc.close();
  }
}

describe("a hub of three servers and two sites, each joined through a link that is cut and mended", () => {
  let sites: Sites;
  let hubNc: NatsConnection;
  let hubServed: Served;
  const siteServed = new Map<string, Served>();
  const fleets: Fleet[] = [];
  const answers: Asked[] = [];
  let needs: { ops: Op[]; stop: () => void };
  let seat: SeatHistory;
  let a1: SiteNode;
  let b1: SiteNode;

  const goDir = mkdtempSync(join(tmpdir(), "go-site-"));
  const goSite = join(goDir, "go-site");

  const serveAt = async (site: Site): Promise<Served> => {
    const fleet = new Fleet({ server: site.url });
    fleets.push(fleet);
    const served = await spawnServed(fleet, {
      name: `site-${site.name}`,
      args: ["--no-seat", "--js-domain", HUB_DOMAIN, "--stale-after", `${STALE_AFTER_MS}ms`, "--max-wait", `${MAX_WAIT_MS}ms`],
    });
    siteServed.set(site.name, served);
    return served;
  };

  before(async () => {
    if (!go.skip) await run(go.bin, ["build", "-o", goSite, "."], { cwd: join(ROOT, "test", "go-site"), timeout: 240_000 });
    sites = await startSites();
    // The hub's instance on the hub server site b's link reaches: with site b's instance stopped, b's asks land next to it.
    const hubFleet = new Fleet({ server: sites.hub.urls[1]! });
    fleets.push(hubFleet);
    hubServed = await spawnServed(hubFleet, { name: "hub" });
    hubNc = await connect({ servers: sites.hub.urls[0]!, maxReconnectAttempts: -1 });
    needs = await recordNeeds(hubNc);
    seat = await recordSeat(hubNc);
    await Promise.all(sites.sites.map((s) => serveAt(s)));
    a1 = await SiteNode.at(sites.site("a"), "a1", answers);
    b1 = await SiteNode.at(sites.site("b"), "b1", answers);
  });

  after(async () => {
    needs?.stop();
    seat?.stop();
    await Promise.all(fleets.map((f) => f.killAll()));
    await Promise.all([a1, b1].map((n) => n?.close().catch(() => undefined)));
    await hubNc?.close().catch(() => undefined);
    await sites?.stop();
    rmSync(goDir, { recursive: true, force: true });
  });

  /** Every answer recorded so far names a revision whose state it equals (the recorder must have seen that far first). */
  const checkHistory = async (): Promise<void> => {
    const jsm = await jetstreamManager(hubNc);
    const last = (await jsm.streams.info(streamName(BUCKETS.needs))).state.last_seq;
    await eventually(() => assert.ok((needs.ops.at(-1)?.revision ?? 0) >= last, `the recorder saw up to ${last}`), { timeoutMs: 10_000 });
    for (const a of answers) {
      assert.ok(a.revision <= last, `${a.node} was answered at revision ${a.revision}, past the bucket's ${last}`);
      const want = stateAt(needs.ops, a.node, a.revision);
      assert.deepEqual(a.entries, want, `${a.node}'s answer at revision ${a.revision} (asked at ${a.askedAt}) equals the bucket at that revision`);
    }
  };

  test("nodes at both sites write their own keys through the hub's domain and are answered at their site", async () => {
    const before = { a: await answeredBy(siteServed.get("a")!), b: await answeredBy(siteServed.get("b")!), hub: await answeredBy(hubServed) };
    for (const node of [a1, b1]) {
      let revision = 0;
      for (const name of ["port", "host", "user"]) revision = await node.put("web", name, `${node.name}-${name}`);
      const asked = await node.ask(revision);
      assert.deepEqual([...asked.entries.keys()].sort(), [`${node.name}.web.config.host`, `${node.name}.web.config.port`, `${node.name}.web.config.user`]);
      assert.equal(asked.stale, undefined, "an answer with its link up is not stale");
      for (let i = 0; i < 9; i++) await node.ask();
    }
    assert.equal((await answeredBy(siteServed.get("a")!)) - before.a, 10, "site a's instance answered every ask of a1");
    assert.equal((await answeredBy(siteServed.get("b")!)) - before.b, 10, "site b's instance answered every ask of b1");
    assert.equal((await answeredBy(hubServed)) - before.hub, 0, "the hub's instance answered none of them");
    await checkHistory();
  });

  test("a Go node at each site writes its own keys through the hub's domain and is answered at its site", { skip: go.skip }, async () => {
    for (const site of sites.sites) {
      const served = siteServed.get(site.name)!;
      const before = { site: await answeredBy(served), hub: await answeredBy(hubServed) };
      const node = `go${site.name}`;
      const { stdout } = await run(goSite, [site.url, HUB_DOMAIN, node, "5"], { timeout: 30_000 });
      const lines = stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { revision: number; entries: [string, number | null][] });
      assert.equal(lines.length, 5);
      for (const l of lines) {
        answers.push({
          node,
          askedAt: Date.now(),
          answeredAt: Date.now(),
          revision: l.revision,
          entries: new Map(l.entries.map(([k, r]) => [k, r ?? undefined])),
          stale: undefined,
        });
        assert.deepEqual(
          l.entries.map(([k]) => k),
          [`${node}.web.config.host`, `${node}.web.config.port`],
        );
      }
      assert.equal((await answeredBy(served)) - before.site, 5, `site ${site.name}'s instance answered every ask of ${node}`);
      assert.equal((await answeredBy(hubServed)) - before.hub, 0, "the hub's instance answered none of them");
    }
    await checkHistory();
  });

  test("cut under writes at the hub: site a keeps answering from its projection, says stale, catches up when mended; the seat does not move", async () => {
    const site = sites.site("a");
    const servedA = siteServed.get("a")!;
    const startedWith = await answeredBy(servedA);
    const seatAt = seat.events.length;
    const holder = seat.events.at(-1)?.instance;
    assert.ok(holder !== undefined, "the hub's instance holds the seat");
    const kv = await new Kvm(hubNc).open(BUCKETS.needs);
    let writing = true;
    let written = 0;
    let lastWritten = 0;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const key = `a1.hub.config.k${i % 7}`;
        lastWritten = i % 5 === 4 ? await kv.delete(key).then(() => lastWritten) : await kv.put(key, JSON.stringify({ default: i }));
        written++;
        await new Promise((r) => setTimeout(r, 30));
      }
    })();
    let asking = true;
    let asks = 0;
    const failures: string[] = [];
    const reader = (async () => {
      while (asking) {
        asks++;
        await a1.ask().catch((err: unknown) => failures.push(String(err)));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      const cutAt = Date.now();
      site.link.cut();
      await site.unlinked(5_000);
      // A minRevision past what the site holds is a 504 with the staleness at the top of the body, within --max-wait.
      await eventually(() => assert.ok(answers.at(-1)?.stale !== undefined, "site a's answers say stale"), { timeoutMs: STALE_BY_MS + 2_000 });
      const holds = answers.at(-1)!.revision;
      const sent = Date.now();
      const reply = await a1.nc.request(nodeVerbSubject("a1"), JSON.stringify({ what: "needs", node: "a1", minRevision: lastWritten + 1_000 }), {
        timeout: 10_000,
      });
      assert.equal(reply.headers?.get("Nats-Service-Error-Code"), "504");
      const body = reply.json<{ stale?: Staleness }>();
      assert.ok(body.stale !== undefined && body.stale.revision >= holds, `the 504 names what the site holds: ${reply.string()}`);
      assert.ok(Date.now() - sent < MAX_WAIT_MS + 1_500, `no wait past --max-wait (${Date.now() - sent} ms)`);
      await new Promise((r) => setTimeout(r, Math.max(0, cutAt + CUT_MS - Date.now())));
      const restoredAt = Date.now();
      site.link.restore();
      await site.linked(10_000);
      // Caught up: an answer at the hub's last write, no longer stale.
      const target = lastWritten;
      await eventually(
        () => {
          const last = answers.at(-1)!;
          assert.ok(last.askedAt > restoredAt && last.revision >= target && last.stale === undefined, `caught up to ${target}: ${JSON.stringify(last)}`);
        },
        { timeoutMs: 15_000, intervalMs: 100 },
      );
      const caughtUpAt = Date.now();
      asking = false;
      writing = false;
      await Promise.all([reader, writer]);
      console.log(`MEASURED sites cut_ms=${restoredAt - cutAt} caught_up_ms=${caughtUpAt - restoredAt} writes=${written} asks=${asks}`);

      assert.deepEqual(failures, [], "site a's node was answered throughout");
      assert.equal((await answeredBy(servedA)) - startedWith, asks + 1, "site a's instance answered every ask, the cut's too");
      const duringCut = answers.filter((x) => x.node === "a1" && x.askedAt >= cutAt + STALE_BY_MS && x.answeredAt < restoredAt);
      assert.ok(duringCut.length >= 10, `asked during the cut: ${duringCut.length}`);
      for (const x of duringCut) {
        assert.ok(x.stale !== undefined, `asked ${x.askedAt - cutAt} ms into the cut: says stale`);
        assert.equal(x.stale.revision, x.revision, "the staleness names the revision answered at");
        assert.ok(x.stale.silentMs >= STALE_AFTER_MS, `silent ${x.stale.silentMs} ms`);
        assert.ok(Date.parse(x.stale.since) <= x.askedAt, "silent since before it was asked");
      }
      // Every stale answer lies within the cut or its mending.
      for (const x of answers.filter((y) => y.stale !== undefined)) assert.ok(x.askedAt >= cutAt && x.askedAt <= caughtUpAt, "stale only around the cut");
      assert.ok(Math.max(...duringCut.map((x) => x.revision)) < target, "answers during the cut lag the hub's writes (the cut was real)");
      await checkHistory();
      const moved = seat.events.slice(seatAt).filter((e) => e.instance !== holder);
      assert.deepEqual(moved, [], "the seat stayed with the hub's instance");
    } finally {
      asking = false;
      writing = false;
      site.link.restore();
      await Promise.all([reader, writer]);
    }
  });

  test("with site a cut off and its instance stopped, a1 gets a clear error at once; with site b's instance stopped, b1 is answered by the hub's", async () => {
    const site = sites.site("a");
    site.link.cut();
    await site.unlinked(5_000);
    await siteServed.get("a")!.proc.stop("SIGTERM");
    const started = Date.now();
    await assert.rejects(a1.ask(), (err: unknown) => err instanceof NoAnswerError && /no responders|503/i.test(err.message));
    assert.ok(Date.now() - started < ASK_TIMEOUT_MS, `the error came at once (${Date.now() - started} ms), not at the timeout`);

    // Site a's instance is gone: the hub's is the only other member of the queue group.
    await siteServed.get("b")!.proc.stop("SIGTERM");
    const hubBefore = await answeredBy(hubServed);
    for (let i = 0; i < 5; i++) await b1.ask();
    assert.equal((await answeredBy(hubServed)) - hubBefore, 5, "the hub's instance answered b1");
    site.link.restore();
    await checkHistory();
  });
});
