import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { jetstream } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { startStack, type Stack } from "../helpers/stack.js";
import { askOk, put, until } from "../helpers/verb-pages.js";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";

const STREAM = streamName(BUCKETS.needs);

type Entry = { key: string; value: unknown; revision: number };

describe("the watch resumes without a gap", () => {
  let stack: Stack;
  const written = new Map<string, number>();

  before(async () => {
    stack = await startStack();
    const kv = await stack.kv("needs");
    for (let i = 0; i < 20; i++) {
      const key = `n1.web.config.before${String(i).padStart(2, "0")}`;
      written.set(key, await put(kv, key, JSON.stringify({ i })));
    }
    await askOk(stack, { what: "needs", minRevision: Math.max(...written.values()) });
  });
  after(async () => {
    await stack?.stop();
  });

  /** Wait until the verb answers every key written so far, each at the revision its put returned. */
  async function answersEverything(ms: number): Promise<Entry[]> {
    return until(
      async () => {
        const r = await stack.ask({ what: "needs" }, 2000);
        if (r.status !== 200) return undefined;
        const got = new Map<string, number>((r.body.entries as Entry[]).map((e) => [e.key, e.revision]));
        for (const [key, rev] of written) if (got.get(key) !== rev) return undefined;
        return r.body.entries as Entry[];
      },
      ms,
      "the verb answering every key written",
    );
  }

  test("after the nats-server restarts on its store, keys put once it is back are answered and nothing earlier is lost", async () => {
    // Short request timeouts: a put sent while the client reconnects is retried in 0.5 s, not 5 s.
    const kv = await new Kvm(jetstream(stack.client, { timeout: 500 })).open(BUCKETS.needs);
    const restartedAt = Date.now();
    await stack.server.restart();
    // The client reconnects on its own; a put may fail until it has.
    for (let i = 0; i < 5; i++) {
      const key = `n1.web.config.after${i}`;
      const rev = await until(async () => put(kv, key, JSON.stringify({ after: i })), 20_000, `put ${key} after the restart`);
      written.set(key, rev);
    }
    const entries = await answersEverything(20_000);
    console.log(`MEASURED resume server_restart_to_current_ms=${Date.now() - restartedAt}`);
    assert.equal(entries.length, written.size);
    for (const e of entries) assert.equal(e.revision, written.get(e.key), e.key);
    const after0 = entries.find((e) => e.key === "n1.web.config.after0");
    assert.deepEqual(after0?.value, { after: 0 });
  });

  test("after the watch's consumer is deleted under it, a key put next is answered within 15 s", async () => {
    // The projection has caught up first (the previous test may have left it resuming).
    await answersEverything(20_000);
    const deleted: string[] = [];
    for await (const ci of stack.jsm.consumers.list(STREAM)) deleted.push(ci.name);
    for (const name of deleted) await stack.jsm.consumers.delete(STREAM, name);
    const deletedAt = Date.now();
    assert.ok(deleted.length >= 1, "the needs projection's watch has a consumer on the stream");
    const kv = await stack.kv("needs");
    const key = "n1.web.config.afterDelete";
    written.set(key, await put(kv, key, '"after the delete"'));
    const entries = await answersEverything(15_000);
    console.log(`MEASURED resume consumer_deleted_to_current_ms=${Date.now() - deletedAt}`);
    assert.equal(entries.find((e) => e.key === key)?.value, "after the delete");
    assert.equal(entries.length, written.size);
  });
});
