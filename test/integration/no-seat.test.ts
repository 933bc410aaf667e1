/**
 * `serve --no-seat` on a real server: an instance that writes nothing. Started
 * before any bucket exists it creates none and says once what it waits for;
 * it syncs once the seat's holder has made them, starts from the holder's
 * checkpoints, and never takes the seat, not even when it is free.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { BUCKETS, SEAT_BUCKET } from "mesh-provisioner-client/keys";
import { startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { jetStreamAccess } from "../../src/streams/jetstream-access.js";
import { Fleet, type ServiceProcess } from "../helpers/processes.js";
import { spawnServed } from "../helpers/served.js";
import { eventually } from "../helpers/eventually.js";

const WAITING = "waiting for the buckets to be created";

describe("serve --no-seat writes nothing: it waits for the buckets, loads checkpoints, never takes the seat", () => {
  let server: RunningNatsServer;
  let nc: NatsConnection;
  let fleet: Fleet;
  let early: ServiceProcess;

  const streams = async (): Promise<string[]> => {
    const names: string[] = [];
    for await (const n of (await jetStreamAccess(nc).manager()).streams.names()) names.push(n);
    return names.sort();
  };

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    fleet = new Fleet({ server: server.url });
  });

  after(async () => {
    await fleet?.killAll();
    await nc?.close();
    await server?.stop();
  });

  test("before any bucket exists it creates none, and says once what it waits for", async () => {
    // Without --http: the HTTP side is served once the instance has started, and this one waits.
    early = fleet.spawn({ name: "early", args: ["--no-seat", "--seat-ttl", "1s"] });
    const line = await early.waitForLine((l) => l.msg.startsWith(WAITING), 15_000, WAITING);
    assert.deepEqual((line.fields["missing"] as string[]).sort(), [...Object.values(BUCKETS), SEAT_BUCKET].sort());
    // Tries go on meanwhile (the policy's cap is 2 s): still nothing made, still one line.
    await new Promise((r) => setTimeout(r, 2_500));
    assert.deepEqual(await streams(), []);
    assert.equal(early.lines.filter((l) => l.msg.startsWith(WAITING)).length, 1, early.tail(20));
  });

  test("once the seat's holder has made the buckets it syncs, and starts from the holder's checkpoints; it never takes the seat", async () => {
    const holder = (await spawnServed(fleet, { name: "holder", args: ["--seat-ttl", "1s", "--checkpoint-every", "1s"] })).proc;
    await early.waitForLine((l) => l.msg.startsWith("all projections synced"), 15_000, "the early --no-seat instance synced");
    const needs = await jetStreamAccess(nc).kvm().open(BUCKETS.needs);
    for (let i = 0; i < 20; i++) await needs.put(`n${i}.web.config.port`, String(8000 + i));
    await holder.waitForLine((l) => l.msg === "wrote a checkpoint of the projection" && l.fields["checkpoint"] === "needs", 15_000, "a needs checkpoint");
    const late = (await spawnServed(fleet, { name: "late", args: ["--no-seat", "--seat-ttl", "1s"] })).proc;
    assert.ok(
      late.lines.some((l) => l.msg.startsWith("projection synced from a checkpoint")),
      `the late instance loaded a checkpoint: ${late.tail(30)}`,
    );
    // The holder stops and releases the seat: the seat stays free, for longer than a lease time, with two --no-seat instances running.
    await holder.stop("SIGTERM");
    const seat = await jetStreamAccess(nc).kvm().open(SEAT_BUCKET);
    await eventually(async () => assert.notEqual((await seat.get("holder"))?.operation, "PUT"), { timeoutMs: 5_000, message: "the seat released" });
    await new Promise((r) => setTimeout(r, 3_000));
    assert.notEqual((await seat.get("holder"))?.operation, "PUT", "nobody took the seat");
    for (const p of [early, late]) {
      assert.ok(!p.lines.some((l) => /holds the seat: it writes|created the missing bucket|wrote a checkpoint/.test(l.msg)), p.tail(40));
      assert.equal(p.exit, undefined, `${p.name} still runs`);
    }
  });
});
