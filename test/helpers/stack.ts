/**
 * A whole provisioner for a test: a private nats-server, the service running
 * in-process on its own connection, and a separate client connection for the
 * test to write buckets and ask the verb. Always `await stack.stop()`.
 */
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm, type KV } from "@nats-io/kv";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { startNatsServer, type NatsServerOptions, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { memoryLogger, type Logger } from "../../src/log.js";
import { startProvisioner, type Provisioner, type ProvisionerOptions } from "../../src/main.js";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
import type { What } from "mesh-provisioner-client/keys";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";

export interface Reply {
  readonly status: number;
  readonly body: any;
  readonly bytes: number;
  readonly headers: Record<string, string>;
}

export interface Stack {
  readonly server: RunningNatsServer;
  readonly client: NatsConnection;
  readonly jsm: JetStreamManager;
  provisioner: Provisioner;
  readonly log: Logger;
  readonly lines: () => Record<string, unknown>[];
  kv(what: What): Promise<KV>;
  ask(request?: Record<string, unknown> | string, timeoutMs?: number): Promise<Reply>;
  /** Start the service again (after stopService) on a new connection. */
  restartService(opts?: Partial<ProvisionerOptions>): Promise<Provisioner>;
  stopService(): Promise<void>;
  /** Last sequence of a bucket's stream (how many writes it has ever seen). */
  lastSeq(what: What): Promise<number>;
  stop(): Promise<void>;
}

export const FAST: ProvisionerOptions = {
  registryIntervalMs: 3_600_000,
  seatTtlMs: 10_000,
  driftDelayMs: 50,
  maxWaitMs: 5_000,
  replicas: 1,
};

export async function connectTo(server: RunningNatsServer | string): Promise<NatsConnection> {
  const url = typeof server === "string" ? server : server.url;
  return connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 100, pingInterval: 2000 });
}

export async function startStack(opts: Partial<ProvisionerOptions> & { server?: NatsServerOptions; waitSynced?: boolean } = {}): Promise<Stack> {
  const server = await startNatsServer(opts.server ?? {});
  const { log, lines } = memoryLogger("debug");
  let serviceNc: NatsConnection | undefined;
  let client: NatsConnection | undefined;
  try {
    client = await connectTo(server);
    const jsm = await jetstreamManager(client);
    const kvm = new Kvm(client);
    const startService = async (more: Partial<ProvisionerOptions> = {}): Promise<Provisioner> => {
      serviceNc = await connectTo(server);
      const p = await startProvisioner(serviceNc, { ...FAST, ...opts, ...more }, log);
      if (opts.waitSynced !== false) await p.synced;
      return p;
    };
    const provisioner = await startService();
    const c = client;
    const stack: Stack = {
      server,
      client: c,
      jsm,
      provisioner,
      log,
      lines,
      kv: (what) => kvm.open(BUCKETS[what]),
      async ask(request = {}, timeoutMs = 10_000) {
        const body = typeof request === "string" ? request : JSON.stringify(request);
        const m = await c.request(VERB_SUBJECT, body, { timeout: timeoutMs });
        const headers: Record<string, string> = {};
        for (const k of m.headers?.keys() ?? []) headers[k] = m.headers?.get(k) ?? "";
        const code = headers["Nats-Service-Error-Code"];
        return { status: code ? Number(code) : 200, body: JSON.parse(m.string()), bytes: m.data.length, headers };
      },
      async stopService() {
        await stack.provisioner.stop();
        await serviceNc?.close();
      },
      async restartService(more = {}) {
        stack.provisioner = await startService(more);
        return stack.provisioner;
      },
      async lastSeq(what) {
        return (await jsm.streams.info(streamName(BUCKETS[what]))).state.last_seq;
      },
      async stop() {
        await stack.provisioner.stop().catch(() => undefined);
        await serviceNc?.close().catch(() => undefined);
        await c.close().catch(() => undefined);
        await server.stop();
      },
    };
    return stack;
  } catch (err) {
    await serviceNc?.close().catch(() => undefined);
    await client?.close().catch(() => undefined);
    await server.stop();
    throw err;
  }
}
