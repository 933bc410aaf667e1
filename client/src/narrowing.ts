/**
 * Which keys a request covers (pure), by the verb's own rules: an entry
 * belongs when each filter equals its field; a key out of shape belongs when
 * none of its readable tokens contradicts a filter. And which feed subjects
 * carry them: a node narrows the subscription to that node's keys, so a
 * node's client hears its own changes, not the mesh's.
 */
import { parseKey, readableContradicts, type What } from "./keys/mod.js";
import { bucketFeedSubject, nodeFeedSubjects } from "./protocol/subjects.js";
import type { FeedEvent } from "./protocol/messages.js";

export type Filters = Readonly<Record<string, string>>;

/** The filters of a request, without `what`, `limit`, `after` and `minRevision`. */
export function filtersOf(request: Readonly<Record<string, unknown>>): Filters {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(request)) {
    if (k === "what" || k === "limit" || k === "after" || k === "minRevision" || v === undefined) continue;
    out[k] = String(v);
  }
  return out;
}

const NO_KINDS: ReadonlySet<string> = new Set();

/** Whether the feed event's key belongs to what the filters ask for. */
export function covers(what: What, filters: Filters, event: Pick<FeedEvent, "key" | "entry">): boolean {
  const names = Object.keys(filters);
  if (names.length === 0) return true;
  if (event.entry !== undefined) {
    const e = event.entry as unknown as Record<string, unknown>;
    return names.every((f) => e[f] === filters[f]);
  }
  // A delete, or a key out of shape: judged by the key's readable tokens.
  const shape = parseKey(what, event.key, NO_KINDS);
  return !readableContradicts(shape.ok ? shape.fields : shape.readable, Object.entries(filters));
}

/** The feed subjects that carry every event `covers` keeps. */
export function feedSubjects(what: What, filters: Filters): string[] {
  const node = filters["node"];
  return node === undefined ? [bucketFeedSubject(what)] : nodeFeedSubjects(what, node);
}
