import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { headers, type NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { startProvisioner, type Provisioner } from "../../src/main.js";
import { memoryLogger } from "../../src/log.js";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
import { connectTo, FAST } from "../helpers/stack.js";

let server: RunningNatsServer;
let nc: NatsConnection;
let provisioner: Provisioner | undefined;
let svcNc: NatsConnection | undefined;
before(async () => {
  server = await startNatsServer();
  nc = await connectTo(server);
});
after(async () => {
  await provisioner?.stop();
  await svcNc?.close();
  await nc?.close();
  await server?.stop();
});

test("a node bucket found allowing roll-ups is switched to refuse them, logged, and its contents are left alone", async () => {
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  // Created by someone else with the client's defaults: roll-up headers allowed.
  const needs = await new Kvm(js).create(BUCKETS.needs);
  const rev = await needs.put("n2.web.config.port", '{"default":1}');
  assert.equal((await jsm.streams.info(streamName(BUCKETS.needs))).config.allow_rollup_hdrs, true);

  const { log, lines } = memoryLogger("info");
  svcNc = await connectTo(server);
  provisioner = await startProvisioner(svcNc, FAST, log);
  await provisioner.synced;

  const info = await jsm.streams.info(streamName(BUCKETS.needs));
  assert.equal(info.config.allow_rollup_hdrs, false);
  assert.ok(lines().some((l) => l["bucket"] === BUCKETS.needs && String(l["msg"]).includes("roll-ups are now refused")));
  assert.equal((await needs.get("n2.web.config.port"))?.revision, rev, "the bucket's contents are untouched");
  for (const b of [BUCKETS.applied, BUCKETS.collect]) {
    assert.equal((await jsm.streams.info(streamName(b))).config.allow_rollup_hdrs, false, `${b} was created refusing roll-ups`);
  }

  // One publish with Nats-Rollup: all on a node's own key can no longer purge every node's keys.
  const h = headers();
  h.set("Nats-Rollup", "all");
  await assert.rejects(js.publish(`$KV.${BUCKETS.needs}.n1.web.config.x`, "{}", { headers: h }), /rollup/i);
  assert.equal((await needs.get("n2.web.config.port"))?.revision, rev);
});
