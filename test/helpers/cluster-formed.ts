/**
 * Waiting for a test's JetStream cluster to form: a three-replica stream can
 * be made only once the meta group has a leader and every peer is in.
 */
import { connect } from "@nats-io/transport-node";
import type { ConnectionOptions } from "@nats-io/nats-core";
import { jetstreamManager } from "@nats-io/jetstream";

/** Resolves once a three-replica stream could be made and deleted on the servers `opts` connects to; `cluster` names them in the error. */
export async function waitFormed(opts: ConnectionOptions, cluster: string, timeoutMs = 60_000): Promise<void> {
  const nc = await connect({ ...opts, maxReconnectAttempts: -1 });
  try {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      try {
        const jsm = await jetstreamManager(nc, { timeout: 3000 });
        await jsm.streams.add({ name: "CLUSTER_FORMED", subjects: ["cluster.formed"], num_replicas: 3 });
        await jsm.streams.delete("CLUSTER_FORMED");
        return;
      } catch (err) {
        last = err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    throw new Error(`${cluster} did not form a JetStream cluster within ${timeoutMs} ms: ${String(last)}`);
  } finally {
    await nc.close().catch(() => undefined);
  }
}
