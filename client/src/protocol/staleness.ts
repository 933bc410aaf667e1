/**
 * Staleness (pure): what a reply says when the projection that answered it
 * has heard nothing from its bucket's stream for longer than the service's
 * `--stale-after` (docs/protocol.md, "Stale answers"). A reply carries it as
 * `stale`; an error reply's body carries it beside `error`.
 *
 * The clients read it leniently: a `stale` that is absent or `null` is no
 * staleness, and so is one out of shape (not an object, `since` not an
 * ISO 8601 time, `silentMs` or `revision` not a non-negative integer). The
 * entries of such an answer are still the bucket's at the revision it names;
 * only the warning is unreadable, and it is dropped rather than the answer.
 * Fields it does not know are ignored. The Go client reads it by the same
 * rules (vectors/staleness.json holds both to them).
 */

/** How stale an answer may be: the projection's last word from its stream, how long ago, and the revision it holds. */
export interface Staleness {
  /** The last moment the projection heard from its bucket's stream (ISO 8601, UTC, ms). */
  readonly since: string;
  /** How long before the answer that was, in ms (measured by the answering instance: no clock skew). */
  readonly silentMs: number;
  /** The revision of the bucket the projection holds. */
  readonly revision: number;
}

/** RFC 3339's date-time (the ISO 8601 profile Go's time.RFC3339 reads): a real calendar day, hours 00-23, seconds 00-59. */
const ISO_TIME = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
function isTime(s: string): boolean {
  const m = ISO_TIME.exec(s);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
}
const count = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** The staleness `v` says, or undefined when it is absent or out of shape (see above). */
export function readStaleness(v: unknown): Staleness | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const { since, silentMs, revision } = v as Record<string, unknown>;
  if (typeof since !== "string" || !isTime(since)) return undefined;
  if (!count(silentMs) || !count(revision)) return undefined;
  return { since, silentMs, revision };
}

/**
 * The staleness of an answer merged from pages: the page's whose `since` is
 * the oldest (the one that had heard nothing for the longest), or undefined
 * when no page was stale. On a tie, the first seen.
 */
export function oldestStaleness(a: Staleness | undefined, b: Staleness | undefined): Staleness | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Date.parse(b.since) < Date.parse(a.since) ? b : a;
}
