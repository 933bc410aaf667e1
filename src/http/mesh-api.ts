/**
 * The dashboard's mesh-wide lists (pure over the projections and the
 * overview): the registry with each kind's needs, the nodes with needs of a
 * kind, the needs no domain answers, the keys out of shape, the collections
 * and one collection's items. Each is one page (`offset`, `limit`, `match`)
 * of a list that says how long it is, read from what the overview counts
 * and the stores index: no answer reads every entry of a bucket.
 */
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { isAnswered, isPlainToken, WHATS, type What } from "mesh-provisioner-client/keys";
import type { ProvisionerReader } from "./reader.js";
import type { NodePage } from "../overview/overview.js";
import type { OutOfShapeKey } from "../projections/store/view.js";

/** The most rows of any list page. */
export const MAX_LIST_PAGE = 500;
export const DEFAULT_LIST_PAGE = 50;
const MAX_MATCH = 256;

export interface ListQuery {
  readonly offset: number;
  readonly limit: number;
  /** Lower-cased; empty keeps everything. */
  readonly match: string;
}

/** One page of a list: which part it is of how many. */
export interface ListPage<T> {
  /** Items in the whole list. */
  readonly total: number;
  /** Items the filter keeps. */
  readonly matched: number;
  readonly offset: number;
  readonly limit: number;
  readonly rows: readonly T[];
}

/** A whole number parameter in [min, max], `dflt` when absent (400 otherwise). */
export function intParam(params: URLSearchParams, name: string, min: number, max: number, dflt: number): number {
  const raw = params.get(name);
  if (raw === null || raw === "") return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ProvisionerError("BAD_REQUEST", `${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  return n;
}

/** A list's `offset`, `limit` and `match` (400 on a value that is not one). */
export function listQuery(params: URLSearchParams): ListQuery {
  const match = params.get("match") ?? "";
  if (match.length > MAX_MATCH) throw new ProvisionerError("BAD_REQUEST", `match is at most ${MAX_MATCH} characters`);
  return {
    offset: intParam(params, "offset", 0, Number.MAX_SAFE_INTEGER, 0),
    limit: intParam(params, "limit", 1, MAX_LIST_PAGE, DEFAULT_LIST_PAGE),
    match: match.toLowerCase(),
  };
}

/** A required parameter that must be a key token (a kind, a node). */
export function tokenParam(params: URLSearchParams, name: string): string {
  const v = params.get(name);
  if (v === null || v === "") throw new ProvisionerError("BAD_REQUEST", `${name} is missing`);
  if (!isPlainToken(v)) throw new ProvisionerError("BAD_REQUEST", `${name} "${String(v).slice(0, 80)}" is not a plain token (no ".", "*", ">", spaces)`);
  return v;
}

/** A required collection name: any non-empty string of at most 256 characters. */
export function collectionParam(params: URLSearchParams): string {
  const v = params.get("collection");
  if (v === null || v === "") throw new ProvisionerError("BAD_REQUEST", "collection is missing: ask /api/collection?collection=<name>");
  if (v.length > MAX_MATCH) throw new ProvisionerError("BAD_REQUEST", `collection is at most ${MAX_MATCH} characters`);
  return v;
}

/** An optional bucket name (`what`): one of the four, or all when absent. */
export function whatParam(params: URLSearchParams): What | undefined {
  const v = params.get("what");
  if (v === null || v === "") return undefined;
  if (!(WHATS as readonly string[]).includes(v)) throw new ProvisionerError("BAD_REQUEST", `what must be one of ${WHATS.join(", ")} (got "${v.slice(0, 80)}")`);
  return v as What;
}

/** Page an in-memory list already in order, keeping the items whose name contains `q.match`. */
export function pageOf<T>(items: readonly T[], name: (t: T) => string, q: ListQuery): ListPage<T> {
  const kept = q.match === "" ? items : items.filter((t) => name(t).toLowerCase().includes(q.match));
  return { total: items.length, matched: kept.length, offset: q.offset, limit: q.limit, rows: kept.slice(q.offset, q.offset + q.limit) };
}

/** Where a kind's values are, as the registry says (its value less what the page already shows). */
export interface RegistryPlace {
  readonly module?: string;
  readonly bucket?: string;
  readonly key?: string;
  readonly verb?: string;
  readonly collection?: string;
}

export interface KindRow {
  readonly kind: string;
  /** Whether some domain answers it: the registry holds an entry under it. */
  readonly answered: boolean;
  /** The registry's entry (null when it holds none), and its revision. */
  readonly entry: RegistryPlace | null;
  readonly revision: number | null;
  /** Needs of this kind across the mesh. */
  readonly needs: number;
}

function kindRow(p: ProvisionerReader, kind: string, needs: number): KindRow {
  const e = p.projections.registry.store.get(kind);
  if (e === undefined) return { kind, answered: false, entry: null, revision: null, needs };
  const v = (e.value ?? {}) as Record<string, unknown>;
  const place: Record<string, string> = {};
  for (const f of ["module", "bucket", "key", "verb", "collection"] as const) if (typeof v[f] === "string") place[f] = v[f];
  return { kind, answered: true, entry: place, revision: e.revision, needs };
}

/** The registry's kinds and every kind a need names, by name: who answers each, where its values are, how many needs it has. */
export function registryJson(p: ProvisionerReader, q: ListQuery): string {
  const needs = new Map(p.overview.kinds().map((k) => [k.kind, k.needs]));
  const kinds = new Set<string>(needs.keys());
  for (const e of p.projections.registry.store.allEntries()) kinds.add(e.key);
  const rows = [...kinds].sort().map((k) => kindRow(p, k, needs.get(k) ?? 0));
  return JSON.stringify(pageOf(rows, (r) => r.kind, q));
}

/** One kind: its registry entry and needs, and a page of the nodes with needs of it (each with `ofKind`). */
export function kindJson(p: ProvisionerReader, kind: string, q: ListQuery): string {
  const nodes: NodePage = p.overview.page({ kind, match: q.match, offset: q.offset, limit: q.limit });
  return JSON.stringify({ ...kindRow(p, kind, p.overview.needsOfKind(kind)), nodes: { ...nodes, limit: q.limit } });
}

/** Unanswered kinds listed on one page at most; a mesh naming more says how many (`kindsTotal`). */
export const MAX_UNANSWERED_KINDS = 200;

/** The needs no domain answers: their kinds (with counts, the most needs first), and a page of the nodes that have some. */
export function unansweredJson(p: ProvisionerReader, q: ListQuery): string {
  const registry = p.projections.registry.store;
  const kinds = p.overview.kinds().filter((k) => !isAnswered(registry, k.kind));
  const needs = kinds.reduce((a, k) => a + k.needs, 0);
  const shown = kinds.sort((a, b) => b.needs - a.needs || (a.kind < b.kind ? -1 : 1)).slice(0, MAX_UNANSWERED_KINDS);
  const nodes = p.overview.page({ unanswered: true, match: q.match, offset: q.offset, limit: q.limit });
  return JSON.stringify({ kinds: shown, kindsTotal: kinds.length, needs, nodes: { ...nodes, limit: q.limit } });
}

export interface OutOfShapeRow {
  readonly what: What;
  readonly key: string;
  readonly reason: string;
  readonly revision: number;
  /** The node its key names, when that token is readable. */
  readonly node: string | null;
}

/**
 * A page of the keys out of shape, bucket by bucket (registry, needs,
 * applied, collect), each in key order. Only keys out of shape are read, and
 * only as far as the page ends unless a filter needs them all counted.
 */
export function outOfShapeJson(p: ProvisionerReader, what: What | undefined, q: ListQuery): string {
  const buckets = what === undefined ? WHATS : [what];
  const total = buckets.reduce((a, w) => a + p.projections[w].store.outOfShapeCount, 0);
  const rows: OutOfShapeRow[] = [];
  const row = (w: What, o: OutOfShapeKey): OutOfShapeRow => ({ what: w, key: o.key, reason: o.reason, revision: o.revision, node: o.readable["node"] ?? null });
  let matched = 0;
  if (q.match === "") {
    // Every key matches: skip whole buckets before the page, and stop once it is full.
    matched = total;
    let skip = q.offset;
    for (const w of buckets) {
      const store = p.projections[w].store;
      if (rows.length >= q.limit) break;
      if (skip >= store.outOfShapeCount) {
        skip -= store.outOfShapeCount;
        continue;
      }
      for (const o of store.allOutOfShape()) {
        if (skip > 0) skip--;
        else if (rows.push(row(w, o)) >= q.limit) break;
      }
    }
  } else {
    for (const w of buckets)
      for (const o of p.projections[w].store.allOutOfShape()) {
        if (!o.key.toLowerCase().includes(q.match)) continue;
        if (matched >= q.offset && rows.length < q.limit) rows.push(row(w, o));
        matched++;
      }
  }
  return JSON.stringify({ total, matched, offset: q.offset, limit: q.limit, rows });
}

/** The collections across the mesh, by name, with their item counts. */
export function collectionsJson(p: ProvisionerReader, q: ListQuery): string {
  return JSON.stringify(pageOf(p.overview.collections(), (c) => c.collection, q));
}

/** Slots read from the collection's index, a batch at a time. */
const slots = new Int32Array(256);

/**
 * A page of one collection's items across the mesh, in key order (node, then
 * contributor), read from the collect store's collection index: each item as
 * the verb answers it (node, collection, contributor, value, revision).
 * `match` keeps items whose node or contributor contains it.
 */
export function collectionJson(p: ProvisionerReader, collection: string, q: ListQuery): string {
  const store = p.projections.collect.store;
  const scan = store.scan({ collection }, undefined);
  const rows: string[] = [];
  let matched = 0;
  for (let n = scan.fill(slots); n > 0; n = scan.fill(slots)) {
    for (let i = 0; i < n; i++) {
      const slot = slots[i] as number;
      if (q.match !== "") {
        // <node>.<collection>.<contributor>: the first and the last token.
        const key = store.keyOf(slot).toLowerCase();
        if (!key.slice(0, key.indexOf(".")).includes(q.match) && !key.slice(key.lastIndexOf(".") + 1).includes(q.match)) continue;
      }
      if (matched >= q.offset && rows.length < q.limit) rows.push(store.entryAt(slot).json);
      matched++;
    }
  }
  const total = p.overview.itemsOf(collection);
  return `{"collection":${JSON.stringify(collection)},"total":${total},"matched":${matched},"offset":${q.offset},"limit":${q.limit},"rows":[${rows.join(",")}]}`;
}
