/**
 * The verb `mesh-provisioner.provisioning` as a NATS micro service (I/O),
 * with one endpoint per read scope (the whole mesh, one node, the needs).
 * It reads only: every answer comes from the projections. Errors are service
 * errors (Nats-Service-Error-Code / Nats-Service-Error headers) with a JSON
 * body. No exception ever escapes the subscription callback, and no reply is
 * ever larger than the connection's max payload.
 *
 * An answer, or an error, whose asked bucket's projection has heard nothing
 * from its stream for longer than `--stale-after` carries `stale`: it is
 * written into the reply as it is sent, never into the page kept by the
 * answer cache, so a kept page says stale exactly when a fresh one would.
 */
import { Svcm, type Service, type ServiceMsg } from "@nats-io/services";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Logger } from "../log.js";
import { ProvisionerError, wrapError } from "mesh-provisioner-client/protocol/errors.js";
import { answeredChecks, WHATS, type What } from "mesh-provisioner-client/keys";
import type { Projection } from "../projections/projection.js";
import { buildPage } from "./answer.js";
import { STALE_ROOM, withStale } from "./stale-reply.js";
import { AnswerCache, type KnownRequest } from "./answer-cache.js";
import { PROTOCOL_VERSION } from "mesh-provisioner-client/protocol/version.js";
import { NEEDS_VERB_SUBJECT, NODE_VERB_SUBJECTS, QUEUE_GROUP, SERVICE_NAME, VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { MESH_SCOPE, NEEDS_SCOPE, nodeScope, type VerbScope } from "mesh-provisioner-client/protocol/scope.js";
import type { InstanceStats, ProjectionStatsWithLag, StatsData } from "mesh-provisioner-client/protocol/stats.js";

/** Bytes kept free below max payload for the protocol line around a reply. */
const PAYLOAD_MARGIN = 512;

export interface VerbOptions {
  readonly nc: NatsConnection;
  readonly projections: Readonly<Record<What, Projection>>;
  readonly log: Logger;
  readonly version: string;
  /** Longest wait for `minRevision` before a 504. */
  readonly maxWaitMs: number;
  /** Extra data for `$SRV.STATS` (the seat, …). */
  readonly statsData?: () => InstanceStats;
  /** The bucket's stream last sequence, for each projection's lag in `$SRV.STATS` (undefined when unknown). */
  readonly lastSeq?: (bucket: string) => Promise<number | undefined>;
  /** Called once per answered request: its status (200, 400, …), what was asked, and how long it took. */
  readonly observe?: (status: number, what: string, seconds: number) => void;
}

/** A request whose body is read: what it asks, and the projection that answers it (an error about it says its staleness). */
interface Asked {
  readonly known: KnownRequest;
  readonly projection: Projection;
}

/** A request validated and ready to answer. */
interface Prepared {
  readonly known: KnownRequest;
  readonly projection: Projection;
  /** It asks for a `minRevision` the projection has not reached yet. */
  readonly wait: boolean;
}

export interface VerbCounters {
  requests: number;
  errors: number;
  cacheHits: number;
}

export class VerbService {
  private service: Service | undefined;
  /** Answers still to be sent (they wait for a `minRevision`): a stop sends them before it ends. */
  private readonly pending = new Set<Promise<void>>();
  private joined = false;
  private stopped = false;
  /** Request bodies already validated and answers already built. */
  private readonly cache: AnswerCache;
  private readonly decoder = new TextDecoder();
  private readonly log: Logger;
  private readonly encoder = new TextEncoder();
  readonly counters: VerbCounters = { requests: 0, errors: 0, cacheHits: 0 };
  /** Whether the registry answers a kind, for each bucket's answers (needs' alone say). */
  private readonly answered: Readonly<Record<What, ((kind: string) => boolean) | undefined>>;

  constructor(private readonly opts: VerbOptions) {
    this.log = opts.log.child({ component: "verb" });
    this.cache = new AnswerCache({ onHit: () => this.counters.cacheHits++ });
    this.answered = answeredChecks(opts.projections.registry.store);
  }

  /**
   * Register the micro service: `$SRV.PING|INFO|STATS` answer from now on.
   * The verb's own subjects are joined by `join()`.
   */
  async start(): Promise<Service> {
    const { nc, version } = this.opts;
    this.service = await new Svcm(nc).add({
      name: SERVICE_NAME,
      version,
      description: "Answers which domain answers each kind of placeholder, and what the nodes need, applied and collect",
      queue: QUEUE_GROUP,
      statsHandler: () => this.statsWithLag(),
    });
    return this.service;
  }

  /**
   * Join the queue group on the verb's subjects: requests are answered (503
   * until the projections' first sync) from the moment this resolves. Once
   * only; never after `stop()`.
   */
  async join(): Promise<void> {
    const { nc } = this.opts;
    const service = this.service;
    if (service === undefined || this.joined || this.stopped) return;
    this.joined = true;
    // One endpoint a scope (protocol/scope.ts): a grant allows a role its scope's subjects, and each answers only its scope.
    const endpoints: readonly { name: string; subject: string; scopeOf: (subject: string) => VerbScope; description: string }[] = [
      { name: "provisioning", subject: VERB_SUBJECT, scopeOf: () => MESH_SCOPE, description: "read-only: the registry and the node buckets, as projected" },
      {
        name: "provisioning-node",
        subject: NODE_VERB_SUBJECTS,
        scopeOf: (subject) => nodeScope(subject.slice(VERB_SUBJECT.length + 1)),
        description: "read-only: the registry, and the needs, applied and collect of the node the subject's last token names",
      },
      {
        name: "provisioning-needs",
        subject: NEEDS_VERB_SUBJECT,
        scopeOf: () => NEEDS_SCOPE,
        description: "read-only: the registry and every node's needs (providers)",
      },
    ];
    for (const ep of endpoints) {
      service.addEndpoint(ep.name, {
        subject: ep.subject,
        handler: (err, msg) => {
          if (err !== null) {
            this.log.error({ err, subject: ep.subject }, "the verb's subscription failed; the service stops answering on it");
            return;
          }
          this.counters.requests++;
          const started = performance.now();
          let scope: VerbScope;
          try {
            scope = ep.scopeOf(msg.subject);
          } catch (e) {
            this.done(msg, started, this.failWith(msg, e));
            return;
          }
          this.onRequest(msg, started, scope);
        },
        metadata: { description: ep.description, protocol: PROTOCOL_VERSION },
      });
    }
    // The endpoint's subscription is registered at the server before we say the verb answers.
    await nc.flush();
    this.log.info({ subjects: endpoints.map((e) => e.subject), queue: QUEUE_GROUP }, "the verb is answering");
  }

  /**
   * Leave the queue group, answering every request already received: each
   * subscription drains (what the server delivered before it saw the
   * unsubscribe is handled), then the answers that wait for a `minRevision`
   * are sent, each within `maxWaitMs`. The projections must go on applying
   * until this resolves.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.service?.stop().catch(() => undefined);
    await Promise.allSettled([...this.pending]);
  }

  /** Stats plus each projection's lag behind its stream (bounded: a slow or missing bus gives no lag, not a stall). */
  async statsWithLag(): Promise<StatsData> {
    const data = this.statsData();
    const lastSeq = this.opts.lastSeq;
    if (lastSeq === undefined) return data;
    const projections = data.projections;
    await Promise.all(
      Object.entries(this.opts.projections).map(async ([w, p]) => {
        const last = await Promise.race([
          lastSeq(p.store.spec.bucket).catch(() => undefined),
          new Promise<undefined>((r) => setTimeout(() => r(undefined), 500).unref()),
        ]);
        const s = projections[w as What];
        if (s !== undefined) s.lag = last === undefined ? null : Math.max(0, last - p.revision);
      }),
    );
    return data;
  }

  statsData(): StatsData {
    const projections = Object.fromEntries(Object.entries(this.opts.projections).map(([w, p]) => [w, p.stats()])) as Record<What, ProjectionStatsWithLag>;
    return { projections, ...this.counters, ...(this.opts.statsData?.() ?? {}) };
  }

  /**
   * Answer one request: the page as bytes (never written again: they may be
   * cached and sent again), or a ProvisionerError. Exposed for tests.
   */
  async answer(body: Uint8Array | string, scope: VerbScope = MESH_SCOPE): Promise<Uint8Array> {
    const p = this.prepare(this.ask(body, scope));
    if (p.wait) await this.waitFor(p);
    return this.stamped(p.projection, this.page(p));
  }

  /** Read a request's body (throws a ProvisionerError where it is not valid or reaches past the scope). */
  private ask(body: Uint8Array | string, scope: VerbScope): Asked {
    const known = this.cache.request(typeof body === "string" ? body : this.decoder.decode(body), scope);
    return { known, projection: this.opts.projections[known.req.what] };
  }

  /**
   * Check the projections can answer a request (throws a ProvisionerError
   * when not); `wait` says it must wait for `minRevision`.
   */
  private prepare({ known, projection }: Asked): Prepared {
    const { req } = known;
    const { projections } = this.opts;
    // Only the first sync gates answers. A projection whose watch is resuming
    // still holds its bucket exactly as of `revision` (a prefix of the stream's
    // history), and answers from it, as an informer's lister does; a node that
    // must see a write asks with minRevision.
    for (const p of req.what === "needs" ? [projection, projections.registry] : [projection]) {
      if (!p.hasSynced) throw new ProvisionerError("NOT_SYNCED", `the ${p.what} projection has not finished its first sync; retry in a moment`);
    }
    return { known, projection, wait: req.minRevision !== undefined && projection.revision < req.minRevision };
  }

  private async waitFor({ known: { req }, projection }: Prepared): Promise<void> {
    const { maxWaitMs } = this.opts;
    try {
      await projection.waitForRevision(req.minRevision as number, maxWaitMs);
    } catch {
      throw new ProvisionerError(
        "REVISION_TIMEOUT",
        `the ${req.what} projection did not reach revision ${req.minRevision} within ${maxWaitMs} ms (it is at ${projection.revision})`,
      );
    }
  }

  private page({ known, projection }: Prepared): Uint8Array {
    const { projections, nc } = this.opts;
    const registry = projections.registry.store;
    const revision = projection.revision;
    // needs answers say whether the registry answers each kind: they are built at its revision too.
    const registryRevision = known.req.what === "needs" ? registry.revision : 0;
    return this.cache.answer(
      known,
      revision,
      registryRevision,
      () =>
        buildPage(known.req, {
          store: projection.store,
          isAnswered: this.answered[known.req.what],
          // Room is kept for `stale`, which is written in as the page is sent.
          maxBytes: nc.info!.max_payload - PAYLOAD_MARGIN - STALE_ROOM,
        }).bytes,
    );
  }

  /**
   * Answer one request. A request that need not wait is answered in this very
   * call (no promise, no extra turn of the event loop); one that waits for
   * `minRevision` is answered when the projection gets there.
   */
  private onRequest(msg: ServiceMsg, started: number, scope: VerbScope): void {
    let asked: Asked;
    let p: Prepared;
    try {
      asked = this.ask(msg.data, scope);
    } catch (err) {
      this.done(msg, started, this.failWith(msg, err));
      return;
    }
    try {
      p = this.prepare(asked);
    } catch (err) {
      this.done(msg, started, this.failWith(msg, err, asked.projection));
      return;
    }
    if (!p.wait) {
      this.done(msg, started, this.reply(msg, p));
      return;
    }
    const answered = this.waitFor(p).then(
      () => this.done(msg, started, this.reply(msg, p)),
      (err: unknown) => this.done(msg, started, this.failWith(msg, err, p.projection)),
    );
    this.pending.add(answered);
    void answered.finally(() => this.pending.delete(answered));
  }

  /** Build the page and send it; the status answered. */
  private reply(msg: ServiceMsg, p: Prepared): number {
    let bytes: Uint8Array;
    try {
      bytes = this.stamped(p.projection, this.page(p));
    } catch (err) {
      return this.failWith(msg, err, p.projection);
    }
    const max = this.opts.nc.info?.max_payload ?? Number.POSITIVE_INFINITY;
    if (bytes.length > max) {
      return this.fail(msg, new ProvisionerError("INTERNAL", `the answer (${bytes.length} bytes) is over the max payload (${max}); ask with a smaller limit`));
    }
    this.respond(msg, () => msg.respond(bytes));
    return 200;
  }

  /** A page as sent: with `stale` written in while its projection has not heard from its stream for too long. */
  private stamped(projection: Projection, page: Uint8Array): Uint8Array {
    const stale = projection.staleness();
    return stale === undefined ? page : withStale(page, stale);
  }

  /** Answer with the error thrown: a ProvisionerError as it is, anything else as INTERNAL; with `stale` when the asked projection is. */
  private failWith(msg: ServiceMsg, err: unknown, asked?: Projection): number {
    return this.fail(msg, wrapError("INTERNAL", "the answer could not be built", err), asked);
  }

  /** Report an answered request to the metrics, if any. */
  private done(msg: ServiceMsg, started: number, status: number): void {
    const observe = this.opts.observe;
    if (observe === undefined) return;
    try {
      observe(status, whatOf(msg.data), (performance.now() - started) / 1000);
    } catch {
      // metrics never stop an answer
    }
  }

  private fail(msg: ServiceMsg, err: ProvisionerError, asked?: Projection): number {
    this.counters.errors++;
    const stale = asked?.staleness();
    if (err.status >= 500) this.log.warn({ code: err.code, err: err.message, ...(stale === undefined ? {} : { stale }) }, "the verb answered with an error");
    else this.log.debug({ code: err.code, err: err.message }, "the verb refused a request");
    const body = this.encoder.encode(JSON.stringify(stale === undefined ? err.toReplyBody() : { ...err.toReplyBody(), stale }));
    this.respond(msg, () => msg.respondError(err.status, err.message.replace(/[\r\n]+/g, " "), body));
    return err.status;
  }

  /** Respond without ever throwing into the client's read loop. */
  private respond(msg: ServiceMsg, send: () => boolean): void {
    if (!msg.reply) return;
    try {
      send();
    } catch (err) {
      this.log.error({ err: (err as Error).message }, "a reply could not be sent");
    }
  }
}

const headDecoder = new TextDecoder();

/** The `what` of a request for metrics labels, without a second full parse: one of the four, "registry" when absent, else "invalid". */
function whatOf(body: Uint8Array): string {
  const text = headDecoder.decode(body.subarray(0, 256));
  const m = /"what"\s*:\s*"([^"]*)"/.exec(text);
  if (m === null) return text.includes('"what"') ? "invalid" : "registry";
  return (WHATS as readonly string[]).includes(m[1] as string) ? (m[1] as string) : "invalid";
}
