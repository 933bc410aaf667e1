import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseAckReply } from "../../src/streams/ack-reply.js";

describe("the delivery facts of a JetStream reply subject", () => {
  test("the short form gives the stream sequence, the delivery sequence and the pending count", () => {
    const facts = parseAckReply("$JS.ACK.KV_mesh-provisioner_needs.mp_AbC-_x12_1.1.1000042.17.1764662400123456789.999958");
    assert.deepEqual(facts, { streamSeq: 1000042, deliverySeq: 17, pending: 999958 });
  });

  test("the long form (domain and account hash) gives the same facts, with or without its trailing token", () => {
    const nine = "$JS.ACK.hub.ACCHASH.KV_needs.mp_x_1.1.5.2.1764662400123456789.0";
    assert.deepEqual(parseAckReply(nine), { streamSeq: 5, deliverySeq: 2, pending: 0 });
    assert.deepEqual(parseAckReply(`${nine}.Zq9`), { streamSeq: 5, deliverySeq: 2, pending: 0 });
    assert.deepEqual(parseAckReply("$JS.ACK._..KV_needs.c_1.3.7.4.1.12"), { streamSeq: 7, deliverySeq: 4, pending: 12 });
  });

  test("anything that is not such a subject is refused, not read as numbers", () => {
    for (const reply of [
      "",
      "_INBOX.abc.1",
      "$JS.ACK",
      "$JS.ACK.KV_needs.c_1.1.5.2.1764662400123456789", // a token short
      "$JS.ACK.KV_needs.c_1.1.5.2.17646.0.x", // 8 tokens: neither form
      "$JS.ACK.KV_needs.c_1.1.x5.2.1764662400123456789.0", // not a number
      "$JS.ACK.KV_needs.c_1.1..2.1764662400123456789.0", // an empty number
      "$JS.ACK.KV_needs.c_1.1.5.2.1764662400123456789.-1",
      "$JS.NAK.KV_needs.c_1.1.5.2.1764662400123456789.0",
    ]) {
      assert.equal(parseAckReply(reply), undefined, reply);
    }
  });

  test("it reads what nats.js's own parser reads, for any numbers in either form", () => {
    const seq = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
    fc.assert(
      fc.property(fc.boolean(), seq, seq, seq, seq, (long, streamSeq, deliverySeq, pending, ts) => {
        const head = long ? "$JS.ACK.dom.HASH.KV_b.mp_c_1" : "$JS.ACK.KV_b.mp_c_1";
        const reply = `${head}.1.${streamSeq}.${deliverySeq}.${ts}.${pending}${long ? ".r4nd" : ""}`;
        const tokens = reply.split(".");
        if (tokens.length === 9) tokens.splice(2, 0, "_", "");
        assert.deepEqual(parseAckReply(reply), {
          streamSeq: parseInt(tokens[7] as string, 10),
          deliverySeq: parseInt(tokens[8] as string, 10),
          pending: parseInt(tokens[10] as string, 10),
        });
      }),
    );
  });
});
