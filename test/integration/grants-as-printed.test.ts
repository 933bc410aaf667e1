/**
 * The grants `permissions` prints work as printed: `serve` under the
 * provisioner's grant, and `query`, `dump` and `verify` under the operator's
 * and under the provisioner's, with no --inbox-prefix; the operator's grant writes nothing; and a grant
 * that refuses a start-up step is reported as a permissions violation naming
 * the subject, with exit 3, not as a missing JetStream.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { accountsConfig, type UserSpec } from "../../src/permissions/server-config.js";
import { inboxPrefix } from "../../src/permissions/grants.js";
import { NEEDS_VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { refused } from "../helpers/granted.js";
import { eventually } from "../helpers/eventually.js";
import { BIN, Fleet, type ServiceProcess } from "../helpers/processes.js";

const pw = (): string => randomBytes(12).toString("hex");
const SVC: UserSpec = { user: "mesh-provisioner", password: pw(), role: "provisioner" };
const PROVIDER: UserSpec = { user: "provider", password: pw(), role: "provider" };
const OPERATOR: UserSpec = { user: "operator", password: pw(), role: "operator" };
/** The provisioner's grant but for $JS.API.INFO, the first request of a start. */
const NARROW: UserSpec = { user: "narrow", password: pw(), role: "provisioner" };

function serverConfig(): string {
  const cfg = accountsConfig([SVC, PROVIDER, OPERATOR, NARROW]) as {
    accounts: Record<string, { users: { user: string; permissions: { publish: { allow: string[] } } }[] }>;
  };
  const narrow = Object.values(cfg.accounts)[0]!.users.find((u) => u.user === NARROW.user)!;
  narrow.permissions.publish.allow = narrow.permissions.publish.allow.filter((s) => s !== "$JS.API.INFO");
  return JSON.stringify(cfg, null, 2).slice(1, -1);
}

const as = (u: UserSpec): string[] => ["--user", u.user, "--password", u.password];

/** The environment of a child: no ambient NATS_* setting, JSON logs. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_FORMAT: "json" };
  for (const k of Object.keys(env)) if (k.startsWith("NATS_")) delete env[k];
  return env;
}

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: childEnv(), timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the printed grants, as printed", () => {
  let server: RunningNatsServer;
  let fleet: Fleet;
  let serve: ServiceProcess;
  let client: NatsConnection | undefined;

  before(async () => {
    server = await startNatsServer({ configText: serverConfig() });
    fleet = new Fleet({ server: server.url, env: { LOG_FORMAT: "json" } });
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    await fleet?.killAll();
    await server?.stop();
  });

  test("serve under the provisioner's grant with no --inbox-prefix starts, syncs and answers", async () => {
    serve = fleet.spawn({ args: as(SVC), name: "serve" });
    await serve.waitForLine((l) => l.msg === "all projections synced: answering from them", 30_000, "all projections synced");
    // A provider, under its own grant and prefix, asks the verb the service answers.
    client = await connect({ servers: server.url, user: PROVIDER.user, pass: PROVIDER.password, inboxPrefix: inboxPrefix("provider") });
    const c = client;
    // The seat holder writes the registry just after the first sync.
    await eventually(async () => {
      const m = await c.request(NEEDS_VERB_SUBJECT, JSON.stringify({ what: "registry" }), { timeout: 5000 });
      assert.equal(m.json<{ entries: unknown[] }>().entries.length, 13);
    });
    assert.equal(serve.lines.filter((l) => l.fields["level"] === "error" || l.fields["level"] === "fatal").length, 0, serve.tail());
  });

  for (const [whose, user] of [
    ["the operator's", OPERATOR],
    ["the provisioner's", SVC],
  ] as const) {
    test(`query, dump and verify under ${whose} grant need no --inbox-prefix`, async () => {
      const q = await run(["query", "registry", "--json", "--server", server.url, ...as(user)]);
      assert.equal(q.code, 0, q.stderr);
      assert.equal((JSON.parse(q.stdout) as { entries: unknown[] }).entries.length, 13);
      const table = await run(["query", "needs", "--scope", "node:n1", "--server", server.url, ...as(user)]);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /seat: /, "the table's seat line, from $SRV");
      const d = await run(["dump", "--server", server.url, ...as(user)]);
      assert.equal(d.code, 0, d.stderr);
      const dump = JSON.parse(d.stdout) as { buckets: { registry: { entries: unknown[] } }; seat: { holder: unknown } };
      assert.equal(dump.buckets.registry.entries.length, 13);
      assert.notEqual(dump.seat.holder, null, "the seat's holder, from $SRV");
      const v = await run(["verify", "--server", server.url, ...as(user)]);
      assert.equal(v.code, 0, v.stderr + v.stdout);
      assert.match(v.stdout, /the projections equal the buckets/);
    });
  }

  test("the operator's grant writes nothing: a put to the registry or a node bucket, and every stream change, are refused", async () => {
    const nc = await connect({ servers: server.url, user: OPERATOR.user, pass: OPERATOR.password, inboxPrefix: inboxPrefix("operator") });
    try {
      const js = jetstream(nc, { watcherPrefix: inboxPrefix("operator"), timeout: 1500 });
      const registry = await new Kvm(js).open(BUCKETS.registry);
      assert.equal((await registry.get("secret"))?.json<{ module: string }>().module, "mesh-vault", "it reads");
      await refused("a registry put", () => registry.put("secret", "{}"));
      const needs = await new Kvm(js).open(BUCKETS.needs);
      await refused("a node bucket put", () => needs.put("n1.web.config.port", "{}"));
      await refused("a node bucket delete", () => needs.delete("n1.web.config.port"));
      const jsm = await jetstreamManager(nc, { timeout: 1500 });
      const stream = streamName(BUCKETS.registry);
      const last = (await jsm.streams.info(stream)).state.last_seq;
      await refused("stream delete", () => jsm.streams.delete(stream));
      await refused("stream purge", () => jsm.streams.purge(stream));
      await refused("stream update", () => jsm.streams.update(stream, { max_msgs_per_subject: 5 }));
      await refused("message delete", () => jsm.streams.deleteMessage(stream, last));
      await refused("stream create", () => jsm.streams.add({ name: "OPERATOR_MADE", subjects: ["operator.made"] }));
      assert.equal((await jsm.streams.info(stream)).state.last_seq, last, "the registry's stream is as it was");
    } finally {
      await nc.close();
    }
  });

  test("a grant that does not cover the inbox prefix given is reported as a violation on that inbox, exit 3", async () => {
    const p = fleet.spawn({ args: [...as(SVC), "--inbox-prefix", "_INBOX"], name: "serve-default-inbox" });
    const exit = await p.exited;
    const said = p.otherOutput.join("\n");
    assert.equal(exit.code, 3, said);
    assert.match(said, /^mesh-provisioner: permissions violation: the server refused subscribe on _INBOX\.\S+; /m);
    assert.match(said, /--inbox-prefix/);
    assert.doesNotMatch(said, /JetStream is not available/);
    const fatal = p.lines.find((l) => l.fields["level"] === "fatal");
    assert.match(String(fatal?.fields["err"]), /^permissions violation: /, "the log line says so too");
  });

  test("a grant too narrow for a start-up step fails the start with the violation, naming the subject refused", async () => {
    const p = fleet.spawn({ args: as(NARROW), name: "serve-narrow" });
    const exit = await p.exited;
    const said = p.otherOutput.join("\n");
    assert.equal(exit.code, 3, said);
    assert.match(said, /^mesh-provisioner: permissions violation: the server refused publish on \$JS\.API\.INFO; the user's grant must allow it/m);
    assert.match(said, /\[E_CONNECT\]$/m);
  });

  test("a command under a grant for another prefix says so too", async () => {
    const q = await run(["query", "registry", "--server", server.url, ...as(PROVIDER)]);
    assert.equal(q.code, 3, q.stderr);
    assert.match(q.stderr, /permissions violation: the server refused subscribe on _INBOX_mesh-operator\.\S+; .*inbox prefix _INBOX_mesh-operator,/);
    const ok = await run([
      "query",
      "registry",
      "--json",
      "--server",
      server.url,
      ...as(PROVIDER),
      "--inbox-prefix",
      inboxPrefix("provider"),
      "--scope",
      "needs",
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    // Without the scope of its grant, the verb's subject for the whole mesh is refused, and the message says so.
    const mesh = await run(["query", "registry", "--server", server.url, ...as(PROVIDER), "--inbox-prefix", inboxPrefix("provider")]);
    assert.equal(mesh.code, 3, mesh.stderr);
    assert.match(mesh.stderr, /permissions violation: the server refused publish on mesh-provisioner\.provisioning; .*--scope needs/);
  });
});
