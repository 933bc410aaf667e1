import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startStack, type Stack } from "../helpers/stack.js";
import { put } from "../helpers/verb-pages.js";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";

/**
 * A projection that has read every message its stream holds is at the
 * stream's last sequence, even when the messages after the last one it read
 * are gone (delete markers purged, messages expired): `minRevision` at that
 * sequence is answered, not left waiting for a write that will not come.
 */
describe("the stream's end past its last message", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack?.stop();
  });

  test("minRevision at the stream's last sequence is answered after the last messages were purged", async () => {
    const kv = await stack.kv("needs");
    for (let i = 0; i < 6; i++) await put(kv, `n1.web.config.k${i}`, JSON.stringify({ i }));
    for (let i = 0; i < 4; i++) await kv.delete(`n1.web.config.k${i}`);
    const last = await stack.lastSeq("needs");
    await stack.stopService();
    // The four delete markers go: the stream's last sequence stays where it was, with no message at it.
    for (let i = 0; i < 4; i++) await stack.jsm.streams.purge(streamName(BUCKETS.needs), { filter: `$KV.${BUCKETS.needs}.n1.web.config.k${i}` });
    const si = await stack.jsm.streams.info(streamName(BUCKETS.needs));
    assert.equal(si.state.last_seq, last);
    assert.equal(si.state.messages, 2);

    await stack.restartService();
    const r = await stack.ask({ what: "needs", node: "n1", minRevision: last }, 15_000);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(
      r.body.entries.map((e: { key: string }) => e.key),
      ["n1.web.config.k4", "n1.web.config.k5"],
    );
    assert.ok(r.body.revision >= last, `answered at ${r.body.revision}, the stream's last sequence is ${last}`);
  });
});
