/**
 * The chaos run's cluster (I/O): three nats-servers on free loopback ports,
 * each with its own store, routed to the other two, and one account whose
 * users are the roles' least grants (src/permissions/server-config.ts): the
 * provisioner, a provider, one user per node, and the run's own operator
 * (no permission limits: it watches the seat, records the registry's stream,
 * tampers with the registry and deletes consumers).
 *
 * Why not startNatsCluster: its servers advertise their client URLs, and a
 * client connected through a proxy would learn the servers' own addresses
 * and reconnect around a cut. Here every server is started by
 * startNatsServer with its cluster block written out, `no_advertise: true`,
 * so a serve instance knows only the proxies it was given.
 *
 * The cluster's JetStream is in domain `hub`, and its first server takes the
 * leaf node connection of the run's site (site.ts) through `siteLink`, a
 * relay the run cuts and mends; the server advertises that relay as its leaf
 * node URL, so the site's leaf reconnects through it and never around it.
 */
import { randomBytes } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { freePort, startNatsServer, type RunningNatsServer } from "../src/embedded/nats-server.js";
import { accountsConfig, type UserSpec } from "../src/permissions/server-config.js";
import { inboxPrefix } from "../src/permissions/inbox.js";
import { startTcpProxy, type TcpProxy } from "../test/helpers/tcp-proxy.js";
import { HUB_DOMAIN } from "../test/helpers/sites.js";
import { waitFormed } from "../test/helpers/cluster-formed.js";

export interface Credentials {
  readonly user: string;
  readonly password: string;
  readonly inboxPrefix: string;
}

export interface ChaosCluster {
  readonly servers: RunningNatsServer[];
  readonly urls: string[];
  readonly provisioner: Credentials;
  readonly provider: Credentials;
  readonly admin: Credentials;
  node(name: string): Credentials;
  /** The relay between the site's leaf server and the first server's leaf node port. */
  readonly siteLink: TcpProxy;
  byName(name: string): RunningNatsServer | undefined;
  /** A connection with these credentials to every server, reconnecting forever. */
  connect(who: Credentials, name: string): Promise<NatsConnection>;
  stop(): Promise<void>;
}

const ADMIN_INBOX = "_INBOX_chaos";
const pw = (): string => randomBytes(12).toString("hex");

function accountsText(users: readonly UserSpec[], admin: Credentials): string {
  const cfg = accountsConfig(users) as { accounts: Record<string, { users: Record<string, unknown>[] }> };
  for (const account of Object.values(cfg.accounts)) account.users.push({ user: admin.user, password: admin.password });
  return JSON.stringify(cfg, null, 1).slice(1, -1).trim() + "\n";
}

async function distinctFreePorts(n: number): Promise<number[]> {
  for (;;) {
    const ports: number[] = [];
    for (let i = 0; i < n; i++) ports.push(await freePort());
    if (new Set(ports).size === n) return ports;
  }
}

export async function startChaosCluster(nodes: readonly string[]): Promise<ChaosCluster> {
  const provisioner: UserSpec = { user: "mesh-provisioner", password: pw(), role: "provisioner" };
  const provider: UserSpec = { user: "provider", password: pw(), role: "provider" };
  const nodeUsers: UserSpec[] = nodes.map((n) => ({ user: `node-${n}`, password: pw(), role: "node", node: n }));
  const admin: Credentials = { user: "chaos", password: pw(), inboxPrefix: ADMIN_INBOX };
  const accounts = accountsText([provisioner, provider, ...nodeUsers], admin);

  for (let attempt = 1; ; attempt++) {
    const [leafPort, ...routes] = (await distinctFreePorts(4)) as [number, ...number[]];
    const siteLink = await startTcpProxy({ port: leafPort });
    const name = `chaos-${routes[0]}`;
    const cfg = (i: number): string => {
      const others = routes.filter((_, j) => j !== i).map((p) => `"nats-route://127.0.0.1:${p}"`);
      const leaf = i === 0 ? `leafnodes { listen: "127.0.0.1:${leafPort}", advertise: "127.0.0.1:${siteLink.port}", no_advertise: true }\n` : "";
      return `cluster { name: "${name}", listen: "127.0.0.1:${routes[i]}", routes: [${others.join(", ")}], no_advertise: true }\n${leaf}${accounts}`;
    };
    const started = await Promise.allSettled([0, 1, 2].map((i) => startNatsServer({ jsDomain: HUB_DOMAIN, configText: cfg(i) })));
    const servers = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === "rejected");
    const stopAll = async (): Promise<void> => {
      await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
      await siteLink.close();
    };
    if (failed) {
      await stopAll();
      if (attempt < 3 && /address already in use/i.test(String(failed.reason))) continue;
      throw failed.reason;
    }
    const urls = servers.map((s) => s.url);
    try {
      await waitFormed({ servers: urls, user: admin.user, pass: admin.password, inboxPrefix: ADMIN_INBOX }, "the three-server cluster");
    } catch (err) {
      await stopAll();
      throw err;
    }
    const creds = (u: UserSpec): Credentials => ({ user: u.user, password: u.password, inboxPrefix: inboxPrefix(u.role, u.node) });
    const byNode = new Map(nodeUsers.map((u) => [u.node!, creds(u)]));
    return {
      servers,
      urls,
      provisioner: creds(provisioner),
      provider: creds(provider),
      admin,
      siteLink,
      node(n) {
        const c = byNode.get(n);
        if (!c) throw new Error(`no user for node ${n}`);
        return c;
      },
      byName: (n) => servers.find((s) => s.name === n),
      connect: (who, connName) =>
        connect({
          servers: urls,
          user: who.user,
          pass: who.password,
          inboxPrefix: who.inboxPrefix,
          name: connName,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 250,
          pingInterval: 2000,
          maxPingOut: 2,
        }),
      stop: stopAll,
    };
  }
}
