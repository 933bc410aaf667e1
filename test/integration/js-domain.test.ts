/**
 * The JetStream domain on real servers: a hub with JetStream in domain `hub`
 * and a leaf server without JetStream joined to it by a leaf node link. An
 * instance and `verify` connected to the leaf reach the hub's buckets only
 * with `--js-domain hub`; a domain nothing serves is one line naming it and
 * exit 3, at once.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
import { ProvisionerClient } from "mesh-provisioner-client";
import { freePort, startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { jetStreamAccess } from "../../src/streams/jetstream-access.js";
import { Fleet } from "../helpers/processes.js";
import { spawnServed } from "../helpers/served.js";
import { eventually } from "../helpers/eventually.js";
import { killAll, run } from "../helpers/cli-run.js";
import { httpGet } from "../helpers/http-get.js";
import { ExitCodes } from "../../src/cli/exit-codes.js";

/** The longest a domain that nothing serves may take to be reported (a process start and one JetStream request). */
const FAIL_FAST_MS = 10_000;

/** The environment of a command: no ambient NATS_* setting. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("NATS_")) delete env[k];
  return env;
}

describe("the JetStream domain, from a leaf node to its hub", () => {
  let hub: RunningNatsServer;
  let leaf: RunningNatsServer;
  let atHub: NatsConnection;
  let atLeaf: NatsConnection;
  let fleet: Fleet;

  before(async () => {
    const leafPort = await freePort();
    hub = await startNatsServer({ jsDomain: "hub", configText: `leafnodes { listen: "127.0.0.1:${leafPort}" }` });
    leaf = await startNatsServer({ jetstream: false, configText: `leafnodes { remotes: [{ url: "nats-leaf://127.0.0.1:${leafPort}" }] }` });
    fleet = new Fleet({ server: leaf.url });
    atHub = await connect({ servers: hub.url });
    atLeaf = await connect({ servers: leaf.url });
    // The leaf node link is up once the hub's JetStream answers through it.
    const throughLeaf = jetStreamAccess(atLeaf, { domain: "hub" });
    await eventually(async () => (await throughLeaf.manager()).getAccountInfo(), { timeoutMs: 15_000, intervalMs: 100, message: "the leaf's link to the hub" });
  });

  after(async () => {
    killAll();
    await fleet?.killAll();
    await atLeaf?.close();
    await atHub?.close();
    await leaf?.stop();
    await hub?.stop();
  });

  test("without the domain an instance at the leaf fails at once: the leaf has no JetStream of its own (exit 3)", async () => {
    const r = await run(["serve", "--server", leaf.url], cleanEnv(), FAIL_FAST_MS + 5_000);
    assert.equal(r.code, ExitCodes.CONNECT, r.stderr.slice(-1500));
    assert.ok(r.ms < FAIL_FAST_MS, `it failed within ${FAIL_FAST_MS} ms (took ${r.ms})`);
  });

  test("serve --js-domain hub at the leaf creates the buckets in the hub, syncs, and answers the verb with what the hub's buckets hold", async () => {
    const served = await spawnServed(fleet, { args: ["--js-domain", "hub"] });
    // The buckets are the hub's: made there by the instance at the leaf.
    const hubJsm = await jetStreamAccess(atHub).manager();
    for (const what of ["registry", "needs", "applied", "collect"] as const) await hubJsm.streams.info(streamName(BUCKETS[what]));
    // A write at the hub is answered at the leaf, at the revision it made.
    const needs = await jetStreamAccess(atHub).kvm().open(BUCKETS.needs);
    const revision = await needs.put("n1.web.config.port", JSON.stringify({ default: 8080 }));
    const client = new ProvisionerClient(atLeaf, { timeoutMs: 5_000 });
    const answer = await client.get({ what: "needs", node: "n1", minRevision: revision });
    assert.ok(answer.revision >= revision, `answered at ${answer.revision}, wrote ${revision}`);
    assert.deepEqual(
      answer.entries.map((e) => e.key),
      ["n1.web.config.port"],
    );
    // The registry the seat's holder reconciled into the hub's bucket is answered too.
    await eventually(async () => assert.ok((await client.get({ what: "registry" })).entries.length > 0, `the reconciled registry: ${served.proc.tail(30)}`), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    // Stream info for /metrics goes through the domain as well: the projections' start is reported.
    const metrics = await httpGet(`${served.base}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /^mesh_provisioner_projection_start\{/m);

    const verified = await run(["verify", "--server", leaf.url, "--js-domain", "hub", "--attempts", "3"], cleanEnv(), 30_000);
    assert.equal(verified.code, 0, verified.stderr.slice(-1500) + verified.stdout);
    assert.match(verified.stdout, /the projections equal the buckets/);
  });

  for (const command of ["serve", "verify"] as const) {
    test(`${command} --js-domain nope at the leaf exits 3 at once with one line naming the domain and what to check`, async () => {
      const r = await run([command, "--server", leaf.url, "--js-domain", "nope"], { ...cleanEnv(), LOG_LEVEL: "silent" }, FAIL_FAST_MS + 5_000);
      assert.equal(r.code, ExitCodes.CONNECT, r.stderr.slice(-1500));
      assert.ok(r.ms < FAIL_FAST_MS, `it failed within ${FAIL_FAST_MS} ms (took ${r.ms})`);
      const lines = r.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, /^mesh-provisioner: JetStream domain "nope" .*does not answer.*jetstream \{ domain: nope \}.*leaf node.*\[E_CONNECT\]$/);
    });
  }
});
