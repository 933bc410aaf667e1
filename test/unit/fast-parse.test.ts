import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Kind, Parser, type ParserEvent } from "@nats-io/nats-core/internal";
import { fastParse } from "../../src/wire/fast-parse.js";
import { cut } from "../helpers/cut.js";

/** What a dispatcher was handed, copied at once (the parser's views may be reused). */
type Seen = { kind: number; subject?: string; reply?: string; sid?: number; hdr?: number; size?: number; data?: string } | { error: string };

const hex = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString("hex"));

function recorder(): { seen: Seen[]; dispatcher: { push(e: ParserEvent): void } } {
  const seen: Seen[] = [];
  return {
    seen,
    dispatcher: {
      push(e: ParserEvent): void {
        if (e.kind === Kind.MSG) {
          const m = e.msg!;
          seen.push({ kind: e.kind, subject: hex(m.subject), reply: hex(m.reply), sid: m.sid, hdr: m.hdr, size: m.size, data: hex(e.data) });
        } else seen.push({ kind: e.kind, data: hex(e.data) });
      },
    },
  };
}

const stockParse = Parser.prototype.parse;
const fast = fastParse(stockParse);

/** Feed `chunks` to a parser, the stock one or the fast path; what it dispatched, and where it failed. */
function run(chunks: Uint8Array[], withFastPath: boolean): Seen[] {
  const { seen, dispatcher } = recorder();
  const parser = new Parser(dispatcher as never);
  for (const [n, chunk] of chunks.entries()) {
    try {
      (withFastPath ? fast : stockParse).call(parser, chunk);
    } catch (err) {
      seen.push({ error: `chunk ${n}: ${(err as Error).message.split(":")[0]}` });
      break;
    }
  }
  return seen;
}

const enc = (s: string): Buffer => Buffer.from(s, "latin1");
const token = fc.stringMatching(/^[A-Za-z0-9_$.>*-]{1,40}$/);
const payload = fc.uint8Array({ maxLength: 300 });

/** One protocol operation as the server sends it. */
const served = fc.oneof(
  { weight: 6, arbitrary: fc.record({ subject: token, sid: fc.nat(99999), reply: fc.option(token), data: payload }).map(({ subject, sid, reply, data }) =>
    Buffer.concat([enc(`MSG ${subject} ${sid} ${reply === null ? "" : `${reply} `}${data.length}\r\n`), data, enc("\r\n")])) },
  { weight: 4, arbitrary: fc.record({ subject: token, sid: fc.nat(99999), reply: fc.option(token), head: fc.uint8Array({ maxLength: 80 }), data: payload }).map(({ subject, sid, reply, head, data }) => {
    const h = Buffer.concat([enc("NATS/1.0\r\n"), head]);
    return Buffer.concat([enc(`HMSG ${subject} ${sid} ${reply === null ? "" : `${reply} `}${h.length} ${h.length + data.length}\r\n`), h, data, enc("\r\n")]);
  }) },
  { weight: 1, arbitrary: fc.constantFrom("PING\r\n", "PONG\r\n", "+OK\r\n", "-ERR 'Authorization Violation'\r\n", 'INFO {"server_id":"x","max_payload":1048576}\r\n').map(enc) },
);

/**
 * One operation in a form the server does not send, which the stock parser reads or refuses: lower case, tabs,
 * repeated spaces, a CR inside the line or none before its NL, something between the payload and its NL (%d is the
 * payload; such a trailer may swallow the next line).
 */
const odd = fc.record({ subject: token, data: payload, form: fc.constantFrom(
    "msg %s 1 %n\r\n%d\r\n", "MSG\t%s\t1\t%n\r\n%d\r\n", "MSG  %s 1  %n\r\n%d\r\n", "MSG %s\t7 %n\r\n%d\r\n",
    "MSG a\t%s 1 %n\r\n%d\r\n", "MSG %s 1 x\ty %n\r\n%d\r\n", "MSG %s\r 1 %n\r\n%d\r\n", "MSG a\r%s 1 %n\r\n%d\r\n",
    "MSG %s 1 %n\n%d\r\n", "HMSG %s 1 0 %n\r\n%d\r\n", "MSG %s 1 %n\r\n%d\rZ\n", "MSG %s 1 %n\r\n%d\n", "MSG %s 1  %n\r\n%d\r\n", "MSG %s  1 %n\r\n%d\r\n") }).map(({ subject, data, form }) => {
    const [line, trailer] = form.replace("%s", subject).replace("%n", String(data.length)).split("%d") as [string, string];
    return Buffer.concat([enc(line), data, enc(trailer)]);
  });

const operation = fc.oneof({ weight: 5, arbitrary: served }, { weight: 1, arbitrary: odd });

/** Lines the stock parser refuses, so that its errors are compared too. */
const broken = fc.constantFrom("MSG a b 3\r\nabc\r\n", "MSG a 1 x\r\n", "HMSG a 1 9 3\r\nabc\r\n", "MSG a 1 2 3 4 5\r\n", "XYZ\r\n", "MSG a 1 99999999999\r\n", "MSG a 1234567890123456 3\r\nabc\r\n", "HMSG a 1 1234567890123456 3\r\nabc\r\n").map(enc);

describe("the parser's fast path", () => {
  test("dispatches exactly what the stock parser does, however the stream is cut", () => {
    fc.assert(
      fc.property(fc.array(operation, { minLength: 1, maxLength: 40 }), fc.array(fc.nat(), { maxLength: 12 }), (ops, at) => {
        const chunks = cut(Buffer.concat(ops), at);
        assert.deepEqual(run(chunks, true), run(chunks, false));
      }),
      { numRuns: 2000 },
    );
  });

  test("fails where the stock parser fails, on the same read, after the same events", () => {
    fc.assert(
      fc.property(fc.array(served, { maxLength: 10 }), broken, fc.array(operation, { maxLength: 3 }), fc.array(fc.nat(), { maxLength: 6 }), (before, bad, after, at) => {
        const chunks = cut(Buffer.concat([...before, bad, ...after]), at);
        const fastSeen = run(chunks, true);
        assert.deepEqual(fastSeen, run(chunks, false));
        assert.ok(fastSeen.some((s) => "error" in s), "the broken line is refused");
      }),
      { numRuns: 1000 },
    );
  });

  test("messages whole in one read never reach the stock parser, so a nats-core upgrade that renames its fields is seen", () => {
    let stockCalls = 0;
    const counted = fastParse(function (this: Parser, buf: Uint8Array) {
      stockCalls++;
      stockParse.call(this, buf);
    });
    const wire = Buffer.concat([
      enc("MSG $KV.b.n1.m1.config.k1 3 $JS.ACK.KV_b.c_1.1.5.5.1764662400123456789.0 2\r\n{}\r\n"),
      enc(`HMSG _INBOX.x 4 ${"NATS/1.0 100 Idle\r\n\r\n".length} ${"NATS/1.0 100 Idle\r\n\r\n{}".length}\r\nNATS/1.0 100 Idle\r\n\r\n{}\r\n`),
      enc("MSG a 5 0\r\n\r\n"),
    ]);
    const { seen, dispatcher } = recorder();
    const parser = new Parser(dispatcher as never);
    counted.call(parser, wire);
    counted.call(parser, wire);
    assert.equal(seen.length, 6);
    assert.equal(stockCalls, 0);
  });

  test("a payload over the stock parser's 64 MiB limit is refused though it is complete in the read", () => {
    const size = 64 * 1024 * 1024 + 1;
    const wire = Buffer.concat([enc(`MSG a 1 ${size}\r\n`), Buffer.alloc(size), enc("\r\n")]);
    assert.deepEqual(run([wire], true), run([wire], false));
    assert.ok("error" in run([wire], true)[0]!);
  });

  test("a message complete in one read is dispatched with views of that read, as the stock parser gives them", () => {
    const wire = enc("MSG $KV.b.n1.m1.config.k1 3 $JS.ACK.KV_b.c_1.1.5.5.1764662400123456789.0 2\r\n{}\r\n");
    const { seen, dispatcher } = recorder();
    const events: ParserEvent[] = [];
    const parser = new Parser({ push: (e: ParserEvent) => { events.push(e); dispatcher.push(e); } } as never);
    fast.call(parser, wire);
    assert.equal(seen.length, 1);
    assert.equal(events[0]!.data!.buffer, wire.buffer, "the payload is a view of the read, not a copy");
    assert.equal(Buffer.from(events[0]!.msg!.subject).toString(), "$KV.b.n1.m1.config.k1");
    assert.equal(events[0]!.msg!.sid, 3);
    assert.equal(Buffer.from(events[0]!.data!).toString(), "{}");
  });
});
