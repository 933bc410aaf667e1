/**
 * Connecting to the bus (I/O). Options are built once from the configuration;
 * the connection reconnects forever (the client's default gives up after ten
 * attempts) and pings often so a dead link is noticed in seconds, not minutes.
 *
 * Credentials rotate without a restart: the `--creds` and `--nkey` files are
 * read again at every reconnect (./credential-file.ts), and so are the TLS
 * files (the client loads `certFile`, `keyFile` and `caFile` at each connect).
 * A refusal of the credentials at a reconnect does not end the retries (the
 * client's default gives up after two): an operator who revoked a user before
 * replacing its file sees the service connect once the new file is in place.
 */
import { checkServerIdentity, type PeerCertificate } from "node:tls";
import { connect } from "@nats-io/transport-node";
import type { Authenticator, ConnectionOptions, NatsConnection } from "@nats-io/nats-core";
import type { ConnectionConfig } from "./config.js";
import { credentialFile, type CredentialLog } from "./credential-file.js";
import { noteViolation } from "./permissions/violation.js";
import { Failure } from "./failure.js";

/** `log`: where a rotated or unusable credentials file is reported (the long-running service passes its logger). */
export function connectionOptions(cfg: ConnectionConfig, name: string, log?: CredentialLog): ConnectionOptions {
  const authenticator: Authenticator[] = [];
  if (cfg.creds !== undefined) authenticator.push(credentialFile("creds", cfg.creds, log).authenticator());
  if (cfg.nkey !== undefined) authenticator.push(credentialFile("nkey", cfg.nkey, log).authenticator());
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
    ignoreAuthErrorAbort: true,
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

const AUTH_REFUSED = new Set(["AuthorizationError", "UserAuthenticationExpiredError"]);

/**
 * Connect once; a failure to reach the server at start (the credentials
 * refused included) is a clear CONNECT error. The permissions violations the
 * server reports on the connection are noted, so a command that then fails
 * says which subject was refused; a refusal of the credentials at a reconnect
 * is logged once until a reconnect succeeds.
 */
export async function connectBus(cfg: ConnectionConfig, name: string, log?: CredentialLog): Promise<NatsConnection> {
  const opts = connectionOptions(cfg, name, log);
  try {
    const nc = await connect(opts);
    void (async () => {
      let refused = false;
      for await (const s of nc.status()) {
        if (s.type === "reconnect") refused = false;
        if (s.type !== "error") continue;
        noteViolation(s.error, cfg.inboxPrefix ?? "_INBOX");
        if (log && !refused && AUTH_REFUSED.has(s.error.name)) {
          refused = true;
          log.warn(
            { err: s.error.message },
            "NATS refused the credentials at a reconnect; retrying until it accepts them. " +
              "If the user was revoked or has expired, replace the credentials file (--creds/--nkey): it is read at each attempt",
          );
        }
      }
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
