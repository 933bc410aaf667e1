/**
 * A real server whose users hold the grants `permissions` prints, the
 * service under its own, and connections as each: for the tests of who may
 * write and read what.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, type JetStreamClient } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { accountsConfigText, type UserSpec } from "../../src/permissions/server-config.js";
import { startProvisioner, type Provisioner } from "../../src/main.js";
import { memoryLogger } from "../../src/log.js";
import { FAST } from "./stack.js";
import { inboxPrefix, type Role } from "../../src/permissions/grants.js";

const pw = (): string => randomBytes(12).toString("hex");

/** The service's user, nodes n1 and n2, and a provider, each with a fresh password. */
export function grantedUsers(): Record<"svc" | "n1" | "n2" | "provider", UserSpec> {
  return {
    svc: { user: "mesh-provisioner", password: pw(), role: "provisioner" },
    n1: { user: "node-n1", password: pw(), role: "node", node: "n1" },
    n2: { user: "node-n2", password: pw(), role: "node", node: "n2" },
    provider: { user: "provider", password: pw(), role: "provider" },
  };
}

/** Requests refused by the server's permissions answer within this. */
export const SHORT = { timeout: 1500 };

/** Connect as `u`, with the inbox prefix its grant allows. */
export function connectAs(server: RunningNatsServer, u: UserSpec): Promise<NatsConnection> {
  return connect({ servers: server.url, user: u.user, pass: u.password, inboxPrefix: inboxPrefix(u.role as Role, u.node) });
}

/** JetStream for `u`: its watches deliver under its own inbox prefix. */
export function jetstreamAs(nc: NatsConnection, u: UserSpec): JetStreamClient {
  return jetstream(nc, { watcherPrefix: inboxPrefix(u.role, u.node), timeout: SHORT.timeout });
}

export interface Granted {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  kv(bucket: string): Promise<KV>;
}

/**
 * A real server whose users are `users` with their printed grants, the
 * service running under the provisioner's (`users.svc`), and connections as
 * any of them; `stop` ends them all.
 */
export class GrantedMesh {
  server!: RunningNatsServer;
  /** The service's own connection (the provisioner's grant). */
  svcNc!: NatsConnection;
  /** The running service: the last one `startService` started. */
  provisioner!: Provisioner;
  private readonly conns: NatsConnection[] = [];

  constructor(private readonly users: Readonly<Record<string, UserSpec>> & { readonly svc: UserSpec }) {}

  async start(): Promise<void> {
    this.server = await startNatsServer({ configText: accountsConfigText(Object.values(this.users)) });
    this.svcNc = await connectAs(this.server, this.users.svc);
    await this.startService();
  }

  /** Start the service (again) on the service's connection, synced. */
  async startService(): Promise<Provisioner> {
    this.provisioner = await startProvisioner(this.svcNc, { ...FAST, inboxPrefix: inboxPrefix("provisioner") }, memoryLogger().log);
    await this.provisioner.synced;
    return this.provisioner;
  }

  /** A connection as `u`, closed by `stop`. */
  async as(u: UserSpec): Promise<Granted> {
    const nc = await connectAs(this.server, u);
    this.conns.push(nc);
    const js = jetstreamAs(nc, u);
    return { nc, js, kv: (b) => new Kvm(js).open(b) };
  }

  async stop(): Promise<void> {
    await this.provisioner?.stop().catch(() => undefined);
    for (const c of [...this.conns, this.svcNc]) await c?.close().catch(() => undefined);
    await this.server?.stop();
  }
}

/** `fn` must be refused (rejected, whatever the error). */
export async function refused(what: string, fn: () => Promise<unknown>): Promise<void> {
  await assert.rejects(
    fn(),
    (err: Error) => {
      assert.ok(err instanceof Error, `${what}: expected an error`);
      return true;
    },
    `${what} must be refused`,
  );
}
