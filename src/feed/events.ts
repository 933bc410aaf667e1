/**
 * A feed event (pure): what a projection applied, as JSON text. The entry is
 * the same JSON the verb answers (so a client applies it as it would a page
 * entry); an out-of-shape key carries its reason instead.
 */
import type { Change } from "../projections/store/view.js";
import { ANSWERED_FALSE_GROWTH, unansweredJson, writeUnanswered } from "mesh-provisioner-client/protocol/answered.js";

/** An event's opening fields, up to its entry or reason (no closing brace). */
function eventHead(what: string, change: Change): string {
  return `{"what":"${what}","op":"${change.op}","key":${JSON.stringify(change.key)},"revision":${change.revision}`;
}

export function feedEvent(what: string, change: Change, isAnswered?: (kind: string) => boolean): string {
  const head = eventHead(what, change);
  if (change.entry) {
    let json = change.entry.json;
    const kind = change.entry.kind;
    if (isAnswered && kind !== undefined && !isAnswered(kind)) json = unansweredJson(json);
    return `${head},"entry":${json}}`;
  }
  if (change.outOfShape) return `${head},"outOfShape":${change.outOfShape.json}}`;
  return `${head}}`;
}

/**
 * The same event as `feedEvent`, as bytes: a put of an entry in shape is
 * written from the store's own bytes of its JSON into one small buffer (from
 * Node's shared pool: no ArrayBuffer of its own), without the entry's view,
 * its text, the joined event text or the client's encoding of it, so the
 * feed adds no copy of an entry to what each scavenge has to go through.
 * Any other change is `feedEvent`'s text, encoded.
 */
export function feedEventBytes(what: string, change: Change, isAnswered?: (kind: string) => boolean): Uint8Array {
  const json = change.op === "put" && change.outOfShape === undefined ? change.entryJson?.() : undefined;
  if (json === undefined) return Buffer.from(feedEvent(what, change, isAnswered));
  const head = `${eventHead(what, change)},"entry":`;
  const headBytes = Buffer.byteLength(head);
  const unanswered = isAnswered !== undefined && json.kind !== undefined && !isAnswered(json.kind);
  const entryBytes = json.end - json.start + (unanswered ? ANSWERED_FALSE_GROWTH : 0);
  // The head, the entry (flagged when unanswered), the event's closing brace.
  const out = Buffer.allocUnsafe(headBytes + entryBytes + 1);
  out.write(head, 0);
  if (unanswered) {
    let at = headBytes;
    writeUnanswered(
      {
        copy: (src, start, end) => (at += src.copy(out, at, start, end)),
        write: (text) => (at += out.write(text, at, "latin1")),
      },
      json.buf,
      json.start,
      json.end,
    );
  } else json.buf.copy(out, headBytes, json.start, json.end);
  out[headBytes + entryBytes] = 0x7d;
  return out;
}
