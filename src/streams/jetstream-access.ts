/**
 * The one way this process reaches JetStream (I/O at its edge): every client,
 * manager, KV and object store manager is made here, from the connection's
 * configuration, so each JetStream request of a process goes to the same
 * JetStream — its connection's own (`$JS.API`), or, with a domain, the
 * domain's (`$JS.<domain>.API`), such as a hub's seen from a leaf node.
 * The composition root makes one and passes it down; nothing else calls
 * `jetstream()`, `jetstreamManager()`, `new Kvm()` or `new Objm()`.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JetStreamManagerOptions } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { Objm } from "@nats-io/obj";

export interface JetStreamAccess {
  /** The domain asked for; undefined: the connection's own JetStream. */
  readonly domain?: string;
  /** The subject prefix of the JetStream API reached: `$JS.API`, or `$JS.<domain>.API`. */
  readonly apiPrefix: string;
  /** Which JetStream this is, for a message a person reads: `JetStream` or `JetStream domain "hub"`. */
  readonly name: string;
  /** What to check when this JetStream does not answer: one line, naming the domain if one was asked for. */
  readonly notAnswering: string;
  /**
   * The subject a JetStream publish to a stream's `subject` goes to: as is, or,
   * with a domain, behind its API prefix (`$JS.<domain>.API.$KV.…`), which the
   * domain's servers map back to the stream's subject, as nats.js's KV writes
   * through a domain; a plain publish from a leaf node finds no stream.
   */
  publishSubject(subject: string): string;
  /** A client; `timeout` bounds each API request (the client's usual 5 s when absent). */
  client(opts?: { timeout?: number }): JetStreamClient;
  /** A manager; `checkAPI: false` skips the account info request nats.js makes first. */
  manager(opts?: { timeout?: number; checkAPI?: boolean }): Promise<JetStreamManager>;
  /** The KV buckets' manager, on a client of this access. */
  kvm(): Kvm;
  /** The object stores' manager, on a client of this access. */
  objm(): Objm;
}

export interface JetStreamAccessOptions {
  /** The JetStream domain of the buckets (validated by the configuration); absent: the connection's own. */
  readonly domain?: string;
  /** The prefix of the inboxes nats.js's own watches deliver to (a grant confined to its own inboxes needs it); the connection's when absent. */
  readonly inboxPrefix?: string;
}

export function jetStreamAccess(nc: NatsConnection, opts: JetStreamAccessOptions = {}): JetStreamAccess {
  const { domain, inboxPrefix } = opts;
  // A fresh options object for each call: nats.js turns `domain` into its API prefix in the object it is given.
  const options = (extra: { timeout?: number; checkAPI?: boolean } = {}): JetStreamManagerOptions => ({
    ...(domain !== undefined ? { domain } : {}),
    ...(inboxPrefix !== undefined ? { watcherPrefix: inboxPrefix } : {}),
    ...(extra.timeout !== undefined ? { timeout: extra.timeout } : {}),
    ...(extra.checkAPI !== undefined ? { checkAPI: extra.checkAPI } : {}),
  });
  const client = (extra?: { timeout?: number }): JetStreamClient => jetstream(nc, options(extra));
  return Object.freeze({
    domain,
    apiPrefix: domain === undefined ? "$JS.API" : `$JS.${domain}.API`,
    name: domain === undefined ? "JetStream" : `JetStream domain "${domain}"`,
    notAnswering:
      domain === undefined
        ? "JetStream is not available on this connection (start nats-server with -js, and check the account)"
        : `JetStream domain "${domain}" (--js-domain, NATS_JS_DOMAIN) does not answer on this connection: check that the hub's servers run ` +
          `jetstream { domain: ${domain} }, and that the leaf node this connects to has its link to the hub up (its leafnodes remote, in this user's account)`,
    publishSubject: (subject: string) => (domain === undefined ? subject : `$JS.${domain}.API.${subject}`),
    client,
    manager: (extra?: { timeout?: number; checkAPI?: boolean }) => jetstreamManager(nc, options(extra)),
    kvm: () => new Kvm(client()),
    objm: () => new Objm(client()),
  });
}
