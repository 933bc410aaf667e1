/**
 * Building one page of the verb's answer from a projection (pure).
 *
 * Entries and out-of-shape keys are walked together in key order, starting
 * strictly after `after`. A page stops at `limit` entries or when the next
 * item would push the reply past `maxBytes`; its `next` is the last key the
 * page covers, so the following page continues after it without repeating or
 * skipping anything, and each out-of-shape key lands on exactly one page.
 * Every entry's JSON was built once when it was applied; here it is only
 * concatenated.
 */
import type { ProjectionStore, Projected, OutOfShapeKey } from "../projections/store.js";
import { lowerBound } from "../projections/sorted-keys.js";
import type { VerbRequest } from "./request.js";

export interface AnswerContext {
  readonly store: ProjectionStore;
  /** Whether the registry answers a kind (needs only). */
  readonly isAnswered?: (kind: string) => boolean;
  /** The largest reply allowed, in bytes (the connection's max payload less a margin). */
  readonly maxBytes: number;
}

export interface Page {
  readonly body: string;
  readonly entries: number;
  readonly outOfShape: number;
  readonly next?: string;
}

const ANSWERED_FALSE = ',"answered":false}';

function entryText(e: Projected, ctx: AnswerContext): string {
  const kind = e.fields["kind"];
  if (ctx.isAnswered !== undefined && kind !== undefined && !ctx.isAnswered(kind)) {
    return e.json.slice(0, -1) + ANSWERED_FALSE;
  }
  return e.json;
}

/**
 * The size of an entry's value in its answer, in bytes. The value sits between
 * the first `,"value":` and the last `,"revision":` of the entry's JSON (a JSON
 * string cannot hold either sequence unescaped).
 */
export function valueBytes(e: Projected): number {
  const start = e.json.indexOf(',"value":');
  const end = e.json.lastIndexOf(',"revision":');
  return start < 0 || end < start ? e.bytes : Buffer.byteLength(e.json.slice(start + 9, end));
}

/** An entry too large for any reply on this connection: its key and fields, without the value. */
function tooLargeText(e: Projected): string {
  return JSON.stringify({ key: e.key, ...e.fields, revision: e.revision, valueTooLarge: true, valueBytes: valueBytes(e) });
}

function contradicts(o: OutOfShapeKey, filters: readonly (readonly [string, string])[]): boolean {
  for (const [f, v] of filters) {
    const seen = o.readable[f];
    if (seen !== undefined && seen !== v) return true;
  }
  return false;
}

const nextBytes = (key: string): number => 9 + Buffer.byteLength(JSON.stringify(key)); // ,"next":"…"

export function buildPage(req: VerbRequest, ctx: AnswerContext): Page {
  const { store } = ctx;
  const cand = store.candidates(req.filters);
  const filterList = Object.entries(req.filters);
  const keys = cand.keys;
  const oosKeys = store.oosKeys.view();
  const limit = req.limit ?? Number.POSITIVE_INFINITY;

  const matches = (e: Projected): boolean => cand.residual.every(([f, v]) => e.fields[f] === v);

  let i = startAfter(keys, req.after);
  let j = startAfter(oosKeys, req.after);
  // Advance to the next item that belongs in this answer; return it without consuming.
  const peekEntry = (): Projected | undefined => {
    for (; i < keys.length; i++) {
      const e = store.get(keys[i] as string);
      if (e !== undefined && matches(e)) return e;
    }
    return undefined;
  };
  const peekOos = (): OutOfShapeKey | undefined => {
    for (; j < oosKeys.length; j++) {
      const o = store.getOutOfShape(oosKeys[j] as string);
      if (o !== undefined && !contradicts(o, filterList)) return o;
    }
    return undefined;
  };

  const head = `{"what":"${req.what}","revision":${store.revision},"entries":[`;
  const entryParts: string[] = [];
  const oosParts: string[] = [];
  let used = Buffer.byteLength(head) + `],"outOfShape":[]}`.length;
  let last: string | undefined;
  let next: string | undefined;

  for (;;) {
    const e = peekEntry();
    const o = peekOos();
    if (e === undefined && o === undefined) break;
    const takeEntry = e !== undefined && (o === undefined || e.key < o.key);
    if (takeEntry && entryParts.length >= limit) {
      next = last;
      break;
    }
    const key = takeEntry ? (e as Projected).key : (o as OutOfShapeKey).key;
    let text = takeEntry ? entryText(e as Projected, ctx) : (o as OutOfShapeKey).json;
    let bytes = takeEntry ? Buffer.byteLength(text) : (o as OutOfShapeKey).bytes;
    const parts = takeEntry ? entryParts : oosParts;
    const comma = parts.length > 0 ? 1 : 0;
    if (used + comma + bytes + nextBytes(key) > ctx.maxBytes) {
      if (last !== undefined) {
        next = last;
        break;
      }
      // Alone on a page and still too large: answer the entry without its value.
      text = takeEntry ? tooLargeText(e as Projected) : JSON.stringify({ key, reason: "out of shape (reason too large to answer)" });
      bytes = Buffer.byteLength(text);
    }
    parts.push(text);
    used += comma + bytes;
    last = key;
    if (takeEntry) i++;
    else j++;
  }

  let body = head + entryParts.join(",") + `],"outOfShape":[` + oosParts.join(",") + "]";
  if (next !== undefined) body += `,"next":${JSON.stringify(next)}`;
  body += "}";
  return { body, entries: entryParts.length, outOfShape: oosParts.length, next };
}

function startAfter(keys: readonly string[], after: string | undefined): number {
  if (after === undefined) return 0;
  const i = lowerBound(keys, after);
  return keys[i] === after ? i + 1 : i;
}

/** Whether the registry answers a kind: what the `answered` flag of needs says. */
export function answeredBy(registry: ProjectionStore): (kind: string) => boolean {
  return (kind) => registry.get(kind) !== undefined;
}

/** A bucket's whole answer in one unpaged body (dump, dashboard snapshot, verify), at most `limit` entries. */
export function wholeAnswer(what: VerbRequest["what"], store: ProjectionStore, registry: ProjectionStore, limit?: number): string {
  const isAnswered = what === "needs" ? answeredBy(registry) : undefined;
  return buildPage({ what, filters: {}, limit }, { store, isAnswered, maxBytes: Number.MAX_SAFE_INTEGER }).body;
}
