import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import { createInbox, nanos, type NatsConnection } from "@nats-io/nats-core";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { deliver, type RawEntry } from "../../src/streams/delivery.js";
import { startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { eventually } from "../helpers/eventually.js";

const STREAM = "KV_delivery";
const PREFIX = "$KV.delivery.";

describe("a consumer's deliveries read off its deliver subject", () => {
  let server: RunningNatsServer;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: STREAM, subjects: [`${PREFIX}>`], max_msgs_per_subject: 1 });
  });
  after(async () => {
    await nc?.close();
    await server?.stop();
  });

  /** An ordered push consumer as the watch makes it: every message, flow control, idle heartbeats. */
  async function consumer(name: string, heartbeatMs: number): Promise<string> {
    const subject = createInbox();
    await jsm.consumers.add(STREAM, {
      name,
      deliver_subject: subject,
      deliver_policy: DeliverPolicy.All,
      ack_policy: AckPolicy.None,
      flow_control: true,
      idle_heartbeat: nanos(heartbeatMs),
      filter_subject: `${PREFIX}>`,
    });
    return subject;
  }

  test("every message arrives once and in order through flow control, with the pending count reaching zero at the last", async () => {
    const js = jetstream(nc);
    const value = "v".repeat(2048);
    const count = 3000;
    let last = 0;
    for (let i = 0; i < count; i++) last = (await js.publish(`${PREFIX}k${i}`, value)).seq;
    const subject = await consumer("all", 5000);
    const got: { entry: RawEntry; pending: number }[] = [];
    const ended: string[] = [];
    const d = deliver(
      nc,
      { subject, keyPrefix: PREFIX, heartbeatMs: 5000 },
      { entry: (entry, pending) => got.push({ entry, pending }), ended: (why) => ended.push(why) },
    );
    try {
      await eventually(() => assert.equal(got.length, count), { timeoutMs: 20_000 });
      assert.deepEqual(
        got.map((g) => g.entry.key),
        Array.from({ length: count }, (_, i) => `k${i}`),
      );
      assert.equal(got[count - 1]?.entry.revision, last);
      assert.equal(got[count - 1]?.pending, 0);
      assert.equal(got[0]?.pending, count - 1);
      assert.deepEqual(ended, []);
    } finally {
      d.stop();
    }
  });

  test("values of every size, small and larger than a socket read, arrive whole with their key and revision", async () => {
    const js = jetstream(nc);
    const valueOf = (i: number): Buffer => Buffer.alloc(i % 5 === 0 ? 200_000 : 40, `v${i}.`);
    const count = 200;
    const revisions: number[] = [];
    for (let i = 0; i < count; i++) revisions.push((await js.publish(`${PREFIX}mixed.k${i}`, valueOf(i))).seq);
    const subject = createInbox();
    await jsm.consumers.add(STREAM, {
      name: "mixed",
      deliver_subject: subject,
      deliver_policy: DeliverPolicy.All,
      ack_policy: AckPolicy.None,
      flow_control: true,
      idle_heartbeat: nanos(5000),
      filter_subject: `${PREFIX}mixed.>`,
    });
    const got: RawEntry[] = [];
    const d = deliver(
      nc,
      { subject, keyPrefix: PREFIX, heartbeatMs: 5000 },
      { entry: (entry) => got.push({ ...entry, value: Buffer.from(entry.value) }), ended: () => undefined },
    );
    try {
      await eventually(() => assert.equal(got.length, count), { timeoutMs: 20_000 });
      for (const [i, e] of got.entries()) {
        assert.equal(e.key, `mixed.k${i}`);
        assert.equal(e.revision, revisions[i]);
        assert.equal(e.operation, "PUT");
        assert.ok(Buffer.from(e.value).equals(valueOf(i)), `the value of mixed.k${i}`);
      }
    } finally {
      d.stop();
    }
  });

  test("a live consumer's heartbeats keep the reader going; deleted, it falls silent and the missed heartbeats end the reader", async () => {
    const subject = await consumer("doomed", 250);
    const ended: string[] = [];
    const d = deliver(nc, { subject, keyPrefix: PREFIX, heartbeatMs: 250 }, { entry: () => undefined, ended: (why) => ended.push(why) });
    try {
      // Four heartbeats' time: the server's beats (or its deliveries) count as signs of life.
      await new Promise((r) => setTimeout(r, 1000));
      assert.deepEqual(ended, []);
      await jsm.consumers.delete(STREAM, "doomed");
      await eventually(() => assert.deepEqual(ended, ["the watch's consumer missed its heartbeats"]), { timeoutMs: 4000 });
    } finally {
      d.stop();
    }
  });
});
