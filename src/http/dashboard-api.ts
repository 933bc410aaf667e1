/**
 * What the dashboard reads (pure over the provisioner's projections and its
 * overview): the mesh's totals, a page of the node list, one node's page.
 * Each answer is small whatever the mesh's size: the totals and the node
 * list come from the overview's counts, a node's page from the key ranges
 * of that node, never from a scan of the buckets.
 */
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { answeredCheck, isPlainToken, WHATS } from "mesh-provisioner-client/keys";
import type { ProvisionerReader } from "./reader.js";
import { MAX_NODE_PAGE, type NodeQuery } from "../overview/overview.js";
import { buildPage } from "../verb/answer.js";
import { intParam } from "./mesh-api.js";

/** Entries per bucket on a node's page; a node with more says so (`next`) and the verb pages the rest. */
export const NODE_PAGE_ENTRIES = 2_000;

/** The mesh at a glance: seat, sync state, revisions, counts per bucket, the overview's totals. */
export function overviewJson(p: ProvisionerReader): string {
  const starts = p.checkpoints.snapshot();
  const buckets = Object.fromEntries(
    WHATS.map((w) => {
      const pr = p.projections[w];
      const c = starts[w];
      // How the projection started: from its checkpoint (of which revision), read whole (why), or still proving one.
      const start = c === undefined || c.start === "none" ? undefined : { from: c.start, revision: c.loadedRevision, reason: c.reason };
      // A stale projection says since when it heard nothing, not for how long: the overview is sent again only when it moves.
      const stale = pr.staleness();
      return [
        w,
        { entries: pr.store.size, outOfShape: pr.store.outOfShapeCount, revision: pr.revision, synced: pr.isSynced, start, staleSince: stale?.since ?? null },
      ];
    }),
  );
  return JSON.stringify({
    seat: { holder: p.seat.holder ?? null, isHolder: p.seat.isHolder, instance: p.seat.instance },
    buckets,
    totals: p.overview.totals(),
    version: p.overview.version,
  });
}

/** Read the node list's query from a URL's search parameters (400 on a value that is not one). */
export function nodeQuery(params: URLSearchParams): NodeQuery {
  const match = params.get("match") ?? undefined;
  if (match !== undefined && match.length > 256) throw new ProvisionerError("BAD_REQUEST", "match is at most 256 characters");
  const problems = params.get("problems");
  if (problems !== null && !["", "0", "1", "true", "false"].includes(problems)) {
    throw new ProvisionerError("BAD_REQUEST", `problems must be 1 or 0 (got "${problems}")`);
  }
  return {
    match,
    problems: problems === "1" || problems === "true" || problems === "",
    offset: intParam(params, "offset", 0, Number.MAX_SAFE_INTEGER, 0),
    limit: intParam(params, "limit", 1, MAX_NODE_PAGE, 50),
  };
}

/** A page of the node list: which part of the list it is, and the mesh's totals beside it. */
export function nodesJson(p: ProvisionerReader, q: NodeQuery): string {
  const page = p.overview.page(q);
  return JSON.stringify({ ...page, limit: q.limit, totals: p.overview.totals() });
}

/** The node a URL names (`?node=`), checked as a key token. */
export function nodeParam(params: URLSearchParams): string {
  const node = params.get("node");
  if (node === null || node === "") throw new ProvisionerError("BAD_REQUEST", "node is missing: ask /api/node?node=<node>");
  if (!isPlainToken(node)) throw new ProvisionerError("BAD_REQUEST", `node "${String(node).slice(0, 80)}" is not a plain token (no ".", "*", ">", spaces)`);
  return node;
}

/**
 * One node's page: its row of counts (null when the mesh has no key of it),
 * then its needs, applied and collect entries and keys out of shape, each as
 * the verb answers `{what, node}` (at most NODE_PAGE_ENTRIES entries; `next`
 * when there are more).
 */
export function nodeJson(p: ProvisionerReader, node: string): string {
  const registry = p.projections.registry.store;
  const parts = (["needs", "applied", "collect"] as const).map((what) => {
    const page = buildPage(
      { what, filters: { node }, limit: NODE_PAGE_ENTRIES },
      { store: p.projections[what].store, isAnswered: answeredCheck(what, registry), maxBytes: Number.MAX_SAFE_INTEGER },
    );
    return `"${what}":${page.body}`;
  });
  return `{"node":${JSON.stringify(node)},"row":${JSON.stringify(p.overview.row(node) ?? null)},${parts.join(",")}}`;
}
