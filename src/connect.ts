/**
 * Connecting to the bus (I/O). Options are built once from the configuration;
 * the connection reconnects forever (the client's default gives up after ten
 * attempts) and pings often so a dead link is noticed in seconds, not minutes.
 */
import { readFileSync } from "node:fs";
import { checkServerIdentity, type PeerCertificate } from "node:tls";
import { connect } from "@nats-io/transport-node";
import { credsAuthenticator, nkeyAuthenticator, type Authenticator, type ConnectionOptions, type NatsConnection } from "@nats-io/nats-core";
import type { ConnectionConfig } from "./config.js";
import { noteViolation } from "./permissions/violation.js";
import { Failure, wrapFailure } from "./failure.js";

function readSecretFile(path: string, what: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (err) {
    throw wrapFailure("CONFIG", `cannot read the ${what} file ${path}`, err);
  }
}

export function connectionOptions(cfg: ConnectionConfig, name: string): ConnectionOptions {
  const authenticator: Authenticator[] = [];
  if (cfg.creds !== undefined) authenticator.push(credsAuthenticator(readSecretFile(cfg.creds, "credentials (--creds)")));
  if (cfg.nkey !== undefined) {
    const seed = new TextDecoder().decode(readSecretFile(cfg.nkey, "nkey seed (--nkey)")).trim();
    authenticator.push(nkeyAuthenticator(new TextEncoder().encode(seed)));
  }
  const tls =
    cfg.ca !== undefined || cfg.cert !== undefined
      ? { caFile: cfg.ca, certFile: cfg.cert, keyFile: cfg.key, checkServerIdentity: serverIdentityCheck(cfg.servers) }
      : undefined;
  return {
    servers: [...cfg.servers],
    name,
    user: cfg.user,
    pass: cfg.password,
    token: cfg.token,
    authenticator: authenticator.length > 0 ? authenticator : undefined,
    tls,
    inboxPrefix: cfg.inboxPrefix,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    pingInterval: 5000,
    maxPingOut: 3,
    timeout: 5000,
  };
}

/** The host names and addresses of the configured server URLs. */
function configuredHosts(servers: readonly string[]): string[] {
  return servers.map((s) => {
    try {
      return new URL(s.includes("://") ? s : `nats://${s}`).hostname.replace(/^\[|\]$/g, "");
    } catch {
      return s;
    }
  });
}

/**
 * The client sends no TLS server name when it dials an IP address, and Node
 * then checks the certificate against "localhost". Check it against the hosts
 * the user configured instead (and the name Node was given, unless that is
 * only its "localhost" fallback), as the nats CLI does.
 */
function serverIdentityCheck(servers: readonly string[]): (host: string, cert: PeerCertificate) => Error | undefined {
  const hosts = configuredHosts(servers);
  return (host, cert) => {
    const candidates = new Set([...(host === "localhost" && !hosts.includes("localhost") ? [] : [host]), ...hosts]);
    let first: Error | undefined;
    for (const h of candidates) {
      const err = checkServerIdentity(h, cert);
      if (err === undefined) return undefined;
      first ??= err;
    }
    return first ?? new Error("the server's certificate names none of the configured hosts");
  };
}

/**
 * Connect once; a failure to reach the server at start is a clear CONNECT
 * error. The permissions violations the server reports on the connection are
 * noted, so a command that then fails says which subject was refused.
 */
export async function connectBus(cfg: ConnectionConfig, name: string): Promise<NatsConnection> {
  const opts = connectionOptions(cfg, name);
  try {
    const nc = await connect(opts);
    void (async () => {
      for await (const s of nc.status()) if (s.type === "error") noteViolation(s.error, cfg.inboxPrefix ?? "_INBOX");
    })().catch(() => undefined);
    return nc;
  } catch (err) {
    throw new Failure(
      "CONNECT",
      `cannot connect to NATS at ${cfg.servers.join(",")}: ${(err as Error).message}. ` +
        "Is nats-server running there (or use `npm start` for a private one), and are the credentials right?",
      { cause: err },
    );
  }
}
