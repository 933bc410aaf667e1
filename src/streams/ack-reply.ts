/**
 * The delivery facts a JetStream message carries in its reply subject (pure).
 *
 * A push consumer's message has the reply subject
 * `$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<timestamp>.<pending>`
 * (9 tokens), or, from servers that name a domain and an account,
 * `$JS.ACK.<domain>.<account hash>.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<timestamp>.<pending>[.<token>]`
 * (11 or more). The watch needs three numbers of it for every message, so
 * they are read in one pass over the subject, without splitting it.
 */

export interface AckFacts {
  /** The message's sequence in the stream (a KV entry's revision). */
  streamSeq: number;
  /** The consumer's delivery count so far, this one included: consecutive for an ordered consumer. */
  deliverySeq: number;
  /** Messages the consumer has still to deliver after this one. */
  pending: number;
}

const DOT = 0x2e;
const PREFIX = "$JS.ACK.";
/** At most this many dots are looked at: the 12-token form has 11, anything after its last is not read. */
const MAX_DOTS = 11;
const dots = new Int32Array(MAX_DOTS);

/** The decimal digits of `s` from `from` to `to` (exclusive) as a number; -1 if empty or not all digits. */
function wholeAt(s: string, from: number, to: number): number {
  if (to <= from) return -1;
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
    n = n * 10 + (c - 0x30);
  }
  return n;
}

/**
 * Read the facts of the reply subject `reply` into `out` (one object for
 * every message of a watch); false, and `out` left as it was, where it is
 * not a JetStream message's.
 */
export function readAckReply(out: AckFacts, reply: string): boolean {
  if (!reply.startsWith(PREFIX)) return false;
  const to = reply.length;
  let count = 0;
  for (let i = PREFIX.length; i < to && count < MAX_DOTS; i++) if (reply.charCodeAt(i) === DOT) dots[count++] = i;
  // Tokens after "$JS.ACK.": 7 in the short form (6 dots), 9 or more in the long one (8 dots or more).
  let first: number;
  let afterPending: number;
  if (count === 6) {
    first = 2; // the dot before <stream seq>
    afterPending = to;
  } else if (count >= 8) {
    first = 4;
    afterPending = count > 8 ? (dots[8] as number) : to;
  } else return false;
  const streamSeq = wholeAt(reply, (dots[first] as number) + 1, dots[first + 1] as number);
  const deliverySeq = wholeAt(reply, (dots[first + 1] as number) + 1, dots[first + 2] as number);
  const pending = wholeAt(reply, (dots[first + 3] as number) + 1, afterPending);
  if (streamSeq < 0 || deliverySeq < 0 || pending < 0) return false;
  out.streamSeq = streamSeq;
  out.deliverySeq = deliverySeq;
  out.pending = pending;
  return true;
}

/** The facts of a JetStream message's reply subject, or undefined where it is not one. */
export function parseAckReply(reply: string): AckFacts | undefined {
  const out = { streamSeq: 0, deliverySeq: 0, pending: 0 };
  return readAckReply(out, reply) ? out : undefined;
}
