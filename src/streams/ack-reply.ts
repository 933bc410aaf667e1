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
  readonly streamSeq: number;
  /** The consumer's delivery count so far, this one included: consecutive for an ordered consumer. */
  readonly deliverySeq: number;
  /** Messages the consumer has still to deliver after this one. */
  readonly pending: number;
}

const DOT = 0x2e;
const PREFIX = Buffer.from("$JS.ACK.", "latin1");
/** At most this many dots are looked at: the 12-token form has 11, anything after its last is not read. */
const MAX_DOTS = 11;
const dots = new Int32Array(MAX_DOTS);

/** The facts of a JetStream message's reply subject (its bytes), or undefined where it is not one. */
export function parseAckReply(reply: Uint8Array): AckFacts | undefined {
  if (!startsWith(reply, PREFIX)) return undefined;
  let count = 0;
  for (let i = PREFIX.length; i < reply.length && count < MAX_DOTS; i++) if (reply[i] === DOT) dots[count++] = i;
  // Tokens after "$JS.ACK.": 7 in the short form (6 dots), 9 or more in the long one (8 dots or more).
  let first: number;
  let afterPending: number;
  if (count === 6) {
    first = 2; // the dot before <stream seq>
    afterPending = reply.length;
  } else if (count >= 8) {
    first = 4;
    afterPending = count > 8 ? (dots[8] as number) : reply.length;
  } else return undefined;
  const streamSeq = readWhole(reply, (dots[first] as number) + 1, dots[first + 1] as number);
  const deliverySeq = readWhole(reply, (dots[first + 1] as number) + 1, dots[first + 2] as number);
  const pending = readWhole(reply, (dots[first + 3] as number) + 1, afterPending);
  if (streamSeq < 0 || deliverySeq < 0 || pending < 0) return undefined;
  return { streamSeq, deliverySeq, pending };
}
