import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startStack, type Stack } from "../helpers/stack.js";
import { eventually } from "../helpers/eventually.js";
import { until } from "../helpers/verb-pages.js";
import { BUCKETS, SEAT_BUCKET, streamName } from "mesh-provisioner-client/keys";
import { ensureBucket, OWN_BUCKET_LIMITS } from "../../src/streams/buckets.js";
import { memoryLogger } from "../../src/log.js";

const MiB = 1024 * 1024;
const LIMITS = { maxValueBytes: 4096, nodeBucketBytes: 2 * MiB };

/**
 * A node that floods its own keys (the pitfall: with unlimited buckets, one
 * node filled JetStream's store and then the registry and the seat stopped
 * taking writes). Here JetStream's store is 64 MiB; the node buckets carry
 * 2 MiB each.
 */
describe("a node flooding its keys is contained in its bucket and named", () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack({
      server: { maxFileStore: 64 * MiB },
      bucketLimits: LIMITS,
      floodLimits: { keys: 500, bytes: 1 * MiB },
      seatTtlMs: 2000,
      driftDelayMs: 50,
    });
  });
  after(async () => {
    await stack?.stop();
  });

  test("the buckets the service creates carry their limits: the node buckets the flags', its own a small fixed one", async () => {
    for (const w of ["needs", "applied", "collect"] as const) {
      const { config } = await stack.jsm.streams.info(streamName(BUCKETS[w]));
      assert.equal(config.max_bytes, LIMITS.nodeBucketBytes, w);
      assert.equal(config.max_msg_size, LIMITS.maxValueBytes, w);
    }
    for (const b of [BUCKETS.registry, SEAT_BUCKET])
      assert.equal((await stack.jsm.streams.info(streamName(b))).config.max_bytes, OWN_BUCKET_LIMITS.bucketBytes, b);
  });

  test("a value over the largest a node may write is refused by the server", async () => {
    const needs = await stack.kv("needs");
    await assert.rejects(needs.put("n1.web.config.huge", JSON.stringify("x".repeat(8000))), /maximum|size/i);
    await needs.put("n1.web.config.fine", JSON.stringify("x".repeat(1000)));
  });

  test(
    "a flood fills its own bucket only: the seat, the registry, other buckets and the verb keep working, and the flood is reported with the node's name",
    { timeout: 120_000 },
    async () => {
      const needs = await stack.kv("needs");
      const value = JSON.stringify({ pad: "y".repeat(400) });
      let acked = 0;
      let refused: string | undefined;
      for (let i = 0; i < 20_000 && refused === undefined; i++) {
        try {
          await needs.put(`flooder.m${i % 10}.config.k${i}`, value);
          acked++;
        } catch (err) {
          refused = (err as Error).message;
        }
      }
      assert.ok(refused !== undefined, "the bucket refused writes once full");
      assert.match(refused, /maximum bytes|resources/i);
      assert.ok(acked > 500, `the flooder wrote ${acked} keys first`);

      // The flood is named: in the log, once, and on the overview.
      await eventually(
        () =>
          assert.deepEqual(
            stack.provisioner.overview.flooding().map((f) => f.node),
            ["flooder"],
          ),
        { timeoutMs: 10_000 },
      );
      const named = stack.lines().filter((l) => String(l["msg"]).startsWith("a node is flooding its keys"));
      assert.equal(named.length, 1, "logged once, not per write");
      assert.equal(named[0]?.["node"], "flooder");
      const totals = stack.provisioner.overview.totals();
      assert.equal(totals.nodesFlooding, 1);
      assert.equal(stack.provisioner.overview.row("flooder")?.flooding, true);
      assert.equal(stack.provisioner.overview.row("n1")?.flooding, false);

      // The other buckets and the service's own keep taking writes.
      await (await stack.kv("applied")).put("n1.web", "{}");
      await (await stack.kv("collect")).put("n1.shell.web", "export A=1");
      const registry = await stack.kv("registry");
      await registry.put("bogus", "{}");
      await until(async () => ((await registry.get("bogus"))?.operation === "DEL" ? true : undefined), 10_000, "the registry's drift repaired");
      // The seat renews (its ttl is 2 s) and the verb answers.
      const seatRev = await (await stack.jsm.streams.info(streamName(SEAT_BUCKET))).state.last_seq;
      await eventually(async () => assert.ok((await stack.jsm.streams.info(streamName(SEAT_BUCKET))).state.last_seq > seatRev, "a seat renewal landed"), {
        timeoutMs: 10_000,
      });
      assert.equal(stack.provisioner.seat.isHolder, true);
      const r = await stack.ask({ what: "needs", node: "n1" });
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body.entries.map((e: { key: string }) => e.key),
        ["n1.web.config.fine"],
      );
      console.log(`MEASURED flood acked_before_full=${acked}`);
    },
  );

  test("a node bucket found without limits gets them; one found with higher limits is not lowered (that could drop keys)", async () => {
    const { log, lines } = memoryLogger("info");
    const plan = { bucket: "flood-test_extra", refuseRollups: true };
    await stack.jsm.streams.add({ name: "KV_flood-test_extra", subjects: ["$KV.flood-test_extra.>"], max_msgs_per_subject: 1 });
    assert.equal(await ensureBucket(stack.jsm, plan, 1, log, LIMITS), "updated");
    assert.equal((await stack.jsm.streams.info("KV_flood-test_extra")).config.max_bytes, LIMITS.nodeBucketBytes);
    assert.equal(await ensureBucket(stack.jsm, plan, 1, log, { ...LIMITS, nodeBucketBytes: 1 * MiB }), "exists");
    assert.equal((await stack.jsm.streams.info("KV_flood-test_extra")).config.max_bytes, LIMITS.nodeBucketBytes);
    assert.ok(lines().some((l) => String(l["msg"]).includes("it is not lowered")));
  });
});
