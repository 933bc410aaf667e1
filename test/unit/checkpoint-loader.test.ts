import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { randomBytes } from "node:crypto";
import type { StreamInfo } from "@nats-io/jetstream";
import { Projection } from "../../src/projections/projection.js";
import { ProjectionStore } from "../../src/projections/store/store.js";
import { needsSpec } from "../../src/projections/bucket-specs.js";
import { encodeStore } from "../../src/projections/store/checkpoint/encode.js";
import { openCheckpoint } from "../../src/projections/store/checkpoint/decode.js";
import { seedFromCheckpoint, type CheckpointOpener } from "../../src/checkpoints/loader.js";
import type { CheckpointObjects } from "../../src/checkpoints/objects.js";
import { streamIdentity } from "../../src/checkpoints/stream-identity.js";
import { CheckpointTally } from "../../src/checkpoints/tally.js";
import { memoryLogger } from "../../src/log.js";
import { eventually } from "../helpers/eventually.js";

const enc = new TextEncoder();
const KEYS = 500;

/** What the server says of the needs stream: one message per key, `last` its last sequence. */
function streamInfo(last: number): StreamInfo {
  return {
    created: "2026-12-04T00:00:00Z",
    config: { subjects: ["$KV.mesh-provisioner_needs.>"], retention: "limits", discard: "new", max_msgs_per_subject: 1, deny_delete: true },
    state: { first_seq: 1, last_seq: last, messages: KEYS },
  } as unknown as StreamInfo;
}

/** A needs checkpoint of KEYS entries as the writer stores it (a gzip member per slice), each value of about `valueBytes` that gzip cannot shrink. */
function storedCheckpoint(valueBytes = 0): Buffer {
  const store = new ProjectionStore(needsSpec);
  for (let i = 0; i < KEYS; i++) {
    const noise = randomBytes(valueBytes).toString("base64");
    store.apply("PUT", `n${i % 50}.web.config.k${i}`, i + 1, enc.encode(JSON.stringify({ i, noise })));
  }
  const e = encodeStore(store, { stream: { ...streamIdentity(streamInfo(KEYS)) }, writtenAt: 1 });
  const members: Buffer[] = [];
  for (let c = e.next(64); c !== null; c = e.next(64)) members.push(gzipSync(c, { level: 1 }));
  return Buffer.concat(members);
}

/** The object store, handing over `bytes` in chunks of `size`; `after` runs once a chunk has been taken. */
function objectsOf(bytes: Buffer, size: number, after: (taken: number) => void = () => undefined): CheckpointObjects & { returned: boolean } {
  const o = {
    returned: false,
    async read() {
      async function* chunks(): AsyncGenerator<Uint8Array> {
        try {
          for (let at = 0; at < bytes.length; at += size) {
            yield bytes.subarray(at, at + size);
            after(at + size);
          }
        } finally {
          o.returned = true;
        }
      }
      return { size: bytes.length, chunks: chunks() };
    },
    write: () => Promise.resolve(0),
    describe: () => Promise.resolve(undefined),
  };
  return o;
}

async function seed(
  objects: CheckpointObjects,
  last = KEYS,
  begun: (p: Projection) => void = () => undefined,
  open: CheckpointOpener = openCheckpoint,
): Promise<{ p: Projection; refusal: Awaited<ReturnType<typeof seedFromCheckpoint>> }> {
  const { log } = memoryLogger("error");
  const p = new Projection(needsSpec, log);
  const refusal = await seedFromCheckpoint(
    p,
    "needs",
    {
      objects,
      open,
      streamInfo: () => Promise.resolve(streamInfo(last)),
      tally: new CheckpointTally(),
      log,
      now: () => 0,
    },
    () => begun(p),
  );
  return { p, refusal };
}

describe("a start from a checkpoint read as it arrives", () => {
  const stored = storedCheckpoint();

  test("gzip members arriving in chunks of any size seed the projection with every entry", async () => {
    for (const size of [1, 97, 4096, stored.length]) {
      const { p, refusal } = await seed(objectsOf(stored, size));
      assert.equal(refusal, undefined, `chunks of ${size}`);
      assert.equal(p.store.size, KEYS);
      assert.equal(p.seededAt, KEYS);
      assert.equal(p.store.get("n7.web.config.k107")?.revision, 108);
    }
  });

  test("a stored byte flipped fails gzip's check: corrupt, and the projection stays empty", async () => {
    const bad = Buffer.from(stored);
    bad[bad.length >> 1] = (bad[bad.length >> 1] as number) ^ 0x55;
    const { p, refusal } = await seed(objectsOf(bad, 512));
    assert.equal(refusal?.reason, "corrupt");
    assert.equal(p.store.size, 0);
    assert.equal(p.seededAt, undefined);
  });

  test("stored bytes that fail midway (the digest, the chunks stopping) make it unreadable, not corrupt", async () => {
    const objects = objectsOf(stored, 512, (taken) => {
      if (taken > stored.length / 2) throw new Error("the object's digest does not match");
    });
    const { p, refusal } = await seed(objects);
    assert.equal(refusal?.reason, "unreadable");
    assert.match(refusal?.detail ?? "", /digest/);
    assert.equal(p.store.size, 0);
  });

  test("a checkpoint refused on its header is not read further", async () => {
    // Megabytes that do not unpack to less, in chunks of 16 KiB: far more than the unpacking holds ahead.
    const large = storedCheckpoint(8192);
    let taken = 0;
    const objects = objectsOf(large, 16_384, (n) => (taken = n));
    const { refusal } = await seed(objects, KEYS - 1);
    assert.equal(refusal?.reason, "ahead");
    await eventually(() => assert.ok(objects.returned, "the stored chunks were let go"), { timeoutMs: 2000 });
    assert.ok(taken < large.length / 2, `${taken} of ${large.length} bytes taken`);
  });

  test("a stream a short catch-up past the checkpoint lets the watch start while the records load", async () => {
    const entriesWhenBegun: number[] = [];
    const { refusal } = await seed(objectsOf(stored, 512), KEYS + 10, (p) => entriesWhenBegun.push(p.store.size));
    assert.equal(refusal, undefined);
    assert.deepEqual(entriesWhenBegun, [0], "begun once, before the checkpoint's entries were in");
  });

  test("a stream far past the checkpoint starts its watch only after the load, rather than hold its catch-up", async () => {
    let begun = 0;
    const { p, refusal } = await seed(objectsOf(stored, 512), KEYS + 60_000, () => begun++);
    assert.equal(refusal, undefined);
    assert.equal(begun, 0, "left to the caller, once the load has ended");
    assert.equal(p.store.size, KEYS);
  });

  test("a checkpoint whose header says more than 2M entries starts its watch only after the load", async () => {
    let begun = 0;
    const large: CheckpointOpener = async (chunks, spec) => ({ ...(await openCheckpoint(chunks, spec)), entries: 2_000_001 });
    const { refusal } = await seed(objectsOf(stored, 512), KEYS + 10, () => begun++, large);
    assert.equal(refusal, undefined);
    assert.equal(begun, 0, "left to the caller, once the load has ended");
  });
});
