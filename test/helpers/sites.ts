/**
 * A hub and its sites on real servers, for tests and the bench: a hub of
 * three nats-servers routed to each other with JetStream in domain `hub`,
 * and one leaf server a site, its leaf node remote joined to one hub server
 * through a relay of its own (tcp-proxy.ts), so a test can cut and mend one
 * site's link while every other link stays up. A site either has no
 * JetStream (its clients reach the hub's through the domain) or a JetStream
 * domain of its own.
 *
 * Site i's leaf server joins hub server i (so at most three sites). The
 * hub's servers advertise no client URLs and, as their leaf node URL, only
 * the relay in front of them: a leaf that learnt a hub server's own address
 * would reconnect around its relay's cut. A leaf retries its remote every
 * second, so a mended link is up again within about a second.
 */
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { freePort, startNatsServer, type RunningNatsServer } from "./nats-server.js";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.js";
import { waitFormed } from "./cluster-formed.js";

/** The JetStream domain of the hub's buckets. */
export const HUB_DOMAIN = "hub";

export interface SiteSpec {
  readonly name: string;
  /** The site's own JetStream domain; without it the site's leaf server has no JetStream. */
  readonly jsDomain?: string;
}

export interface Site {
  readonly name: string;
  readonly jsDomain: string | undefined;
  /** The site's leaf server: its nodes and its instance connect here. */
  readonly server: RunningNatsServer;
  readonly url: string;
  /** The relay between this site's leaf server and the hub: `cut()` and `restore()` its link. */
  readonly link: TcpProxy;
  /** Resolve once the hub's JetStream answers through this site's leaf server (its link is up). */
  linked(timeoutMs?: number): Promise<void>;
  /** Resolve once the hub's JetStream no longer answers through this site's leaf server (its link is down). */
  unlinked(timeoutMs?: number): Promise<void>;
}

export interface Hub {
  readonly servers: readonly RunningNatsServer[];
  readonly urls: readonly string[];
}

export interface Sites {
  readonly hub: Hub;
  readonly sites: readonly Site[];
  site(name: string): Site;
  stop(): Promise<void>;
}

export interface SitesOptions {
  /** Default: site `a` without JetStream, site `b` with JetStream in domain `b`. */
  readonly sites?: readonly SiteSpec[];
  /** Latency each relay adds to each direction (ms). */
  readonly delayMs?: number;
  /** Extra config for every server, hub and leaf (accounts, say). */
  readonly configText?: string;
}

export const DEFAULT_SITES: readonly SiteSpec[] = [{ name: "a" }, { name: "b", jsDomain: "b" }];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `n` free ports, distinct from each other and from `taken`. */
async function distinctFreePorts(n: number, taken: readonly number[] = []): Promise<number[]> {
  for (;;) {
    const ports: number[] = [];
    for (let i = 0; i < n; i++) ports.push(await freePort());
    if (new Set([...ports, ...taken]).size === n + taken.length) return ports;
  }
}

/** Poll `probe` (a JetStream call through `url`) until `want` says yes; throw naming `what` after `timeoutMs`. */
async function untilJetStream(url: string, want: (answered: boolean) => boolean, what: string, timeoutMs: number): Promise<void> {
  const nc = await connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  try {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      let answered: boolean;
      try {
        await (await jetstreamManager(nc, { domain: HUB_DOMAIN, timeout: 1000 })).getAccountInfo();
        answered = true;
      } catch (err) {
        last = err;
        answered = false;
      }
      if (want(answered)) return;
      await sleep(25);
    }
    throw new Error(`${what} within ${timeoutMs} ms (last: ${String(last)})`);
  } finally {
    await nc.close().catch(() => undefined);
  }
}

/**
 * The hub: three servers routed to each other, server i taking the leaf
 * connections of site i through `relays[i]`. Each advertises its relay as
 * its leaf node URL: a leaf that learns a URL from the hub (nats-server
 * 2.9.10 hands one out even with `no_advertise`) reconnects through its own
 * relay too, never around it.
 */
async function startHub(relays: readonly TcpProxy[], leafPorts: readonly number[], configText: string): Promise<{ hub: Hub; stop: () => Promise<void> }> {
  for (let attempt = 1; ; attempt++) {
    const routes = await distinctFreePorts(3, leafPorts);
    const name = `hub-${routes[0]}`;
    const cfg = (i: number): string => {
      const others = routes.filter((_, j) => j !== i).map((p) => `"nats-route://127.0.0.1:${p}"`);
      const relay = relays[i];
      return [
        `cluster { name: "${name}", listen: "127.0.0.1:${routes[i]}", routes: [${others.join(", ")}], no_advertise: true }`,
        ...(relay ? [`leafnodes { listen: "127.0.0.1:${leafPorts[i]}", advertise: "127.0.0.1:${relay.port}", no_advertise: true }`] : []),
        configText,
      ].join("\n");
    };
    const started = await Promise.allSettled([0, 1, 2].map((i) => startNatsServer({ jsDomain: HUB_DOMAIN, configText: cfg(i) })));
    const servers = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const stop = async (): Promise<void> => void (await Promise.all(servers.map((s) => s.stop().catch(() => undefined))));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) {
      await stop();
      if (attempt < 3 && /address already in use/i.test(String(failed.reason))) continue;
      throw failed.reason;
    }
    try {
      await waitFormed({ servers: servers[0]!.url }, "the hub's three servers");
    } catch (err) {
      await stop();
      throw err;
    }
    return { hub: { servers, urls: servers.map((s) => s.url) }, stop };
  }
}

async function startSite(spec: SiteSpec, link: TcpProxy, opts: SitesOptions): Promise<Site> {
  const server = await startNatsServer({
    ...(spec.jsDomain === undefined ? { jetstream: false } : { jsDomain: spec.jsDomain }),
    configText: `leafnodes { reconnect: 1, remotes: [{ url: "nats-leaf://127.0.0.1:${link.port}" }] }\n${opts.configText ?? ""}`,
  });
  const url = server.url;
  return {
    name: spec.name,
    jsDomain: spec.jsDomain,
    server,
    url,
    link,
    linked: (timeoutMs = 15_000) => untilJetStream(url, (ok) => ok, `site ${spec.name}'s link to the hub did not come up`, timeoutMs),
    unlinked: (timeoutMs = 15_000) => untilJetStream(url, (ok) => !ok, `site ${spec.name}'s link to the hub did not go down`, timeoutMs),
  };
}

/** Start each site's relay, the hub (site i joined to hub server i), then each site's leaf server, and wait for every link. */
export async function startSites(opts: SitesOptions = {}): Promise<Sites> {
  const specs = opts.sites ?? DEFAULT_SITES;
  if (specs.length < 1 || specs.length > 3) throw new Error(`a hub of three servers takes one to three sites, not ${specs.length}`);
  const leafPorts = await distinctFreePorts(specs.length);
  const relays: TcpProxy[] = [];
  const sites: Site[] = [];
  let stopHub = async (): Promise<void> => undefined;
  const stop = async (): Promise<void> => {
    await Promise.all(sites.map((s) => s.server.stop().catch(() => undefined)));
    await Promise.all(relays.map((r) => r.close()));
    await stopHub();
  };
  try {
    for (const port of leafPorts) relays.push(await startTcpProxy({ port }, { delayMs: opts.delayMs ?? 0 }));
    const started = await startHub(relays, leafPorts, opts.configText ?? "");
    stopHub = started.stop;
    for (const [i, spec] of specs.entries()) sites.push(await startSite(spec, relays[i]!, opts));
    await Promise.all(sites.map((s) => s.linked(30_000)));
    return {
      hub: started.hub,
      sites,
      site(name) {
        const s = sites.find((x) => x.name === name);
        if (!s) throw new Error(`no site ${name}`);
        return s;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
