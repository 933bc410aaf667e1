import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { Subject } from "rxjs";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { connectTo } from "../helpers/stack.js";
import { memoryLogger } from "../../src/log.js";
import { Projection } from "../../src/projections/projection.js";
import { needsSpec } from "../../src/projections/bucket-specs.js";
import { ensureBucket } from "../../src/streams/buckets.js";
import { watchBucket, type WatchEvent } from "../../src/streams/kv-watch.js";
import { eventually } from "../helpers/eventually.js";
import { streamName } from "mesh-provisioner-client/keys";
import { DEFAULT_BUCKET_LIMITS } from "../../src/defaults.js";

let server: RunningNatsServer;
let nc: NatsConnection;
before(async () => {
  server = await startNatsServer();
  nc = await connectTo(server);
});
after(async () => {
  await nc?.close();
  await server?.stop();
});

test("when the history needed to resume is gone, the projection is rebuilt from a fresh snapshot, moved whole into the store readers hold", async () => {
  const { log, lines } = memoryLogger("info");
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await ensureBucket(jsm, { bucket: needsSpec.bucket, refuseRollups: true }, 1, log, DEFAULT_BUCKET_LIMITS);
  const kv = await new Kvm(js).open(needsSpec.bucket);
  const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

  // What a projection held before it lost touch: three keys at revisions 1..3.
  for (const k of ["a", "b", "c"]) await kv.put(`n1.m.config.${k}`, `"${k}"`);
  const p = new Projection(needsSpec, log);
  const before = new Subject<WatchEvent>();
  const first = p.connect(before);
  for (const [i, k] of ["a", "b", "c"].entries())
    before.next({ type: "entry", entry: { operation: "PUT", key: `n1.m.config.${k}`, revision: i + 1, value: enc(`"${k}"`) } });
  before.next({ type: "synced", lastSeq: 3 });
  first.unsubscribe();

  // Meanwhile the stream was purged (no delete markers) and changed: revisions 4..6 are d, e, and d's delete,
  // and only e (5) and the marker (6) remain: resuming after 3 would keep a, b and c forever.
  await jsm.streams.purge(streamName(needsSpec.bucket));
  await kv.put("n1.m.config.d", '"d"');
  await kv.put("n1.m.config.e", '"e"');
  await kv.delete("n1.m.config.d");
  const si = await jsm.streams.info(streamName(needsSpec.bucket));
  assert.ok(si.state.first_seq > 4, `history after revision 3 is gone (first_seq ${si.state.first_seq})`);

  // A reader that took the store before the rebuild.
  const held = p.store;
  const changes: string[] = [];
  p.changes$.subscribe((c) => changes.push(`${c.op} ${c.key}`));
  const sub = p.connect(watchBucket({ nc, log }, { bucket: needsSpec.bucket, fromRevision: () => p.revision }));
  try {
    await eventually(() => assert.deepEqual(held.entryKeys(), ["n1.m.config.e"]));
    assert.equal(p.store, held, "the same store object, now holding the rebuilt content");
    assert.deepEqual(changes, ["delete n1.m.config.a", "delete n1.m.config.b", "delete n1.m.config.c", "put n1.m.config.e"], "what differs is published");
    assert.equal(p.revision, si.state.last_seq);
    assert.ok(lines().some((l) => String(l["msg"]).startsWith("the history needed to resume is gone")));
  } finally {
    sub.unsubscribe();
  }
});
