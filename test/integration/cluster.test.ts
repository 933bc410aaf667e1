import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { startNatsCluster, type RunningCluster, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { startProvisioner, type Provisioner } from "../../src/main.js";
import { memoryLogger } from "../../src/log.js";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { until } from "../helpers/verb-pages.js";
import { FAST } from "../helpers/stack.js";

const NEEDS_STREAM = streamName(BUCKETS.needs);

/** A put that retries through a leader election (reported as "no responders" / "jetstream is not enabled"). */
async function putRetrying(kv: KV, key: string, value: string, ms = 30_000): Promise<number> {
  return until(async () => kv.put(key, value), ms, `put ${key}`);
}

describe("on a three-server cluster", () => {
  let cluster: RunningCluster;
  let svcNc: NatsConnection;
  let client: NatsConnection;
  let jsm: JetStreamManager;
  let provisioner: Provisioner;
  const memory = memoryLogger("info");

  before(async () => {
    cluster = await startNatsCluster(3);
    const opts = { servers: cluster.urls, maxReconnectAttempts: -1, reconnectTimeWait: 200, pingInterval: 2000, maxPingOut: 2 };
    svcNc = await connect(opts);
    client = await connect(opts);
    jsm = await jetstreamManager(client);
    provisioner = await startProvisioner(svcNc, { ...FAST, replicas: 3 }, memory.log);
    await provisioner.synced;
  });

  after(async () => {
    await provisioner?.stop().catch(() => undefined);
    await svcNc?.close().catch(() => undefined);
    await client?.close().catch(() => undefined);
    await cluster?.stop();
  });

  test("--replicas 3 creates every bucket with three replicas", async () => {
    for (const b of [...Object.values(BUCKETS), "mesh-provisioner_seat"]) {
      const si = await jsm.streams.info(streamName(b));
      assert.equal(si.config.num_replicas, 3, b);
    }
  });

  test("losing the server that leads the needs stream: the service keeps answering, is current again, and still repairs the registry", async () => {
    const kv = await new Kvm(jetstream(client, { timeout: 2000 })).open(BUCKETS.needs);
    const before = await putRetrying(kv, "n1.web.config.before", '"before"');
    await until(() => (provisioner.projections.needs.revision >= before ? true : undefined));

    const leaderName = (await jsm.streams.info(NEEDS_STREAM)).cluster?.leader;
    const leader = cluster.servers.find((s) => s.name === leaderName) as RunningNatsServer | undefined;
    assert.ok(leader, `the needs stream has a leader among ${cluster.servers.map((s) => s.name).join(", ")} (got ${leaderName})`);
    const stoppedAt = Date.now();
    await leader.kill("SIGKILL");

    // While the stream elects a leader (and the watch resumes), the verb answers from what was applied.
    const meanwhile = await until(
      async () => {
        const m = await client.request(VERB_SUBJECT, JSON.stringify({ what: "needs", node: "n1" }), { timeout: 1000 });
        return m.json<{ revision: number; entries?: { key: string }[]; error?: unknown }>();
      },
      10_000,
      "any answer from the verb after the leader was lost",
    );
    assert.equal(meanwhile.error, undefined, `the verb answers while the watch resumes: ${JSON.stringify(meanwhile)}`);
    assert.deepEqual(
      meanwhile.entries?.map((e) => e.key),
      ["n1.web.config.before"],
    );
    assert.equal(meanwhile.revision, before);

    // Writes land again once a new leader is elected; the projection follows them.
    const after = await putRetrying(kv, "n1.web.config.after", '"after"');
    console.log(`MEASURED cluster leader_loss_to_put_ms=${Date.now() - stoppedAt}`);
    const current = await until(
      async () => {
        const m = await client.request(VERB_SUBJECT, JSON.stringify({ what: "needs", node: "n1" }), { timeout: 2000 });
        const body = m.json<{ entries?: { key: string; revision: number }[] }>();
        return body.entries?.some((e) => e.key === "n1.web.config.after" && e.revision === after) ? body : undefined;
      },
      30_000,
      "the verb answers the write made after the leader was lost",
    );
    const currentMs = Date.now() - stoppedAt;
    if (process.env.CLUSTER_TRACE)
      for (const l of memory.lines().filter((x) => x.code !== "E_NOT_SYNCED"))
        console.log(
          `TRACE ${(typeof l.time === "number" ? l.time : Date.parse(String(l.time))) - stoppedAt} ${l.msg} ${JSON.stringify({ ...l, msg: undefined, time: undefined, level: undefined, pid: undefined, hostname: undefined })}`,
        );
    assert.ok(
      current.entries?.some((e) => e.key === "n1.web.config.before"),
      "nothing written before the loss is lost",
    );
    console.log(`MEASURED cluster leader_loss_to_current_ms=${currentMs}`);

    // The registry is still reconciled: drift made now is repaired.
    const registry = await new Kvm(jetstream(client, { timeout: 2000 })).open(BUCKETS.registry);
    await until(async () => registry.put("bogus", "{}"), 30_000, "a registry put after the loss");
    await until(async () => ((await registry.get("bogus"))?.operation === "DEL" ? true : undefined), 30_000, "the drift repaired");
    console.log(`MEASURED cluster leader_loss_to_registry_repair_ms=${Date.now() - stoppedAt}`);
  });
});
