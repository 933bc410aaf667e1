import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { DeliverPolicy } from "@nats-io/jetstream";
import {
  consumerOptions,
  creationTimeoutMs,
  messagesCovered,
  planStart,
  sameStart,
  watchFilter,
  CREATE_MAX_MS,
  type StreamState,
} from "../../src/streams/consumer-plan.js";

const history1: StreamState = { messages: 1_000_000, firstSeq: 1, lastSeq: 1_000_000, perKey: 1 };

describe("which consumer a watch asks for", () => {
  test("a first snapshot of a history-1 bucket delivers all messages: each is its key's last write", () => {
    const plan = planStart(0, history1);
    assert.deepEqual(plan, { kind: "snapshot", deliver: DeliverPolicy.All, rebuild: false });
    assert.deepEqual(consumerOptions(plan), { deliver_policy: DeliverPolicy.All });
  });

  test("a bucket that keeps more history per key, or any amount, is read last per subject", () => {
    for (const perKey of [5, -1, 0]) {
      assert.deepEqual(planStart(0, { ...history1, perKey }), { kind: "snapshot", deliver: DeliverPolicy.LastPerSubject, rebuild: false });
    }
  });

  test("a resume starts at the sequence after the last one applied", () => {
    const plan = planStart(500, history1);
    assert.deepEqual(plan, { kind: "resume", startSeq: 501 });
    assert.deepEqual(consumerOptions(plan), { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: 501 });
    assert.equal(messagesCovered(plan, history1), 1_000_000 - 500);
  });

  test("a resume whose history is gone from the stream rebuilds from a full snapshot", () => {
    const plan = planStart(500, { ...history1, firstSeq: 900 });
    assert.deepEqual(plan, { kind: "snapshot", deliver: DeliverPolicy.All, rebuild: true });
  });

  test("a resume at the stream's end covers nothing and still resumes (not a rebuild)", () => {
    const state = { messages: 10, firstSeq: 990, lastSeq: 1000, perKey: 1 };
    const plan = planStart(1000, state);
    assert.deepEqual(plan, { kind: "resume", startSeq: 1001 });
    assert.equal(messagesCovered(plan, state), 0);
  });
});

describe("how long a consumer's creation is waited for", () => {
  test("the try's usual wait, plus the time to scan the messages it covers", () => {
    assert.equal(creationTimeoutMs(0, 2_000), 2_000, "an empty stream during a resume keeps the short wait");
    assert.ok(creationTimeoutMs(1_000_000, 5_000) > creationTimeoutMs(100_000, 5_000));
    assert.ok(creationTimeoutMs(1_000_000, 5_000) >= 30_000, "a 1M-key stream gets at least 30 s");
  });

  test("is bounded, so a lost request is asked again in the end", () => {
    assert.equal(creationTimeoutMs(1e12, 5_000), CREATE_MAX_MS);
    assert.equal(creationTimeoutMs(-5, 5_000), 5_000);
  });
});

describe("which retries may reuse a timed-out creation's name", () => {
  test("the same snapshot, or a resume from the same sequence", () => {
    assert.ok(sameStart(planStart(0, history1), planStart(0, history1)));
    assert.ok(sameStart(planStart(7, history1), planStart(7, history1)));
  });

  test("not a resume from elsewhere, nor a snapshot of another policy", () => {
    assert.ok(!sameStart(planStart(7, history1), planStart(8, history1)));
    assert.ok(!sameStart(planStart(0, history1), planStart(0, { ...history1, perKey: -1 })));
    assert.ok(!sameStart(planStart(0, history1), planStart(7, history1)));
  });
});

describe("the subjects a watch's consumer is filtered on", () => {
  test("a stream that stores the bucket's subjects alone is read unfiltered: the same messages, without the server counting them first", () => {
    assert.equal(watchFilter("$KV.needs.", ["$KV.needs.>"]), ">");
  });

  test("a stream that stores more, other or unknown subjects is filtered on the bucket's keys", () => {
    for (const subjects of [["$KV.needs.>", "other.>"], ["$KV.other.>"], ["$KV.needs.n1.>"], [], undefined]) {
      assert.equal(watchFilter("$KV.needs.", subjects), "$KV.needs.>", JSON.stringify(subjects));
    }
  });
});
