/**
 * The `answered: false` flag of a need whose kind the registry does not
 * answer (pure). An entry's JSON always ends with its closing brace, and the
 * flag is spliced in its place, so an answer, a feed event and a dashboard
 * event carry the entry the store holds with the same last field, byte for
 * byte. Every writer of the flag goes through here.
 */

/** What takes the place of an entry's closing brace. */
export const ANSWERED_FALSE = ',"answered":false}';

/** How many bytes an entry's JSON grows by when flagged. */
export const ANSWERED_FALSE_GROWTH = ANSWERED_FALSE.length - 1;

/** An entry's JSON text, flagged. */
export function unansweredJson(json: string): string {
  return json.slice(0, -1) + ANSWERED_FALSE;
}

/** Where bytes are written in turn: a page being built, or an event's buffer. */
export interface ByteSink {
  /** Append `src[start, end)`. */
  copy(src: Buffer, start: number, end: number): unknown;
  /** Append `text` (ASCII here). */
  write(text: string): unknown;
}

/** Append an entry's JSON bytes `src[start, end)`, flagged. */
export function writeUnanswered(sink: ByteSink, src: Buffer, start: number, end: number): void {
  sink.copy(src, start, end - 1);
  sink.write(ANSWERED_FALSE);
}
