import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { headers, type Msg, type MsgHdrs } from "@nats-io/nats-core";
import { DeliveryReader, type RawEntry } from "../../src/streams/delivery.js";

const DELIVER = "_INBOX.watch.1";
const PREFIX = "$KV.mesh-provisioner_needs.";

/** A message as the client hands it over, made by hand with the fields the reader uses. */
function message(subject: string, opts: { reply?: string; hdrs?: MsgHdrs; data?: string; onRespond?: () => void } = {}): Msg {
  return {
    subject,
    reply: opts.reply,
    headers: opts.hdrs,
    data: Buffer.from(opts.data ?? ""),
    respond: () => {
      opts.onRespond?.();
      return true;
    },
  } as unknown as Msg;
}

function dataMessage(key: string, streamSeq: number, deliverySeq: number, pending: number, op?: string): Msg {
  const hdrs = op === undefined ? undefined : headers();
  if (op !== undefined) hdrs!.set("KV-Operation", op);
  return message(PREFIX + key, {
    reply: `$JS.ACK.KV_mesh-provisioner_needs.mp_x_1.1.${streamSeq}.${deliverySeq}.1764662400000000000.${pending}`,
    hdrs,
    data: `{"v":${streamSeq}}`,
  });
}

function reader() {
  const entries: { entry: RawEntry; pending: number }[] = [];
  const ended: string[] = [];
  const published: string[] = [];
  const r = new DeliveryReader(
    { subject: DELIVER, keyPrefix: PREFIX },
    { entry: (entry, pending) => entries.push({ entry, pending }), ended: (why) => ended.push(why) },
    (subject) => published.push(subject),
  );
  return { r, entries, ended, published };
}

describe("reading an ordered consumer's deliveries", () => {
  test("messages in order become entries with their key, revision, operation, value and what is left to deliver", () => {
    const { r, entries, ended } = reader();
    r.read(dataMessage("n1.m1.config.k1", 10, 1, 2));
    r.read(dataMessage("n1.m1.config.k2", 12, 2, 1, "DEL"));
    r.read(dataMessage("n1.m1.config.k3", 15, 3, 0, "PURGE"));
    assert.deepEqual(
      entries.map(({ entry, pending }) => [entry.key, entry.revision, entry.operation, Buffer.from(entry.value).toString(), pending]),
      [
        ["n1.m1.config.k1", 10, "PUT", '{"v":10}', 2],
        ["n1.m1.config.k2", 12, "DEL", '{"v":12}', 1],
        ["n1.m1.config.k3", 15, "PURGE", '{"v":15}', 0],
      ],
    );
    assert.deepEqual(ended, []);
  });

  test("a key that is not ASCII is read as UTF-8", () => {
    const { r, entries } = reader();
    r.read(dataMessage("n1.m1.config.kö", 3, 1, 0));
    assert.equal(entries[0]?.entry.key, "n1.m1.config.kö");
  });

  test("a missed delivery ends the consumer once, and nothing after it is handed on", () => {
    const { r, entries, ended } = reader();
    r.read(dataMessage("a.b.c.d", 1, 1, 5));
    r.read(dataMessage("a.b.c.e", 3, 3, 3));
    r.read(dataMessage("a.b.c.f", 4, 4, 2));
    assert.equal(entries.length, 1);
    assert.deepEqual(ended, ["delivery 3 came after 1: a message was missed"]);
    assert.equal(r.done, true);
  });

  test("a message without a JetStream reply subject ends the consumer instead of being applied at a made-up revision", () => {
    const { r, entries, ended } = reader();
    r.read(message(PREFIX + "a.b.c.d", { reply: "_INBOX.x" }));
    assert.equal(entries.length, 0);
    assert.equal(ended.length, 1);
    assert.match(ended[0]!, /without a JetStream reply subject/);
  });

  test("a flow-control request is answered and a stalled consumer's heartbeat is answered where it asks", () => {
    const { r, ended, published } = reader();
    let responded = 0;
    r.read(message(DELIVER, { reply: "$JS.FC.x", hdrs: headers(100, "FlowControl Request"), onRespond: () => responded++ }));
    const hb = headers(100, "Idle Heartbeat");
    hb.set("Nats-Consumer-Stalled", "$JS.FC.stalled");
    r.read(message(DELIVER, { hdrs: hb }));
    r.read(message(DELIVER, { hdrs: headers(100, "Idle Heartbeat") }));
    assert.equal(responded, 1);
    assert.deepEqual(published, ["$JS.FC.stalled"]);
    assert.deepEqual(ended, []);
  });

  test("the server's word that the consumer is gone ends it", () => {
    const { r, ended } = reader();
    r.read(message(DELIVER, { hdrs: headers(409, "Consumer Deleted") }));
    assert.deepEqual(ended, ["the server ended the watch's consumer: 409 consumer deleted"]);
  });

  test("a message on some other subject is ignored", () => {
    const { r, entries, ended } = reader();
    r.read(message("_INBOX.other.1", { hdrs: headers(409, "Consumer Deleted") }));
    assert.equal(entries.length + ended.length, 0);
  });

  test("ended without a reason (stopped), it tells no one and reads no more", () => {
    const { r, entries, ended } = reader();
    r.end();
    r.read(dataMessage("a.b.c.d", 1, 1, 0));
    assert.equal(entries.length + ended.length, 0);
  });
});
