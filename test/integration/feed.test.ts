import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Msg, Subscription } from "@nats-io/nats-core";
import { startStack, connectTo, FAST, type Stack } from "../helpers/stack.js";
import { eventually } from "../helpers/eventually.js";
import { startProvisioner, type Provisioner } from "../../src/main.js";
import { memoryLogger } from "../../src/log.js";
import { ProvisionerClient } from "mesh-provisioner-client";

interface FeedEvent {
  what: string;
  op: "put" | "delete";
  key: string;
  revision: number;
  entry?: { key: string; value: unknown; revision: number; answered?: boolean };
  outOfShape?: { key: string; reason: string };
}

function collect(sub: Subscription, into: FeedEvent[]): void {
  void (async () => {
    for await (const m of sub as AsyncIterable<Msg>) into.push(m.json<FeedEvent>());
  })();
}

describe("the live feed", () => {
  let stack: Stack;
  let standby: Provisioner | undefined;
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await standby?.stop().catch(() => undefined);
    await standby?.nc.close().catch(() => undefined);
    await stack?.stop();
  });

  test("each applied change is published once, on mesh-provisioner.feed.<what>.<key>, by the holder only", async () => {
    // A second instance on its own connection: a warm standby that must publish nothing.
    const nc = await connectTo(stack.server);
    standby = await startProvisioner(nc, FAST, memoryLogger().log);
    await standby.synced;
    assert.equal(standby.seat.isHolder, false);

    const events: FeedEvent[] = [];
    const sub = stack.client.subscribe("mesh-provisioner.feed.needs.n1.>");
    collect(sub, events);
    await stack.client.flush();
    const needs = await stack.kv("needs");
    const r1 = await needs.put("n1.web.config.port", JSON.stringify({ default: 8080 }));
    const r2 = await needs.put("n1.web.weird.x", "plain text");
    const r3 = await needs.put("n1.web.config", "out of shape");
    await needs.delete("n1.web.config.port");
    await needs.put("n2.web.config.port", "{}"); // not subscribed
    await eventually(() => assert.equal(events.length, 4));
    sub.unsubscribe();
    assert.deepEqual(
      events.map((e) => [e.op, e.key]),
      [
        ["put", "n1.web.config.port"],
        ["put", "n1.web.weird.x"],
        ["put", "n1.web.config"],
        ["delete", "n1.web.config.port"],
      ],
    );
    assert.deepEqual(events[0]?.entry?.value, { default: 8080 });
    assert.equal(events[0]?.revision, r1);
    assert.equal(events[1]?.entry?.value, "plain text");
    assert.equal(events[1]?.entry?.answered, false, "an unanswered kind is flagged as in the verb's answers");
    assert.equal(events[1]?.revision, r2);
    assert.match(events[2]?.outOfShape?.reason ?? "", /needs keys have 4 tokens/);
    assert.equal(events[2]?.revision, r3);
    assert.equal(events[3]?.entry, undefined);
  });

  test("a client that takes a snapshot with the verb and then applies newer feed events ends equal to the bucket", async () => {
    const needs = await stack.kv("needs");
    const events: FeedEvent[] = [];
    const sub = stack.client.subscribe("mesh-provisioner.feed.needs.>");
    collect(sub, events);
    await stack.client.flush();

    // Writers keep changing the bucket while the client takes its snapshot.
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing && i < 400; i++) {
        const key = `n${i % 5}.mod${i % 7}.config.k${i % 11}`;
        if (i % 6 === 5) await needs.delete(key);
        else await needs.put(key, JSON.stringify({ i }));
      }
    })();
    const snapshot = await new ProvisionerClient(stack.client, { pageSize: 25 }).get({ what: "needs" });
    const state = new Map<string, unknown>(snapshot.entries.map((e) => [e["key"] as string, e["value"]]));
    await writer;
    writing = false;
    const last = await stack.lastSeq("needs");
    await eventually(() =>
      assert.ok(
        events.some((e) => e.revision === last),
        "the feed reached the last write",
      ),
    );
    sub.unsubscribe();
    for (const e of events) {
      if (e.revision <= snapshot.revision) continue;
      if (e.op === "delete" || e.entry === undefined) state.delete(e.key);
      else state.set(e.key, e.entry.value);
    }

    const truth = new Map<string, unknown>();
    for await (const k of await needs.keys()) {
      const e = await needs.get(k);
      if (e?.operation !== "PUT" || k.split(".").length !== 4) continue;
      try {
        truth.set(k, e.json());
      } catch {
        truth.set(k, e.string());
      }
    }
    assert.deepEqual(new Map([...state].sort()), new Map([...truth].sort()));
  });
});
