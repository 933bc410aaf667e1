/**
 * A feed event (pure): what a projection applied, as JSON text. The entry is
 * the same JSON the verb answers (so a client applies it as it would a page
 * entry); an out-of-shape key carries its reason instead.
 */
import { ANSWERED_FALSE, type Change } from "../projections/store.js";

export const FEED_PREFIX = "mesh-provisioner.feed";

export function feedSubject(what: string, key: string): string {
  return `${FEED_PREFIX}.${what}.${key}`;
}

export function feedEvent(what: string, change: Change, isAnswered?: (kind: string) => boolean): string {
  const head = `{"what":"${what}","op":"${change.op}","key":${JSON.stringify(change.key)},"revision":${change.revision}`;
  if (change.entry) {
    let json = change.entry.json;
    const kind = change.entry.kind;
    if (isAnswered && kind !== undefined && !isAnswered(kind)) json = json.slice(0, -1) + ANSWERED_FALSE;
    return `${head},"entry":${json}}`;
  }
  if (change.outOfShape) return `${head},"outOfShape":${change.outOfShape.json}}`;
  return `${head}}`;
}
