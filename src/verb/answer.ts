/**
 * Building one page of the verb's answer from a projection (pure).
 *
 * Entries and out-of-shape keys are walked together in key order, starting
 * strictly after `after`. A page stops at `limit` entries or when the next
 * item would push the reply past `maxBytes`; its `next` is the last key the
 * page covers, so the following page continues after it without repeating or
 * skipping anything, and each out-of-shape key lands on exactly one page.
 * Every entry's JSON is kept as bytes by the store; here it is only copied
 * into the reply (no string per entry is made: keys are read only where an
 * out-of-shape key must be ordered against them, and for `next`).
 */
import type { ByteRange, OutOfShapeKey, Projected, StoreView } from "../projections/store/view.js";
import { ANSWERED_FALSE_GROWTH, writeUnanswered } from "mesh-provisioner-client/protocol/answered.js";
import type { VerbRequest } from "./request.js";
import { PageWriter } from "./page-writer.js";
import { answeredCheck, readableContradicts } from "mesh-provisioner-client/keys";

export interface AnswerContext {
  readonly store: StoreView;
  /** Whether the registry answers a kind (needs only). */
  readonly isAnswered?: (kind: string) => boolean;
  /** The largest reply allowed, in bytes (the connection's max payload less a margin). */
  readonly maxBytes: number;
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
/** Slots read from a scan, a batch at a time. */
const batch = new Int32Array(256);

/**
 * The entries taken but not copied yet: a run of records that lie back to
 * back in one segment, commas included, so a node whose keys were written
 * together is copied in one go. Pages are built one at a time, so one serves.
 */
const run = { buf: undefined as Buffer | undefined, start: 0, end: 0 };

/** Where the entry being added lies, filled by the store (one object for every entry). */
const at: ByteRange = { buf: Buffer.alloc(0), start: 0, end: 0 };

function flushRun(): void {
  if (run.buf === undefined) return;
  writer.copy(run.buf, run.start, run.end);
  run.buf = undefined;
}

/** Add a slot's entry JSON to the page, after a comma unless it is the first: into the current run when it follows it in memory. */
function addEntry(store: StoreView, slot: number, first: boolean): void {
  const { buf, start, end } = store.jsonRange(slot, at);
  if (run.buf === buf && start === run.end + 1) {
    run.end = end;
    return;
  }
  flushRun();
  if (!first) writer.byte(0x2c);
  run.buf = buf;
  run.start = start;
  run.end = end;
}

/** Write a slot's entry JSON with `"answered":false` in place of its closing brace. */
function addUnanswered(store: StoreView, slot: number, first: boolean): void {
  flushRun();
  if (!first) writer.byte(0x2c);
  const { buf, start, end } = store.jsonRange(slot, at);
  writeUnanswered(writer, buf, start, end);
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

/**
 * Whether `,"next":<key>` fits in `room` bytes. A key in shape is ASCII
 * tokens, written as is; an out-of-shape key is bounded by 6 bytes per
 * UTF-16 unit (\u00XX) and measured exactly only when that bound is too close.
 */
function nextFits(key: number | string, keyBytes: number, room: number): boolean {
  if (typeof key === "number") return 11 + keyBytes <= room;
  if (11 + 6 * key.length <= room) return true;
  return 9 + Buffer.byteLength(JSON.stringify(key)) <= room;
}

const TAIL_EMPTY = `],"outOfShape":[]}`.length;

export function buildPage(req: VerbRequest, ctx: AnswerContext): Page {
  const { store } = ctx;
  const scan = store.scan(req.filters, req.after);
  const oosScan = store.oosAfter(req.after);
  const filterList = Object.entries(req.filters);
  const limit = req.limit ?? Number.POSITIVE_INFINITY;
  const residual = scan.residual;
  const isAnswered = ctx.isAnswered;
  const unanswered = isAnswered === undefined ? [] : store.kindIdsWhere((k) => !isAnswered(k));

  const matches = (slot: number): boolean => {
    if (residual.length === 0) return true;
    const fields = store.spec.fieldsOf(store.keyOf(slot));
    return residual.every(([f, v]) => fields[f] === v);
  };
  // The next item that belongs in this answer, kept until it is taken; slots come in batches.
  let slot = -2;
  let batchLength = 0;
  let batchAt = 0;
  let o: OutOfShapeKey | undefined | null = null;
  const peekEntry = (): number => {
    while (slot === -2) {
      if (batchAt === batchLength) {
        batchLength = scan.fill(batch);
        batchAt = 0;
        if (batchLength === 0) return (slot = -1);
      }
      const s = batch[batchAt++] as number;
      if (matches(s)) slot = s;
    }
    return slot;
  };
  const peekOos = (): OutOfShapeKey | undefined => {
    if (o === null) {
      do o = oosScan.next();
      while (o !== undefined && readableContradicts(o.readable, filterList));
    }
    return o;
  };

  const head = `{"what":"${req.what}","revision":${store.revision},"entries":[`;
  writer.truncate(0);
  run.buf = undefined;
  let entries = 0;
  const oosParts: string[] = [];
  let used = Buffer.byteLength(head) + TAIL_EMPTY;
  // The last item taken: a slot (its key read only if the page needs `next`), or an out-of-shape key.
  let lastSlot = -1;
  let last: string | undefined;
  const lastKey = (): string | undefined => (lastSlot >= 0 ? store.keyOf(lastSlot) : last);
  let next: string | undefined;

  for (;;) {
    const e = peekEntry();
    const x = peekOos();
    if (e < 0 && x === undefined) break;
    const takeEntry = e >= 0 && (x === undefined || store.compareKey(x.key, e) > 0);
    if (takeEntry && entries >= limit) {
      next = lastKey();
      break;
    }
    // Only the key's length in bytes matters until it becomes `next` (keys in shape are ASCII).
    const keyLength = takeEntry ? store.keyLength(e) : Buffer.byteLength((x as OutOfShapeKey).key);
    const comma = (takeEntry ? entries : oosParts.length) > 0 ? 1 : 0;
    let bytes: number;
    let oosText: string | undefined;
    // `answered:false` (needs) where the registry does not answer the entry's kind; usually no kind is unanswered and none is read.
    const flagged = takeEntry && unanswered.length > 0 && unanswered.includes(store.kindOfSlot(e));
    if (takeEntry) bytes = store.jsonBytes(e) + (flagged ? ANSWERED_FALSE_GROWTH : 0);
    else {
      oosText = (x as OutOfShapeKey).json;
      bytes = (x as OutOfShapeKey).bytes;
    }
    if (!nextFits(takeEntry ? e : (x as OutOfShapeKey).key, keyLength, ctx.maxBytes - used - comma - bytes)) {
      if (lastSlot >= 0 || last !== undefined) {
        next = lastKey();
        break;
      }
      // Alone on a page and still too large: answer the entry without its value.
      if (takeEntry) bytes = writer.write(tooLargeText(store.entryAt(e)));
      else bytes = Buffer.byteLength((oosText = JSON.stringify({ key: (x as OutOfShapeKey).key, reason: "out of shape (reason too large to answer)" })));
    } else if (takeEntry) {
      if (flagged) addUnanswered(store, e, entries === 0);
      else addEntry(store, e, entries === 0);
    }
    if (takeEntry) {
      entries++;
      lastSlot = e;
      slot = -2;
    } else {
      oosParts.push(oosText as string);
      lastSlot = -1;
      last = (x as OutOfShapeKey).key;
      o = null;
    }
    used += comma + bytes;
  }

  flushRun();
  let tail = `],"outOfShape":[` + oosParts.join(",") + "]";
  if (next !== undefined) tail += `,"next":${JSON.stringify(next)}`;
  tail += "}";
  const bytes = writer.finish(head, tail, Buffer.allocUnsafe);
  return new BuiltPage(bytes, entries, oosParts.length, next);
}

/**
 * A page as built. A class, not an object literal with a getter: V8 makes
 * the getter of each such literal a pair of accessors allocated in the old
 * generation, so each page's getter closure, and with it everything the
 * build's closures saw (scans, cursors, texts), would stay alive through
 * young collections until the next full one, for every scavenge to copy
 * again (docs/benchmarks.md, "Pages that outlived their answer").
 */
class BuiltPage implements Page {
  constructor(
    readonly bytes: Buffer,
    readonly entries: number,
    readonly outOfShape: number,
    readonly next: string | undefined,
  ) {}

  /** The reply as text, decoded when asked. */
  get body(): string {
    return this.bytes.toString("utf8");
  }
}

/** A bucket's whole answer in one unpaged body (dump, dashboard snapshot, verify), at most `limit` entries. */
export function wholeAnswer(what: VerbRequest["what"], store: StoreView, registry: StoreView, limit?: number): string {
  return buildPage({ what, filters: {}, limit }, { store, isAnswered: answeredCheck(what, registry), maxBytes: Number.MAX_SAFE_INTEGER }).body;
}
