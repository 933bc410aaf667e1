/**
 * Building one page of the verb's answer from a projection (pure).
 *
 * Entries and out-of-shape keys are walked together in key order, starting
 * strictly after `after`. A page stops at `limit` entries or when the next
 * item would push the reply past `maxBytes`; its `next` is the last key the
 * page covers, so the following page continues after it without repeating or
 * skipping anything, and each out-of-shape key lands on exactly one page.
 * Every entry's JSON is rendered once (when first answered); here it is only
 * copied into the reply's bytes.
 */
import { ANSWERED_FALSE, type ProjectionStore, type Projected, type OutOfShapeKey } from "../projections/store.js";
import { lowerBound } from "../projections/sorted-keys.js";
import type { VerbRequest } from "./request.js";
import { PageWriter } from "./page-writer.js";

export interface AnswerContext {
  readonly store: ProjectionStore;
  /** Whether the registry answers a kind (needs only). */
  readonly isAnswered?: (kind: string) => boolean;
  /** The largest reply allowed, in bytes (the connection's max payload less a margin). */
  readonly maxBytes: number;
  /** Where the reply's bytes go (the verb's arena); a new buffer of its own by default. */
  readonly alloc?: (bytes: number) => Buffer;
}

export interface Page {
  /** The reply as sent: UTF-8 JSON. */
  readonly bytes: Buffer;
  /** The reply as text (decoded when asked: tests, the dump). */
  readonly body: string;
  readonly entries: number;
  readonly outOfShape: number;
  readonly next?: string;
}

const writer = new PageWriter();

/**
 * Write an entry's JSON into the page, with `"answered":false` when its kind
 * is one the registry does not answer (`unanswered`, usually empty: then no
 * entry's kind is even read); returns the bytes it took.
 */
function writeEntry(e: Projected, unanswered: readonly string[]): number {
  const n = writer.write(e.json);
  if (unanswered.length === 0 || !unanswered.includes(e.kind as string)) return n;
  writer.truncate(writer.length - 1); // the entry's closing brace
  return n - 1 + writer.write(ANSWERED_FALSE);
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

/** Whether `,"next":"<key>"` fits in `room` bytes: at most 6 per character (\u00XX), measured exactly only when that bound is too close. */
function nextFits(key: string, room: number): boolean {
  if (11 + 6 * key.length <= room) return true;
  return 9 + Buffer.byteLength(JSON.stringify(key)) <= room;
}

const TAIL_EMPTY = `],"outOfShape":[]}`.length;

export function buildPage(req: VerbRequest, ctx: AnswerContext): Page {
  const { store } = ctx;
  const cand = store.candidates(req.filters);
  const filterList = Object.entries(req.filters);
  const keys = cand.keys;
  const oosKeys = store.oosKeys.view();
  const limit = req.limit ?? Number.POSITIVE_INFINITY;
  const residual = cand.residual;
  const isAnswered = ctx.isAnswered;
  const unanswered = isAnswered === undefined ? [] : [...store.kinds()].filter((k) => !isAnswered(k));

  const matches = (e: Projected): boolean => residual.length === 0 || residual.every(([f, v]) => e.fields[f] === v);

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
  writer.truncate(0);
  let entries = 0;
  const oosParts: string[] = [];
  let used = Buffer.byteLength(head) + TAIL_EMPTY;
  let last: string | undefined;
  let next: string | undefined;

  for (;;) {
    const e = peekEntry();
    const o = peekOos();
    if (e === undefined && o === undefined) break;
    const takeEntry = e !== undefined && (o === undefined || e.key < o.key);
    if (takeEntry && entries >= limit) {
      next = last;
      break;
    }
    const key = takeEntry ? (e as Projected).key : (o as OutOfShapeKey).key;
    const comma = (takeEntry ? entries : oosParts.length) > 0 ? 1 : 0;
    let bytes: number;
    let oosText: string | undefined;
    const mark = writer.length;
    if (takeEntry) {
      if (comma) writer.write(",");
      bytes = writeEntry(e as Projected, unanswered);
    } else {
      oosText = (o as OutOfShapeKey).json;
      bytes = (o as OutOfShapeKey).bytes;
    }
    if (!nextFits(key, ctx.maxBytes - used - comma - bytes)) {
      writer.truncate(mark);
      if (last !== undefined) {
        next = last;
        break;
      }
      // Alone on a page and still too large: answer the entry without its value.
      if (takeEntry) bytes = writer.write(tooLargeText(e as Projected));
      else bytes = Buffer.byteLength((oosText = JSON.stringify({ key, reason: "out of shape (reason too large to answer)" })));
    }
    if (takeEntry) {
      entries++;
      i++;
    } else {
      oosParts.push(oosText as string);
      j++;
    }
    used += comma + bytes;
    last = key;
  }

  let tail = `],"outOfShape":[` + oosParts.join(",") + "]";
  if (next !== undefined) tail += `,"next":${JSON.stringify(next)}`;
  tail += "}";
  const bytes = writer.finish(head, tail, ctx.alloc ?? Buffer.allocUnsafeSlow);
  return {
    bytes,
    get body() {
      return bytes.toString("utf8");
    },
    entries,
    outOfShape: oosParts.length,
    next,
  };
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
