/**
 * The delivery facts a JetStream message carries in its reply subject (pure).
 *
 * A push consumer's message has the reply subject
 * `$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<timestamp>.<pending>`
 * (9 tokens), or, from servers that name a domain and an account,
 * `$JS.ACK.<domain>.<account hash>.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<timestamp>.<pending>[.<token>]`
 * (11 or more). The watch needs three numbers of it for every message, so
 * they are read in one pass over the subject's bytes, without decoding it or
 * splitting it into strings.
 */
import { readWhole, startsWith } from "../bytes.js";

export interface AckFacts {
  /** The message's sequence in the stream (a KV entry's revision). */
  streamSeq: number;
  /** The consumer's delivery count so far, this one included: consecutive for an ordered consumer. */
  deliverySeq: number;
  /** Messages the consumer has still to deliver after this one. */
  pending: number;
}

const DOT = 0x2e;
const PREFIX = Buffer.from("$JS.ACK.", "latin1");
/** At most this many dots are looked at: the 12-token form has 11, anything after its last is not read. */
const MAX_DOTS = 11;
const dots = new Int32Array(MAX_DOTS);

/**
 * Read the facts of the reply subject `buf[from, to)` into `out` (one object
 * for every message of a watch); false, and `out` left as it was or half
 * written, where it is not a JetStream message's.
 */
export function readAckReply(out: AckFacts, buf: Uint8Array, from: number, to: number): boolean {
  if (!startsWith(buf, PREFIX, from, to)) return false;
  let count = 0;
  for (let i = from + PREFIX.length; i < to && count < MAX_DOTS; i++) if (buf[i] === DOT) dots[count++] = i;
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
  const streamSeq = readWhole(buf, (dots[first] as number) + 1, dots[first + 1] as number);
  const deliverySeq = readWhole(buf, (dots[first + 1] as number) + 1, dots[first + 2] as number);
  const pending = readWhole(buf, (dots[first + 3] as number) + 1, afterPending);
  if (streamSeq < 0 || deliverySeq < 0 || pending < 0) return false;
  out.streamSeq = streamSeq;
  out.deliverySeq = deliverySeq;
  out.pending = pending;
  return true;
}

/** The facts of a JetStream message's reply subject (its bytes), or undefined where it is not one. */
export function parseAckReply(reply: Uint8Array): AckFacts | undefined {
  const out = { streamSeq: 0, deliverySeq: 0, pending: 0 };
  return readAckReply(out, reply, 0, reply.length) ? out : undefined;
}
