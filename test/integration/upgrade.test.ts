/**
 * An upgrade under least privilege: buckets an earlier deployment made with a
 * client's defaults (no size limits, roll-ups allowed) meet `serve` run with
 * the grant `permissions --role provisioner` prints, and with the grant an
 * earlier release printed (which denied updating the registry's stream).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { accountsConfig, type UserSpec } from "../../src/permissions/server-config.js";
import { inboxPrefix } from "../../src/permissions/grants.js";
import { BUCKETS, SEAT_BUCKET, streamName } from "mesh-provisioner-client/keys";
import { OWN_BUCKET_LIMITS } from "../../src/streams/buckets.js";
import { DEFAULT_BUCKET_LIMITS } from "../../src/defaults.js";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { eventually } from "../helpers/eventually.js";
import { Fleet, type ServiceProcess } from "../helpers/processes.js";

const pw = (): string => randomBytes(12).toString("hex");
const SVC: UserSpec = { user: "mesh-provisioner", password: pw(), role: "provisioner" };
/** The provisioner's grant as an earlier release printed it: no update of the registry's or the seat's stream. */
const OLD: UserSpec = { user: "old-provisioner", password: pw(), role: "provisioner" };
const ADMIN = { user: "admin", password: pw() };
const ALL = [BUCKETS.registry, BUCKETS.needs, BUCKETS.applied, BUCKETS.collect, SEAT_BUCKET];

function serverConfig(): string {
  const cfg = accountsConfig([SVC, OLD]) as {
    accounts: Record<string, { users: { user: string; password: string; permissions?: { publish: { allow: string[]; deny: string[] } } }[] }>;
  };
  const users = Object.values(cfg.accounts)[0]!.users;
  const old = users.find((u) => u.user === OLD.user)!.permissions!.publish;
  const own = [`$JS.API.STREAM.UPDATE.KV_${BUCKETS.registry}`, `$JS.API.STREAM.UPDATE.KV_${SEAT_BUCKET}`];
  old.allow = old.allow.filter((s) => !own.includes(s));
  old.deny.push(own[0]!);
  // The earlier deployment's operator: no permissions block, so everything is allowed.
  users.push({ user: ADMIN.user, password: ADMIN.password });
  return JSON.stringify(cfg, null, 2).slice(1, -1);
}

const as = (u: UserSpec): string[] => ["--user", u.user, "--password", u.password];

describe("an upgrade over buckets an earlier deployment made with a client's defaults", () => {
  let server: RunningNatsServer;
  let fleet: Fleet;
  let admin: NatsConnection;

  /** Every bucket made again as a client makes it by default: no limits, roll-ups allowed. */
  async function earlierBuckets(): Promise<void> {
    const jsm = await jetstreamManager(admin);
    for (const b of ALL) await jsm.streams.delete(streamName(b)).catch(() => undefined);
    const kvm = new Kvm(jetstream(admin));
    for (const b of ALL) await kvm.create(b);
    const needs = await kvm.open(BUCKETS.needs);
    await needs.put("n1.web.config.port", JSON.stringify({ default: 8080 }));
  }

  const configOf = async (bucket: string) => (await (await jetstreamManager(admin)).streams.info(streamName(bucket))).config;

  async function answersNeeds(p: ServiceProcess): Promise<void> {
    await p.waitForLine((l) => l.msg === "all projections synced: answering from them", 30_000, "all projections synced");
    const m = await admin.request(VERB_SUBJECT, JSON.stringify({ what: "needs", node: "n1" }), { timeout: 5000 });
    assert.deepEqual(
      m.json<{ entries: { key: string }[] }>().entries.map((e) => e.key),
      ["n1.web.config.port"],
    );
  }

  before(async () => {
    server = await startNatsServer({ configText: serverConfig() });
    fleet = new Fleet({ server: server.url, env: { LOG_FORMAT: "json" } });
    admin = await connect({ servers: server.url, user: ADMIN.user, pass: ADMIN.password });
  });

  after(async () => {
    await fleet?.killAll();
    await admin?.close().catch(() => undefined);
    await server?.stop();
  });

  test("serve with the printed grant starts, serves, and brings every bucket to its settings", async () => {
    await earlierBuckets();
    const p = fleet.spawn({ args: as(SVC), name: "serve-printed" });
    await answersNeeds(p);
    for (const b of [BUCKETS.needs, BUCKETS.applied, BUCKETS.collect]) {
      const c = await configOf(b);
      assert.equal(c.allow_rollup_hdrs, false, `${b} refuses roll-ups`);
      assert.equal(c.max_bytes, DEFAULT_BUCKET_LIMITS.nodeBucketBytes, `${b} has its size limit`);
      assert.equal(c.max_msg_size, DEFAULT_BUCKET_LIMITS.maxValueBytes);
    }
    for (const b of [BUCKETS.registry, SEAT_BUCKET]) {
      const c = await configOf(b);
      assert.equal(c.max_bytes, OWN_BUCKET_LIMITS.bucketBytes, `${b} has its size limit`);
      assert.equal(c.max_msg_size, OWN_BUCKET_LIMITS.maxValueBytes);
    }
    assert.equal(p.lines.filter((l) => l.fields["level"] === "error" || l.fields["level"] === "fatal").length, 0, p.tail());
    await p.stop();
  });

  test("serve with an earlier release's grant leaves the registry as it was, says how an operator changes it, and serves", async () => {
    await earlierBuckets();
    const p = fleet.spawn({ args: [...as(OLD), "--inbox-prefix", inboxPrefix("provisioner")], name: "serve-old-grant" });
    await answersNeeds(p);
    const left = p.lines.filter((l) => typeof l.fields["command"] === "string");
    const registryLine = left.find((l) => l.fields["bucket"] === BUCKETS.registry);
    assert.ok(registryLine, `a line says the registry was left as it was:\n${p.tail()}`);
    assert.equal(registryLine.fields["level"], "warn");
    assert.equal(
      registryLine.fields["command"],
      `nats stream edit KV_${BUCKETS.registry} --max-bytes=${OWN_BUCKET_LIMITS.bucketBytes} --max-msg-size=${OWN_BUCKET_LIMITS.maxValueBytes} --force`,
    );
    assert.match(registryLine.msg, /left as it was \(max_bytes unlimited, where the service sets 16777216 bytes; max_msg_size unlimited/);
    assert.equal((await configOf(BUCKETS.registry)).max_bytes, -1, "the registry's stream is untouched");
    // What the grant does allow is still done: the node buckets refuse roll-ups.
    assert.equal((await configOf(BUCKETS.needs)).allow_rollup_hdrs, false);
    await eventually(async () => {
      const m = await admin.request(VERB_SUBJECT, JSON.stringify({ what: "registry" }), { timeout: 5000 });
      assert.equal(m.json<{ entries: unknown[] }>().entries.length, 13, "the registry is written as usual");
    });
    await p.stop();
  });
});
