/** The consumer a watch asks the server for, as the server holds it. */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager, type ConsumerConfig } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { memoryLogger } from "../../src/log.js";
import { watchBucket, type WatchEvent } from "../../src/streams/kv-watch.js";
import { streamName } from "mesh-provisioner-client/keys";
import { connectTo } from "../helpers/stack.js";
import { eventually } from "../helpers/eventually.js";

const BUCKET = "watch-consumer";

let server: RunningNatsServer;
let nc: NatsConnection;

before(async () => {
  server = await startNatsServer();
  nc = await connectTo(server);
  const kv = await new Kvm(jetstream(nc)).create(BUCKET, { history: 1 });
  for (let i = 0; i < 20; i++) await kv.put(`n${i}.m.config.k`, String(i));
});

after(async () => {
  await nc?.close().catch(() => undefined);
  await server?.stop();
});

test("a first sync of a history-1 bucket reads one unfiltered deliver-all consumer, unacknowledged and kept in the server's memory", async () => {
  const events: WatchEvent[] = [];
  const { log } = memoryLogger("debug");
  let applied = 0;
  const s = watchBucket({ nc, log }, { bucket: BUCKET, fromRevision: () => applied, stallCheckMs: 0 }).subscribe((e) => {
    events.push(e);
    if (e.type === "entry") applied = e.entry.revision;
  });
  try {
    await eventually(() => assert.ok(events.some((e) => e.type === "synced")));
    const configs: ConsumerConfig[] = [];
    for await (const c of (await jetstreamManager(nc)).consumers.list(streamName(BUCKET))) configs.push(c.config);
    assert.equal(configs.length, 1);
    const c = configs[0]!;
    assert.equal(c.mem_storage, true, "its state is in memory: no store update per delivery");
    assert.equal(c.ack_policy, "none");
    assert.equal(c.deliver_policy, "all");
    assert.equal(c.flow_control, true);
    assert.ok(c.filter_subject === undefined || c.filter_subject === ">", `no filter to count subjects by (${c.filter_subject})`);
    assert.equal(events.filter((e) => e.type === "entry").length, 20);
  } finally {
    s.unsubscribe();
  }
});
