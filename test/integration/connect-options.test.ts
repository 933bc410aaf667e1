import { test } from "node:test";
import assert from "node:assert/strict";
import { connectBus, PENDING_LIMIT_BYTES } from "../../src/connect.js";
import { withNatsServer } from "../helpers/nats-server.js";

/** The bytes the client holds, not yet written to its socket (nats.js internals: what this test guards). */
const pendingBytes = (nc: unknown): number => (nc as { protocol: { outbound: { size(): number } } }).protocol.outbound.size();

test("the service's connection gathers a burst of large answers into one write instead of writing every 32 KiB", async () => {
  await withNatsServer(async (server) => {
    const nc = await connectBus({ servers: [server.url] }, "connect-options-test");
    try {
      const answer = new Uint8Array(20_000);
      let written = 0;
      const got = new Promise<void>((resolve) => {
        nc.subscribe("burst", {
          callback: () => {
            if (++written === 10) resolve();
          },
        });
      });
      await nc.flush();
      // Ten ~20 KB publishes in one synchronous burst: at nats.js's default limit
      // (32 KiB) the client would have written all but the last one or two already.
      for (let i = 0; i < 10; i++) nc.publish("burst", answer);
      const held = pendingBytes(nc);
      assert.ok(held >= 10 * answer.length, `the client held ${held} bytes of the burst; the limit is not in effect`);
      assert.ok(held < PENDING_LIMIT_BYTES);
      // ...and writes them all once the burst ends.
      await got;
      assert.equal(written, 10);
      assert.equal(pendingBytes(nc), 0);
    } finally {
      await nc.close();
    }
  });
});
