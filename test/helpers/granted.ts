/**
 * A real server whose users hold the grants `permissions` prints, and
 * connections as each: for the tests of who may write and read what.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, type JetStreamClient } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { RunningNatsServer } from "../../src/embedded/nats-server.js";
import type { UserSpec } from "../../src/permissions/server-config.js";
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

/** Connections as granted users, all closed by `close`. */
export class GrantedClients {
  private readonly conns: NatsConnection[] = [];

  constructor(private readonly server: () => RunningNatsServer) {}

  async as(u: UserSpec): Promise<Granted> {
    const nc = await connectAs(this.server(), u);
    this.conns.push(nc);
    const js = jetstreamAs(nc, u);
    return { nc, js, kv: (b) => new Kvm(js).open(b) };
  }

  async close(): Promise<void> {
    for (const c of this.conns) await c.close().catch(() => undefined);
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
