/**
 * The site phase of `npm run bench` (issue 47): a hub of three servers with
 * JetStream in domain `hub` holding the needs, and one site, a leaf server
 * joined to the hub through a relay that adds `delayMs` to each direction
 * (test/helpers/sites.ts). An instance at the hub, an instance at the site
 * (`serve --no-seat --js-domain hub`), and a node connected to the site's
 * leaf server asking one node's needs.
 *
 * Two figures, each against a baseline of the same run:
 * - a node's ask answered at its site (the baseline) against the same ask
 *   answered across the link, by the hub's instance once the site's is
 *   stopped (NATS gives a queue group's request to a member on the same
 *   server first, so while the site's instance is up every ask stays at the
 *   site). The two are measured one block after the other, not ask by ask:
 *   the site's instance cannot be both up and down.
 * - the link cut for `cutMs` while the hub takes writes at `rate` per
 *   second, then mended: how long after the mend the site's answers are no
 *   longer stale, and how long until they hold the hub's last write (the
 *   baseline: how long the leaf link itself takes to come back).
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { startSites, HUB_DOMAIN, type Sites } from "../test/helpers/sites.js";
import { connectBench, keyOf, PROBE_NODE, round, sleep, summarize, valueOf, type Summary } from "./common.js";
import { logTime, spawnService, SYNCED_MSG, type Child } from "./children.js";
import { ensureServiceBuckets, loadNeeds, openNeeds } from "./load.js";
import { fixedTarget, interleavedLatency, jsonBody } from "./measure.js";
import { row, CONTEXT, type Row } from "./report.js";

export interface SitePhaseOptions {
  readonly keys: number;
  /** Asks per side of the latency comparison, after `warmup` asks. */
  readonly count: number;
  readonly warmup: number;
  /** Latency the relay adds to each direction (ms). */
  readonly delayMs: number;
  /** Cut and mend rounds. */
  readonly rounds: number;
  readonly cutMs: number;
  /** Writes per second at the hub during each cut. */
  readonly rate: number;
  readonly syncTimeoutMs: number;
  readonly log: (line: string) => void;
}

export interface CatchUpRound {
  /** Writes the hub took while the link was down. */
  readonly writes: number;
  /** Mend -> the leaf link answers JetStream again (ms). */
  readonly linkMs: number;
  /** Mend -> the first answer at the site without `stale` (ms). */
  readonly freshMs: number;
  /** Mend -> the first answer at the site at the hub's last write, not stale (ms). */
  readonly currentMs: number;
}

export interface SiteResult {
  readonly keys: number;
  readonly delayMs: number;
  /** Spawn -> the site's instance synced across the link (ms). */
  readonly siteSyncMs: number;
  readonly atSite: Summary & { errors: number };
  readonly acrossLink: Summary & { errors: number };
  readonly catchUp: readonly CatchUpRound[];
}

const STALE_AFTER = "1s";
let running: { sites?: Sites; children: Child[]; conns: NatsConnection[] } | undefined;

/** Stop whatever the phase still runs (on a signal, or after a failure). */
export async function stopSitePhase(): Promise<void> {
  const r = running;
  running = undefined;
  if (!r) return;
  await Promise.all(r.conns.map((c) => c.close().catch(() => undefined)));
  await Promise.all(r.children.map((c) => c.stop()));
  await r.sites?.stop();
}

async function synced(child: Child, timeoutMs: number): Promise<number> {
  const at = await child.waitFor("stderr", (l) => logTime(l, SYNCED_MSG), timeoutMs, `the log line "${SYNCED_MSG}"`);
  return at - child.spawnedAt;
}

const ms = (xs: readonly number[]): Summary => {
  const s = summarize(xs);
  return { n: s.n, p50: round(s.p50), p90: round(s.p90), p99: round(s.p99), max: round(s.max) };
};

/** The probe node's answer at the site: its revision and whether it says stale (undefined when no answer). */
async function probe(nc: NatsConnection, body: Uint8Array): Promise<{ revision: number; stale: boolean } | undefined> {
  try {
    const m = await nc.request(VERB_SUBJECT, body, { timeout: 2000 });
    if (m.headers?.get("Nats-Service-Error-Code")) return undefined;
    const page = m.json<{ revision: number; stale?: unknown }>();
    return { revision: page.revision, stale: page.stale !== undefined };
  } catch {
    return undefined;
  }
}

export async function sitePhase(o: SitePhaseOptions): Promise<SiteResult> {
  const r: NonNullable<typeof running> = (running = { children: [], conns: [] });
  try {
    o.log(`site: a hub of three servers in domain ${HUB_DOMAIN} and one site joined through a relay adding ${o.delayMs} ms each way`);
    const sites = (r.sites = await startSites({ sites: [{ name: "site" }], delayMs: o.delayMs }));
    const site = sites.site("site");
    const hubNc = await connectBench(sites.hub.urls[0]!, "bench-site-hub");
    r.conns.push(hubNc);
    await ensureServiceBuckets(hubNc, o.keys);
    const kv = await openNeeds(hubNc);
    const load = await loadNeeds(kv, o.keys, 256, 60_000 + o.keys * 2);
    o.log(`site: loaded ${load.keys} keys at the hub in ${(load.ms / 1000).toFixed(1)} s`);
    const hub = spawnService(sites.hub.urls[0]!);
    r.children.push(hub);
    await synced(hub, o.syncTimeoutMs);
    const atSite = spawnService(site.url, [], ["--no-seat", "--js-domain", HUB_DOMAIN, "--stale-after", STALE_AFTER]);
    r.children.push(atSite);
    const siteSyncMs = await synced(atSite, o.syncTimeoutMs * 2);
    o.log(`site: the site's instance synced across the link in ${(siteSyncMs / 1000).toFixed(1)} s`);

    const nodeNc = await connectBench(site.url, "bench-site-node");
    r.conns.push(nodeNc);
    const body = jsonBody({ what: "needs", node: PROBE_NODE });
    const latency = async (): Promise<Summary & { errors: number }> => {
      const [s] = await interleavedLatency(nodeNc, [fixedTarget(VERB_SUBJECT, body)], { count: o.count, warmup: o.warmup, timeoutMs: 300_000 });
      return { ...ms(s!.ms), errors: s!.errors };
    };
    o.log(`site: ${o.count} asks answered at the site`);
    const local = await latency();

    const catchUp: CatchUpRound[] = [];
    for (let round = 1; round <= o.rounds; round++) {
      o.log(`site: cut ${round} of ${o.rounds}: ${o.cutMs} ms with ${o.rate} writes/s at the hub, then mended`);
      site.link.cut();
      let writes = 0;
      let last = 0;
      const until = Date.now() + o.cutMs;
      const gap = 1000 / o.rate;
      for (let next = Date.now(); Date.now() < until; next += gap) {
        last = await kv.put(keyOf((writes * 7919 + round) % o.keys), valueOf(writes, round));
        writes++;
        const wait = next + gap - Date.now();
        if (wait > 0) await sleep(wait);
      }
      // The probe node's own key last: its answer changes with the mend.
      last = await kv.put(keyOf(Number(PROBE_NODE.slice(1)) * 100), valueOf(writes, round));
      writes++;
      const mendedAt = performance.now();
      site.link.restore();
      const link = site.linked(60_000).then(() => performance.now() - mendedAt);
      let freshMs: number | undefined;
      let currentMs: number | undefined;
      const deadline = Date.now() + o.syncTimeoutMs;
      while (currentMs === undefined && Date.now() < deadline) {
        const a = await probe(nodeNc, body);
        const at = performance.now() - mendedAt;
        if (a && !a.stale) freshMs ??= at;
        if (a && !a.stale && a.revision >= last) currentMs = at;
        else await sleep(10);
      }
      if (currentMs === undefined) throw new Error(`the site's answers did not reach revision ${last} within ${o.syncTimeoutMs} ms of the mend`);
      catchUp.push({ writes, linkMs: round3(await link), freshMs: round3(freshMs ?? currentMs), currentMs: round3(currentMs) });
      o.log(`site: mended; link up after ${(await link).toFixed(0)} ms, answers current after ${currentMs.toFixed(0)} ms`);
    }

    o.log(`site: the site's instance stopped; ${o.count} asks answered across the link by the hub's`);
    await atSite.stop();
    await nodeNc.flush();
    const across = await latency();
    return { keys: o.keys, delayMs: o.delayMs, siteSyncMs, atSite: local, acrossLink: across, catchUp };
  } finally {
    await stopSitePhase();
  }
}

const round3 = (x: number): number => round(x, 1);
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** The phase's rows: across the link against at the site (p50, p99), and the catch-up after a mend against the link's own return. */
export function siteRows(s: SiteResult): Row[] {
  const d = s.delayMs;
  const lat = (p: "p50" | "p99"): Row =>
    row({
      metric: `site: a node's ask, across a ${d} ms link (service) vs at its site (baseline), ${p}`,
      unit: "ms",
      service: s.acrossLink[p],
      baseline: s.atSite[p],
      ratio: round(s.acrossLink[p] / s.atSite[p], 1),
      target: CONTEXT,
      check: undefined,
    });
  const link = median(s.catchUp.map((c) => c.linkMs));
  const current = median(s.catchUp.map((c) => c.currentMs));
  const fresh = median(s.catchUp.map((c) => c.freshMs));
  const writes = median(s.catchUp.map((c) => c.writes));
  return [
    lat("p50"),
    lat("p99"),
    row({
      metric: `site: mend -> answers no longer stale (service) vs the link back (baseline), ${s.keys} keys`,
      unit: "ms",
      service: fresh,
      baseline: link,
      ratio: round(fresh / link, 2),
      target: CONTEXT,
      check: undefined,
    }),
    row({
      metric: `site: mend -> answers current after ${writes} writes missed (service) vs the link back (baseline), ${s.keys} keys`,
      unit: "ms",
      service: current,
      baseline: link,
      ratio: round(current / link, 2),
      target: CONTEXT,
      check: undefined,
    }),
    row({
      metric: `site: the site's instance first synced across the ${d} ms link, ${s.keys} keys`,
      unit: "ms",
      service: s.siteSyncMs,
      target: CONTEXT,
      check: undefined,
    }),
  ];
}
