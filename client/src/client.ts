/**
 * The typed client of mesh-provisioner (I/O over a connection the caller
 * made): one page, every page merged, entries as an async iterable, and a
 * live view kept current from the feed (see watch.ts).
 */
import type { Msg, NatsConnection } from "@nats-io/nats-core";
import type { Observable } from "./observable.js";
import type { What } from "./keys/mod.js";
import { MESH_SCOPE, NEEDS_SCOPE, nodeScope, requestSubject, type VerbScope } from "./protocol/scope.js";
import { NoAnswerError, VerbError } from "./errors.js";
import type { Answer, EntryOf, Page, ProvisionerRequest, View } from "./protocol/messages.js";
import { oldestStaleness, readStaleness, type Staleness } from "./protocol/staleness.js";
import { watchView, type WatchOptions } from "./watch.js";
import { filtersOf } from "./narrowing.js";

/**
 * Whose grant the connection holds (docs/security.md): `"mesh"` (the
 * default: the provisioner's user, operators, an open mesh), `{ node }` (a
 * node's grant: every request goes to that node's verb subject and is
 * narrowed to that node), or `"needs"` (a provider's: the registry and the
 * needs).
 */
export type ClientScope = "mesh" | "needs" | { readonly node: string };

/** The node a request narrows to, if any (registry requests have none). */
const nodeOf = (request: object): string | undefined => filtersOf(request as Readonly<Record<string, unknown>>)["node"];

function verbScope(scope: ClientScope | undefined): VerbScope {
  if (scope === undefined || scope === "mesh") return MESH_SCOPE;
  return scope === "needs" ? NEEDS_SCOPE : nodeScope(scope.node);
}

export interface ClientOptions {
  /** The grant the connection holds, which decides the verb's subject (default `"mesh"`). */
  readonly scope?: ClientScope;
  /** How long to wait for each page (ms); default 10 s. */
  readonly timeoutMs?: number;
  /** Entries per page asked for (default: as many as fit the connection's max payload). */
  readonly pageSize?: number;
}

/** The `stale` of an error reply's body, when the body is a JSON object that carries one (the headers alone make the error). */
function staleOfErrorBody(m: Msg): Staleness | undefined {
  try {
    return readStaleness((m.json() as { stale?: unknown } | null)?.stale);
  } catch {
    return undefined;
  }
}

/**
 * Read a verb reply: the page, or a VerbError carrying the service's code
 * (400, 403, 503, 504, 500) and the staleness its body carried. A `stale`
 * out of shape is dropped (protocol/staleness.ts).
 */
export function decodeReply<W extends What>(m: Msg): Page<W> {
  const code = m.headers?.get("Nats-Service-Error-Code");
  if (code) throw new VerbError(Number(code), m.headers?.get("Nats-Service-Error") ?? "error", staleOfErrorBody(m));
  const page = m.json<Page<W>>();
  if (typeof page !== "object" || page === null || !("stale" in page)) return page;
  const { stale, ...rest } = page;
  const read = readStaleness(stale);
  return read === undefined ? rest : { ...rest, stale: read };
}

export class ProvisionerClient {
  private readonly timeoutMs: number;
  private readonly pageSize: number | undefined;
  private readonly scope: VerbScope;

  constructor(
    private readonly nc: NatsConnection,
    options: ClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.pageSize = options.pageSize;
    this.scope = verbScope(options.scope);
  }

  /** `request` as this client's scope reads it: a node's client asks for its own node's entries when it names none. */
  private scoped<W extends What>(request: ProvisionerRequest<W>): ProvisionerRequest<W> {
    const { scope } = this;
    if (scope.kind !== "node" || (request.what ?? "registry") === "registry" || nodeOf(request) !== undefined) return request;
    return { ...request, node: scope.node } as ProvisionerRequest<W>;
  }

  /** One page: the request as it is (with `limit` and `after` when given). */
  async page<W extends What = "registry">(request: ProvisionerRequest<W> & { limit?: number; after?: string }): Promise<Page<W>> {
    let m: Msg;
    const subject = requestSubject(this.scope, nodeOf(request));
    try {
      m = await this.nc.request(subject, JSON.stringify(request), { timeout: this.timeoutMs });
    } catch (err) {
      throw new NoAnswerError(subject, err);
    }
    return decodeReply<W>(m);
  }

  /** Every page in key order, following `next` to the end. */
  async *pages<W extends What = "registry">(asked: ProvisionerRequest<W>): AsyncGenerator<Page<W>> {
    const request = this.scoped(asked);
    let after: string | undefined;
    for (;;) {
      const page = await this.page<W>({ ...request, ...(this.pageSize ? { limit: this.pageSize } : {}), ...(after === undefined ? {} : { after }) });
      yield page;
      if (page.next === undefined) return;
      after = page.next;
    }
  }

  /**
   * The whole answer, every page merged: `{ what, revision, entries,
   * outOfShape }`, and `stale` when a page was stale: that of the page whose
   * `since` is the oldest.
   */
  async get<W extends What = "registry">(
    request: ProvisionerRequest<W> = {} as ProvisionerRequest<W>,
    options: { onPage?: (page: Page<W>) => void } = {},
  ): Promise<Answer<W>> {
    return (await this.getWithLowest(request, options.onPage)).answer;
  }

  /** Every entry across pages, in key order. */
  async *list<W extends What = "registry">(request: ProvisionerRequest<W> = {} as ProvisionerRequest<W>): AsyncGenerator<EntryOf[W]> {
    for await (const page of this.pages(request)) yield* page.entries;
  }

  /**
   * The current view of what was asked, kept current from the feed: it
   * subscribes first, takes a snapshot through the verb, applies the events
   * above it in order, and takes a fresh snapshot after a reconnect, a slow
   * consumer, or a change of the seat's holder (or none holding it). Emits
   * `synced: true` once the first snapshot is in.
   */
  watch<W extends What = "registry">(request: ProvisionerRequest<W> = {} as ProvisionerRequest<W>, options: WatchOptions = {}): Observable<View<W>> {
    return watchView<W>(this.nc, (r) => this.getWithLowest(r), this.scoped(request), options);
  }

  /** The merged answer, and the lowest revision a page was answered at (where the feed must take over). */
  async getWithLowest<W extends What>(request: ProvisionerRequest<W>, onPage?: (page: Page<W>) => void): Promise<{ answer: Answer<W>; lowest: number }> {
    const entries: EntryOf[W][] = [];
    const outOfShape: Page["outOfShape"] = [];
    let what = (request.what ?? "registry") as W;
    let revision = 0;
    let lowest = Number.POSITIVE_INFINITY;
    let stale: Staleness | undefined;
    for await (const page of this.pages(request)) {
      onPage?.(page);
      what = page.what;
      revision = Math.max(revision, page.revision);
      lowest = Math.min(lowest, page.revision);
      for (const e of page.entries) entries.push(e);
      for (const o of page.outOfShape) outOfShape.push(o);
      stale = oldestStaleness(stale, page.stale);
    }
    return { answer: { what, revision, entries, outOfShape, ...(stale === undefined ? {} : { stale }) }, lowest: Number.isFinite(lowest) ? lowest : revision };
  }
}
