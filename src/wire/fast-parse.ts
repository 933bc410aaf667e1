/**
 * A fast path for the NATS client's protocol parser.
 *
 * nats-core's `Parser` walks every byte of every control line through a
 * state machine, then splits the line into tokens in a second per-byte
 * pass. A message's control line (`MSG <subject> <sid> [<reply>] <size>`)
 * is longer than its payload for most JetStream deliveries, so those two
 * passes are most of what reading a large stream costs the process.
 *
 * The fast path reads a whole `MSG` or `HMSG` that lies complete in one
 * socket read with native searches (`indexOf`) and hands the parser's
 * dispatcher exactly the event the state machine would have made: the same
 * `MsgArg` fields, the same payload bytes, as views of the read (plain
 * `Uint8Array` views: a Buffer's `subarray` builds a Buffer subclass, which
 * costs more than the view). Everything else goes to the stock parser unchanged, one
 * line or one split message at a time: other operations (PING, INFO, -ERR,
 * +OK), a message split across reads, and any line not in the server's
 * exact form (single spaces, no tab, no stray CR, an NL right after the
 * byte that ends the payload), for which the stock parser then gives its own answer or error.
 * So the events dispatched are the same as without it, which
 * test/unit/fast-parse.test.ts checks on random streams cut at random;
 * the one exception is a plain message of a subscription read raw
 * (`raw-reads.ts`), handed to its reader as positions instead.
 */
import { Parser, State, Kind, type MsgArg, type ParserEvent } from "@nats-io/nats-core/internal";
import { readWhole, viewOf } from "../bytes.js";
import { rawReaderFor } from "./raw-reads.js";

const NL = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const UPPER_M = 0x4d;
const UPPER_H = 0x48;
const UPPER_S = 0x53;
const UPPER_G = 0x47;
/** The stock parser's limit on a payload's size (and on a header's). */
const MAX_PAYLOAD = 64 * 1024 * 1024;
/** The stock parser's limit on a number's digits. */
const MAX_DIGITS = 15;

/** The parser's fields the fast path reads and sets (nats-core 3). */
interface ParserState {
  state: number;
  ma: MsgArg;
  msgBuf?: { length: number };
  readonly dispatcher: { push(e: ParserEvent): void };
}

type Parse = (this: Parser, buf: Uint8Array) => void;

/** The digits of `buf` from `from` to `to` (exclusive), or -1 as the stock parser's `protoParseInt` gives it. */
function number(buf: Uint8Array, from: number, to: number, max?: number): number {
  if (to - from > MAX_DIGITS) return -1;
  const n = readWhole(buf, from, to);
  return max !== undefined && n > max ? -1 : n;
}

/**
 * Token ends of the control line `buf[from, to)`: the positions of its
 * single spaces, into `ends`, followed by `to`. -1 where the line has an
 * empty token (two spaces in a row, a leading or trailing space) or more
 * than `ends` holds.
 */
function tokens(buf: Uint8Array, from: number, to: number, ends: Int32Array): number {
  let count = 0;
  let at = from;
  for (;;) {
    const space = buf.indexOf(SPACE, at);
    const end = space < 0 || space > to ? to : space;
    if (end === at || count === ends.length) return -1;
    ends[count++] = end;
    if (end === to) return count;
    at = end + 1;
  }
}

const ends = new Int32Array(6);

/**
 * The message whose control line starts at `i` (after the operation name
 * and its space, at `argsFrom`) and ends at the CR before `nl`, dispatched
 * whole; the position after the NL that ends it, or -1 (nothing dispatched)
 * where it is not complete in `buf` or not in the server's exact form.
 */
function fastMessage(p: ParserState, buf: Uint8Array, argsFrom: number, nl: number, headers: boolean): number {
  const lineEnd = nl - 1;
  const count = tokens(buf, argsFrom, lineEnd, ends);
  const withReply = headers ? count === 5 : count === 4;
  if (!withReply && count !== (headers ? 4 : 3)) return -1;
  const sid = number(buf, (ends[0] as number) + 1, ends[1] as number);
  let k = 2;
  const replyFrom = withReply ? (ends[1] as number) + 1 : -1;
  const replyTo = withReply ? (ends[k++] as number) : -1;
  const hdr = headers ? number(buf, (ends[k - 1] as number) + 1, ends[k++] as number, MAX_PAYLOAD) : -1;
  const size = number(buf, (ends[k - 1] as number) + 1, ends[k] as number, MAX_PAYLOAD);
  if (sid < 0 || size < 0 || (headers && (hdr < 0 || hdr > size))) return -1;
  const start = nl + 1;
  const end = start + size;
  // The stock parser reads the byte after the payload as its CR whatever it is, then skips to the NL.
  if (end + 2 > buf.length || buf[end + 1] !== NL) return -1;
  const raw = headers ? undefined : rawReaderFor(p.dispatcher, sid, size);
  if (raw !== undefined) {
    raw(buf, argsFrom, ends[0] as number, withReply ? replyFrom : start, withReply ? replyTo : start, start, end);
    return end + 2;
  }
  const reply = withReply ? viewOf(buf, replyFrom, replyTo) : undefined;
  const ma = { subject: viewOf(buf, argsFrom, ends[0] as number), sid, reply, hdr, size } as MsgArg;
  p.ma = ma;
  p.dispatcher.push({ kind: Kind.MSG, msg: ma, data: viewOf(buf, start, end) });
  return end + 2;
}

/** The fast path around the stock `parse`. */
export function fastParse(stock: Parse): Parse {
  return function parse(this: Parser, buf: Uint8Array): void {
    const p = this as unknown as ParserState;
    const len = buf.length;
    let nextTab = -2;
    let i = 0;
    /** Hand the stock parser `buf[i, to)`. */
    const stockTo = (to: number): void => {
      stock.call(this, i === 0 && to === len ? buf : buf.subarray(i, to));
      i = to;
    };
    while (i < len) {
      if (p.state !== State.OP_START) {
        // The rest of a message or line begun in an earlier read: up to the NL that ends it.
        const from = p.state === State.MSG_PAYLOAD && p.msgBuf !== undefined ? i + Math.max(0, p.ma.size - p.msgBuf.length) : i;
        const nl = from < len ? buf.indexOf(NL, from) : -1;
        stockTo(nl < 0 ? len : nl + 1);
        continue;
      }
      const nl = buf.indexOf(NL, i);
      if (nl < 0) {
        stockTo(len);
        break;
      }
      const b = buf[i];
      const headers = b === UPPER_H;
      const op = headers ? i + 1 : i;
      let next = -1;
      if (
        (headers || b === UPPER_M) &&
        buf[op] === UPPER_M && buf[op + 1] === UPPER_S && buf[op + 2] === UPPER_G && buf[op + 3] === SPACE &&
        buf.indexOf(CR, i) === nl - 1
      ) {
        if (nextTab !== -1 && nextTab < i) nextTab = buf.indexOf(TAB, i);
        if (nextTab === -1 || nextTab > nl) next = fastMessage(p, buf, op + 4, nl, headers);
      }
      if (next >= 0) i = next;
      else stockTo(nl + 1);
    }
  };
}

let installed = false;

/**
 * Put the fast path on nats-core's `Parser` (every connection of the
 * process, those made after a reconnect too). Idempotent.
 */
export function installFastParse(): void {
  if (installed) return;
  installed = true;
  const proto = Parser.prototype as unknown as { parse: Parse };
  proto.parse = fastParse(proto.parse);
}
