import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Kind, Parser, type ParserEvent } from "@nats-io/nats-core/internal";
import type { Subscription } from "@nats-io/nats-core";
import { fastParse } from "../../src/wire/fast-parse.js";
import { readRaw } from "../../src/wire/raw-reads.js";
import { cut } from "../helpers/cut.js";

const enc = (s: string): Buffer => Buffer.from(s, "latin1");
const hex = (b: Uint8Array, from = 0, to = b.length): string => Buffer.from(b.subarray(from, to)).toString("hex");

/** A message as a subscription sees it, whichever way it came. */
type Seen = { sid: number; subject: string; reply: string; data: string; raw: boolean };

const RAW_SID = 7;
const stockParse = Parser.prototype.parse;
const fast = fastParse(stockParse);

/** A dispatcher shaped as nats-core's protocol handler: its counts, its subscriptions by sid. */
function dispatcher(subs: Map<number, { received: number }>) {
  const seen: Seen[] = [];
  return {
    seen,
    inMsgs: 0,
    inBytes: 0,
    subscriptions: { get: (sid: number) => subs.get(sid) },
    push(e: ParserEvent): void {
      if (e.kind !== Kind.MSG) return;
      const m = e.msg!;
      this.inMsgs++;
      this.inBytes += e.data!.length;
      const sub = subs.get(m.sid);
      if (sub) sub.received++;
      seen.push({ sid: m.sid, subject: hex(m.subject), reply: m.reply ? hex(m.reply) : "", data: hex(e.data!), raw: false });
    },
  };
}

/** Feed `chunks` with the fast path, the subscription RAW_SID read raw or not. */
function run(chunks: Uint8Array[], raw: boolean) {
  const subs = new Map([[RAW_SID, { received: 0 }], [8, { received: 0 }]]);
  const d = dispatcher(subs);
  const stop = raw
    ? readRaw(subs.get(RAW_SID) as unknown as Subscription, (buf, s, se, r, re, p, pe) => d.seen.push({ sid: RAW_SID, subject: hex(buf, s, se), reply: hex(buf, r, re), data: hex(buf, p, pe), raw: true }))
    : () => undefined;
  const parser = new Parser(d as never);
  try {
    for (const chunk of chunks) fast.call(parser, chunk);
  } finally {
    stop();
  }
  return { seen: d.seen, inMsgs: d.inMsgs, inBytes: d.inBytes, received: [...subs.values()].map((s) => s.received) };
}

const token = fc.stringMatching(/^[A-Za-z0-9_$.>*-]{1,40}$/);
const payload = fc.uint8Array({ maxLength: 300 });
const sid = fc.constantFrom(RAW_SID, 8, 9);
const op = fc.oneof(
  { weight: 5, arbitrary: fc.record({ subject: token, sid, reply: fc.option(token), data: payload }).map(({ subject, sid, reply, data }) =>
    Buffer.concat([enc(`MSG ${subject} ${sid} ${reply === null ? "" : `${reply} `}${data.length}\r\n`), data, enc("\r\n")])) },
  { weight: 2, arbitrary: fc.record({ subject: token, sid, data: payload }).map(({ subject, sid, data }) => {
    const h = enc("NATS/1.0\r\nKV-Operation: DEL\r\n\r\n");
    return Buffer.concat([enc(`HMSG ${subject} ${sid} ${h.length} ${h.length + data.length}\r\n`), h, data, enc("\r\n")]);
  }) },
  { weight: 1, arbitrary: fc.constantFrom("PING\r\n", "+OK\r\n").map(enc) },
);

describe("a subscription read raw", () => {
  test("sees every one of its messages once, in order, as it would be dispatched; only its plain ones come raw; the counts are the client's", () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), fc.array(fc.nat(), { maxLength: 12 }), (ops, at) => {
        const chunks = cut(Buffer.concat(ops), at);
        const raw = run(chunks, true);
        const plain = run(chunks, false);
        assert.deepEqual(raw.seen.map(({ raw: _r, ...m }) => m), plain.seen.map(({ raw: _r, ...m }) => m));
        assert.deepEqual([raw.inMsgs, raw.inBytes, raw.received], [plain.inMsgs, plain.inBytes, plain.received]);
        for (const m of raw.seen) if (m.raw) assert.equal(m.sid, RAW_SID, "only the subscription read raw gets raw reads");
      }),
      { numRuns: 2000 },
    );
  });

  test("a plain message whole in the read comes raw, a header message and one cut across reads come dispatched", () => {
    const plain = enc("MSG $KV.b.k1 7 $JS.ACK.KV_b.c_1.1.5.5.1764662400123456789.0 2\r\n{}\r\n");
    const h = "NATS/1.0\r\nKV-Operation: DEL\r\n\r\n";
    const headed = enc(`HMSG $KV.b.k2 7 ${h.length} ${h.length + 2}\r\n${h}{}\r\n`);
    const whole = run([Buffer.concat([plain, headed])], true).seen.map((m) => m.raw);
    assert.deepEqual(whole, [true, false]);
    const split = run([plain.subarray(0, 30), plain.subarray(30)], true).seen.map((m) => m.raw);
    assert.deepEqual(split, [false]);
  });

  test("once stopped, its messages are dispatched as usual again", () => {
    const subs = new Map([[RAW_SID, { received: 0 }]]);
    const d = dispatcher(subs);
    let raws = 0;
    const stop = readRaw(subs.get(RAW_SID) as unknown as Subscription, () => raws++);
    const parser = new Parser(d as never);
    const wire = enc("MSG a 7 1\r\nx\r\n");
    fast.call(parser, wire);
    stop();
    fast.call(parser, wire);
    assert.equal(raws, 1);
    assert.equal(d.seen.length, 1);
    assert.deepEqual(subs.get(RAW_SID), { received: 2 });
  });

  test("a subscription with a message limit is refused: its limit is the client's dispatch to count", () => {
    assert.throws(() => readRaw({ max: 1 } as unknown as Subscription, () => undefined), /message limit/);
  });
});
