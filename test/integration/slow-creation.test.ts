/**
 * A consumer creation slower than its wait is asked again for the same
 * consumer, and the server ends up with one: the retry never piles a second
 * creation on top of the first. The server's answers are held back by a
 * proxy, as a server busy creating a consumer on a large stream looks.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { memoryLogger } from "../../src/log.js";
import { watchBucket, type CreationEvent, type WatchEvent } from "../../src/streams/kv-watch.js";
import { creationTimeoutMs } from "../../src/streams/consumer-plan.js";
import { USUAL_TIMEOUT_MS } from "../../src/streams/retry.js";
import { connect } from "@nats-io/transport-node";
import { connectTo } from "../helpers/stack.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { eventually } from "../helpers/eventually.js";
import { streamName } from "mesh-provisioner-client/keys";

const BUCKET = "slow-creation";
const KEYS = 200;

let server: RunningNatsServer;
let proxy: TcpProxy;
let admin: NatsConnection;
let watcher: NatsConnection;

before(async () => {
  server = await startNatsServer();
  proxy = await startTcpProxy({ port: server.port });
  admin = await connectTo(server);
  const kv = await new Kvm(jetstream(admin)).create(BUCKET, { history: 1 });
  await Promise.all(Array.from({ length: KEYS }, (_, i) => kv.put(`n${i}.m.config.k`, String(i))));
  // Pings go unanswered while the proxy holds: a long interval keeps the connection from being judged stale.
  watcher = await connect({ servers: proxy.url, pingInterval: 60_000 });
});

after(async () => {
  await watcher?.close().catch(() => undefined);
  await admin?.close().catch(() => undefined);
  await proxy?.close();
  await server?.stop();
});

test("a consumer creation that outlasts its wait is asked for again under the same name, and the server holds one consumer", { timeout: 60_000 }, async () => {
  const creates: string[] = [];
  const sub = admin.subscribe(`$JS.API.CONSUMER.CREATE.KV_${BUCKET}.>`, { callback: (_err, m) => void creates.push(m.subject.split(".")[5] ?? "") });
  // The answer to the first creation request is held past its wait: it times out on the client.
  proxy.holdAnswersTo(`$JS.API.CONSUMER.CREATE.KV_${BUCKET}.`, creationTimeoutMs(KEYS, USUAL_TIMEOUT_MS) + 1_500);
  await admin.flush();
  const tally: CreationEvent[] = [];
  const events: WatchEvent[] = [];
  const { log } = memoryLogger("debug");
  let applied = 0;
  const watch = watchBucket({ nc: watcher, log, onCreation: (e) => tally.push(e) }, { bucket: BUCKET, fromRevision: () => applied, stallCheckMs: 0 });
  const s = watch.subscribe((e) => {
    events.push(e);
    if (e.type === "entry") applied = e.entry.revision;
  });
  try {
    await eventually(() => assert.ok(events.some((e) => e.type === "synced")), { timeoutMs: 40_000 });
    assert.equal(events.filter((e) => e.type === "entry").length, KEYS, "every key was delivered once");
    assert.ok(creates.length >= 2, `the creation was asked for again (${creates.length} requests)`);
    assert.equal(new Set(creates).size, 1, `every request named the same consumer: ${creates.join(", ")}`);
    assert.deepEqual(
      tally.map((t) => [t.outcome, t.retry]),
      [["timed-out", false], ...Array(tally.length - 2).fill(["timed-out", true]), ["created", true]],
    );
    const names: string[] = [];
    for await (const c of (await jetstreamManager(admin)).consumers.list(streamName(BUCKET))) names.push(c.name);
    assert.deepEqual(names, [creates[0]], "the server holds the one consumer");
  } finally {
    s.unsubscribe();
    sub.unsubscribe();
  }
});
