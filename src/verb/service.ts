/**
 * The verb `mesh-provisioner.provisioning` as a NATS micro service (I/O).
 * It reads only: every answer comes from the projections. Errors are service
 * errors (Nats-Service-Error-Code / Nats-Service-Error headers) with a JSON
 * body. No exception ever escapes the subscription callback, and no reply is
 * ever larger than the connection's max payload.
 */
import { Svcm, type Service, type ServiceMsg } from "@nats-io/services";
import type { NatsConnection } from "@nats-io/nats-core";
import { LRUCache } from "lru-cache";
import type { Logger } from "../log.js";
import { ProvisionerError, wrapError } from "../protocol/errors.js";
import { answeredCheck, WHATS, type What } from "../keys/mod.js";
import type { Projection } from "../projections/projection.js";
import { buildPage } from "./answer.js";
import { AnswerArena, type Carved } from "./arena.js";
import { answerHash, Doorkeeper } from "./doorkeeper.js";
import { hashKey } from "../projections/key-table.js";
import { parseRequest, requestKey, type VerbRequest } from "./request.js";
import { PROTOCOL_VERSION } from "../protocol/version.js";
import { QUEUE_GROUP, SERVICE_NAME, VERB_SUBJECT } from "../protocol/subjects.js";
import type { InstanceStats, ProjectionStatsWithLag, StatsData } from "../protocol/stats.js";

/**
 * Answers kept for repeated requests. They point into the reply ring, so the
 * bound is a little above what the ring holds of answers of a usual size
 * (docs/benchmarks.md): more entries would mostly be views the ring has
 * written over, kept alive (and promoted by the garbage collector) for nothing.
 */
const ANSWER_CACHE_ENTRIES = 2048;
/**
 * Request bodies kept parsed (see `parsed`): more than a mesh of 10,000
 * nodes asks for. An LRU smaller than the set of bodies asked in turn
 * misses every time (each ask evicts the body asked next). Only bodies of at
 * most 1024 characters are kept, so its memory is bounded whatever is asked.
 */
const PARSED_ENTRIES = 16384;

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
  /** Bytes of the ring that replies are carved from (and that cached answers point into). */
  readonly arenaBytes?: number;
  /** Called once per answered request: its status (200, 400, …), what was asked, and how long it took. */
  readonly observe?: (status: number, what: string, seconds: number) => void;
}

/** A request validated and ready to answer. */
interface Prepared {
  readonly req: VerbRequest;
  /** Its canonical text (the answer cache's key) and that text's hash. */
  readonly key: string;
  readonly keyHash: number;
  readonly projection: Projection;
  /** It asks for a `minRevision` the projection has not reached yet. */
  readonly wait: boolean;
}

/** An answer in the cache, with the revisions it was built at (the registry's: 0 unless needs). */
interface CachedAnswer {
  readonly carved: Carved;
  readonly revision: number;
  readonly registryRevision: number;
}

export interface VerbCounters {
  requests: number;
  errors: number;
  cacheHits: number;
}

export class VerbService {
  private service: Service | undefined;
  /**
   * Answers by request, each with the revisions it was built at: views into
   * the arena, dropped once the arena has written over them. Keyed by the
   * request's canonical text alone, the same string each time (its hash is
   * computed once): a key with the revisions in it would be a new string on
   * every request, hashed again on every lookup.
   */
  private readonly cache = new LRUCache<string, CachedAnswer>({ max: ANSWER_CACHE_ENTRIES });
  /** Lets an answer into the cache only on its request's second ask (see Doorkeeper). */
  private readonly doorkeeper = new Doorkeeper(8 * ANSWER_CACHE_ENTRIES);
  private readonly arena: AnswerArena;
  /** Requests already validated, by their body: a repeated body skips validation and keying. */
  private readonly parsed = new LRUCache<string, { req: VerbRequest; key: string; keyHash: number }>({ max: PARSED_ENTRIES });
  /**
   * Lets a body into `parsed` only on its second sight, so that bodies
   * asked once (a page of a paged read, with its own `after`; each node's
   * first ask after a restart) cost no insertion and push out none of the
   * bodies nodes send again and again.
   */
  private readonly parsedDoor = new Doorkeeper(8 * PARSED_ENTRIES);
  private readonly decoder = new TextDecoder();
  private readonly log: Logger;
  private readonly encoder = new TextEncoder();
  readonly counters: VerbCounters = { requests: 0, errors: 0, cacheHits: 0 };

  constructor(private readonly opts: VerbOptions) {
    this.log = opts.log.child({ component: "verb" });
    this.arena = new AnswerArena(opts.arenaBytes);
  }

  async start(): Promise<Service> {
    const { nc, version } = this.opts;
    const service = await new Svcm(nc).add({
      name: SERVICE_NAME,
      version,
      description: "Answers which domain answers each kind of placeholder, and what the nodes need, applied and collect",
      queue: QUEUE_GROUP,
      statsHandler: () => this.statsWithLag(),
    });
    service.addEndpoint("provisioning", {
      subject: VERB_SUBJECT,
      handler: (err, msg) => {
        if (err !== null) {
          this.log.error({ err }, "the verb's subscription failed; the service stops answering");
          return;
        }
        this.counters.requests++;
        this.onRequest(msg, performance.now());
      },
      metadata: { description: "read-only: the registry and the node buckets, as projected", protocol: PROTOCOL_VERSION },
    });
    this.service = service;
    // The endpoint's subscription is registered at the server before we say the verb answers.
    await nc.flush();
    this.log.info({ subject: VERB_SUBJECT, queue: QUEUE_GROUP }, "the verb is answering");
    return service;
  }

  async stop(): Promise<void> {
    await this.service?.stop().catch(() => undefined);
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
   * Answer one request: the page as bytes, or a ProvisionerError. Exposed for
   * tests. The bytes live in the arena: read or copy them before building
   * another ring's worth of answers.
   */
  async answer(body: Uint8Array | string): Promise<Uint8Array> {
    const p = this.prepare(body);
    if (p.wait) await this.waitFor(p);
    return this.page(p);
  }

  /**
   * Validate a request and check its projections can answer it (throws a
   * ProvisionerError when not); `wait` says it must wait for `minRevision`.
   */
  private prepare(body: Uint8Array | string): Prepared {
    const text = typeof body === "string" ? body : this.decoder.decode(body);
    // A body with minRevision is all but unique (a new revision each time): keeping it would only evict the bodies that repeat.
    const keep = text.length <= 1024 && !text.includes("minRevision");
    let known = keep ? this.parsed.get(text) : undefined;
    if (known === undefined) {
      const req = parseRequest(text);
      const key = requestKey(req);
      known = { req, key, keyHash: hashKey(key) };
      if (keep && this.parsedDoor.seenBefore(hashKey(text))) this.parsed.set(text, known);
    }
    const { req } = known;
    const { projections } = this.opts;
    const projection = projections[req.what];
    // Only the first sync gates answers. A projection whose watch is resuming
    // still holds its bucket exactly as of `revision` (a prefix of the stream's
    // history), and answers from it, as an informer's lister does; a node that
    // must see a write asks with minRevision.
    for (const p of req.what === "needs" ? [projection, projections.registry] : [projection]) {
      if (!p.hasSynced) throw new ProvisionerError("NOT_SYNCED", `the ${p.what} projection has not finished its first sync; retry in a moment`);
    }
    return { req, key: known.key, keyHash: known.keyHash, projection, wait: req.minRevision !== undefined && projection.revision < req.minRevision };
  }

  private async waitFor({ req, projection }: Prepared): Promise<void> {
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

  private page({ req, key, keyHash, projection }: Prepared): Uint8Array {
    const { projections, nc } = this.opts;
    const registry = projections.registry.store;
    const revision = projection.revision;
    // needs answers say whether the registry answers each kind: they are built at its revision too.
    const registryRevision = req.what === "needs" ? registry.revision : 0;
    const hit = this.cache.get(key);
    if (hit !== undefined && hit.revision === revision && hit.registryRevision === registryRevision) {
      if (this.arena.fresh(hit.carved.at)) {
        this.counters.cacheHits++;
        return hit.carved.bytes;
      }
      if (this.arena.intact(hit.carved.at)) {
        // Old enough that the answers built before the client copies it could reach it: send a copy from the head.
        const moved = this.arena.again(hit.carved);
        this.cache.set(key, { carved: moved, revision, registryRevision });
        this.counters.cacheHits++;
        return moved.bytes;
      }
      this.cache.delete(key);
    }
    let carved: Carved | undefined;
    const page = buildPage(req, {
      store: projection.store,
      isAnswered: answeredCheck(req.what, () => registry),
      maxBytes: nc.info!.max_payload - PAYLOAD_MARGIN,
      alloc: (n) => (carved = this.arena.take(n)).bytes,
    });
    // An answer to a request with minRevision is all but unique (a node asking after its own write):
    // keeping it would only hold garbage long enough to reach the old generation.
    if (carved !== undefined && req.minRevision === undefined && this.doorkeeper.seenBefore(answerHash(keyHash, revision, registryRevision))) {
      this.cache.set(key, { carved, revision, registryRevision });
    }
    return page.bytes;
  }

  /**
   * Answer one request. A request that need not wait is answered in this very
   * call (no promise, no extra turn of the event loop); one that waits for
   * `minRevision` is answered when the projection gets there.
   */
  private onRequest(msg: ServiceMsg, started: number): void {
    let p: Prepared;
    try {
      p = this.prepare(msg.data);
    } catch (err) {
      this.done(msg, started, this.failWith(msg, err));
      return;
    }
    if (!p.wait) {
      this.done(msg, started, this.reply(msg, p));
      return;
    }
    this.waitFor(p).then(
      () => this.done(msg, started, this.reply(msg, p)),
      (err: unknown) => this.done(msg, started, this.failWith(msg, err)),
    );
  }

  /** Build the page and send it; the status answered. */
  private reply(msg: ServiceMsg, p: Prepared): number {
    let bytes: Uint8Array;
    try {
      bytes = this.page(p);
    } catch (err) {
      return this.failWith(msg, err);
    }
    const max = this.opts.nc.info?.max_payload ?? Number.POSITIVE_INFINITY;
    if (bytes.length > max) {
      return this.fail(msg, new ProvisionerError("INTERNAL", `the answer (${bytes.length} bytes) is over the max payload (${max}); ask with a smaller limit`));
    }
    this.respond(msg, () => msg.respond(bytes));
    return 200;
  }

  /** Answer with the error thrown: a ProvisionerError as it is, anything else as INTERNAL. */
  private failWith(msg: ServiceMsg, err: unknown): number {
    return this.fail(msg, wrapError("INTERNAL", "the answer could not be built", err));
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

  private fail(msg: ServiceMsg, err: ProvisionerError): number {
    this.counters.errors++;
    if (err.status >= 500) this.log.warn({ code: err.code, err: err.message }, "the verb answered with an error");
    else this.log.debug({ code: err.code, err: err.message }, "the verb refused a request");
    const body = this.encoder.encode(JSON.stringify(err.toReplyBody()));
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
