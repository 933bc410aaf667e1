/**
 * The chaos run's site (I/O, and its check): a leaf server without
 * JetStream joined to the cluster's first server through the cluster's
 * `siteLink` relay (its remote authenticates as the run's own user), an
 * instance at the site (`serve --no-seat --js-domain hub`) and a reader at the
 * site asking the verb through the leaf server, as a site's nodes do. The
 * fault `cut-site-link` cuts the relay for a while; a stream leader's kill
 * of the first server takes the link down as well.
 *
 * The reader's replies join the run's reads (judged key by key like every
 * other, check 4) and carry the reply's `stale`; the check here: every reply
 * the site gave while its link was cut (asked once its instance could have
 * noticed, `--stale-after` and its once-a-second check, and answered before
 * the link was mended), said stale; after the
 * faults the site answers every node at its last acknowledged write, not
 * stale; the site's instance never exited on its own.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { ProvisionerClient } from "mesh-provisioner-client";
import { startNatsServer, type RunningNatsServer } from "../src/embedded/nats-server.js";
import { spawnService, type ServiceProcess } from "../test/helpers/processes.js";
import { HUB_DOMAIN } from "../test/helpers/sites.js";
import type { Ledger } from "./actors.js";
import type { ChaosCluster } from "./cluster.js";
import type { CheckResult, History, ReadRecord } from "./history.js";
import type { Rng } from "./rng.js";
import { NODE_BUCKETS, type NodeBucket } from "./schedule.js";

const STALE_AFTER_MS = 1_000;
/** After a cut, by when every reply must say stale: --stale-after, the once-a-second check, a request's way. */
export const STALE_BY_MS = STALE_AFTER_MS + 1_500;
const SITE_READER = "site";
const SITE_FINAL = "site-final";
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class ChaosSite {
  proc: ServiceProcess | undefined;
  /** The site's instance's exits the run did not ask for. */
  readonly exits: string[] = [];
  private reading: Promise<void> | undefined;
  private stopped = false;
  private ending = false;
  private readonly client: ProvisionerClient;

  private constructor(
    private readonly server: RunningNatsServer,
    private readonly nc: NatsConnection,
    private readonly history: History,
  ) {
    this.client = new ProvisionerClient(nc, { timeoutMs: 4000 });
  }

  static async start(cluster: ChaosCluster, history: History): Promise<ChaosSite> {
    const { user, password } = cluster.admin;
    const server = await startNatsServer({
      jetstream: false,
      configText: `leafnodes { reconnect: 1, remotes: [{ url: "nats-leaf://${user}:${password}@127.0.0.1:${cluster.siteLink.port}" }] }`,
    });
    try {
      const nc = await connect({ servers: server.url, name: "chaos-site-reader", maxReconnectAttempts: -1, reconnectTimeWait: 250 });
      return new ChaosSite(server, nc, history);
    } catch (err) {
      await server.stop();
      throw err;
    }
  }

  /** Start the site's instance; resolves once its projections are synced. */
  async spawn(): Promise<void> {
    const args = ["--no-seat", "--js-domain", HUB_DOMAIN, "--stale-after", `${STALE_AFTER_MS}ms`, "--max-wait", "2s", "--log-level", "info"];
    const p = (this.proc = spawnService({ server: this.server.url, args, name: "site", env: { LOG_FORMAT: "json" } }));
    void p.exited.then((exit) => {
      if (this.ending) return;
      const what = `the site's instance (pid ${p.pid}) exited on its own at ${this.history.now()} ms (code ${exit.code}, signal ${exit.signal})`;
      this.exits.push(what);
      this.history.note(`site: ${what}; last lines:\n${p.tail(8)}`);
    });
    await p.waitForLine((l) => l.msg.startsWith("all projections synced"), 60_000, "the site's instance synced");
  }

  /**
   * Ask the verb at the site now and then, as the site's nodes do; a few asks
   * name the last acknowledged write as minRevision (during a cut: a 504 after
   * --max-wait, so few, or a cut would hold few replies to judge).
   */
  startReading(rng: Rng, ledger: Ledger, nodes: readonly string[]): void {
    this.reading = (async () => {
      while (!this.stopped) {
        const what = rng.pick(NODE_BUCKETS);
        const node = rng.pick(nodes);
        await this.read(SITE_READER, what, node, rng.chance(0.15) ? ledger.lastAcked(what, node) : undefined);
        await sleep(rng.between(100, 300));
      }
    })();
  }

  async stopReading(): Promise<void> {
    this.stopped = true;
    await this.reading;
  }

  /** Wait (unrecorded) until the site answers each node's keys of each bucket at its last acknowledged write, not stale. */
  async waitCurrent(ledger: Ledger, nodes: readonly string[], timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (const node of nodes) {
      for (const what of NODE_BUCKETS) {
        const minRevision = ledger.lastAcked(what, node);
        for (;;) {
          const page = await this.client.page({ what, node, ...(minRevision !== undefined ? { minRevision } : {}) }).catch(() => undefined);
          if (page !== undefined && page.stale === undefined) break;
          if (Date.now() > deadline) return false;
          await sleep(250);
        }
      }
    }
    return true;
  }

  /** After the faults: each node's keys of each bucket asked at the site at its last acknowledged write. */
  async finalReads(ledger: Ledger, nodes: readonly string[]): Promise<void> {
    for (const node of nodes) for (const what of NODE_BUCKETS) await this.read(SITE_FINAL, what, node, ledger.lastAcked(what, node));
  }

  private async read(reader: string, what: NodeBucket, node: string, minRevision: number | undefined): Promise<ReadRecord> {
    const rec = this.history.read({ reader, what, node, ...(minRevision !== undefined ? { minRevision } : {}) });
    try {
      const page = await this.client.page({ what, node, ...(minRevision !== undefined ? { minRevision } : {}) });
      rec.status = 200;
      rec.revision = page.revision;
      rec.entries = page.entries.map((e) => ({ key: e.key, revision: e.revision, token: tokenOf(e.value) }));
      const stale = page.stale;
      if (stale !== undefined) rec.stale = stale;
    } catch (err) {
      const msg = String((err as Error)?.message ?? err);
      const code = (err as { serviceCode?: number }).serviceCode;
      rec.status = typeof code === "number" ? code : /timeout/i.test(msg) ? "timeout" : /no responders|\b503\b/i.test(msg) ? "no-responders" : "error";
      rec.error = msg.slice(0, 200);
    }
    rec.doneAt = this.history.now();
    return rec;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ending = true;
    await this.proc?.stop("SIGTERM");
    await this.nc.close().catch(() => undefined);
    await this.server.stop();
  }
}

function tokenOf(value: unknown): string | null {
  const op = (value as { op?: unknown } | null)?.op;
  return typeof op === "string" ? op : null;
}

/** The check of the site (pure): staleness said through every cut, current after the faults, its instance up throughout. */
export function checkSite(h: Pick<History, "faults" | "reads">, exits: readonly string[]): CheckResult {
  const v: string[] = [];
  const cuts = h.faults.filter((f) => f.kind === "cut-site-link" && f.skipped === undefined && f.startedAt !== undefined);
  const site = h.reads.filter((r) => r.reader === SITE_READER);
  let judged = 0;
  for (const c of cuts) {
    const from = c.startedAt! + STALE_BY_MS;
    const to = c.healedAt ?? Number.POSITIVE_INFINITY;
    for (const r of site) {
      // Asked once the site could have noticed, answered before the mend (a minRevision's wait may outlast the cut).
      if (r.sentAt < from || r.doneAt === undefined || r.doneAt > to || r.status !== 200) continue;
      judged++;
      if (r.stale === undefined) v.push(`site read #${r.id} at ${r.sentAt} ms, ${r.sentAt - c.startedAt!} ms into cut ${c.id}: answered without stale`);
      else if (r.stale.revision !== r.revision) v.push(`site read #${r.id}: stale names revision ${r.stale.revision}, answered at ${r.revision}`);
    }
  }
  for (const r of h.reads.filter((x) => x.reader === SITE_FINAL)) {
    if (r.status !== 200) v.push(`final site read #${r.id} (${r.what} of ${r.node}, minRevision ${r.minRevision}): ${r.status} ${r.error ?? ""}`);
    else if (r.stale !== undefined) v.push(`final site read #${r.id} (${r.what} of ${r.node}): still stale ${JSON.stringify(r.stale)}`);
  }
  v.push(...exits);
  const answered = site.filter((r) => r.status === 200).length;
  return {
    name: "6. a cut-off site keeps answering and says stale",
    status: v.length > 0 ? "fail" : "pass",
    summary: `${cuts.length} cuts of the site's link; ${answered} site replies of 200, ${judged} of them within a cut (each said stale)${v.length > 0 ? `; ${v.length} violations` : ""}`,
    violations: v.slice(0, 25),
  };
}
