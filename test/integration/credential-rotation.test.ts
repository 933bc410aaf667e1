/**
 * Credentials that rotate, on a real server in operator (JWT) mode: `serve`
 * connects with a `.creds` file; the file is replaced by another user's of
 * the same account; the service uses the new one at its next reconnect (the
 * old user revoked, which makes the server drop it) or at once on SIGHUP, and
 * no verb request is lost while it happens.
 *
 * "Lost", the rule of this test: a provider asks the verb every 20 ms. Each
 * ask is one request with a 2 s timeout and, if that gets no answer (no
 * responders while the service reconnects, a timeout, or an error reply),
 * one retry 1.5 s after the first was sent, waiting until 5 s after it. An
 * ask neither attempt answered is lost. (While the service reconnects the
 * verb has no responder: the client dials at once, or, when it dialled that
 * server less than its reconnect wait ago, 1 s plus jitter later.)
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { credsAuthenticator, type NatsConnection } from "@nats-io/nats-core";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { grantFor, inboxPrefix } from "../../src/permissions/grants.js";
import { NEEDS_VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { eventually } from "../helpers/eventually.js";
import { Fleet, type ServiceProcess } from "../helpers/processes.js";
import { findOpenssl, jetstreamOperator, tempDir, tlsMaterial, type JetStreamOperator, type MintedUser } from "../helpers/credential-material.js";
import { connectionConfig } from "../../src/config.js";
import { connectBus } from "../../src/connect.js";

const SYNCED = "all projections synced: answering from them";
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The users connected under `name`, by the monitoring endpoint's `/connz?auth=true` (the user's public key for a JWT user). */
async function connectedAs(server: RunningNatsServer, name: string): Promise<string[]> {
  const port = /^http: "127\.0\.0\.1:(\d+)"$/m.exec(readFileSync(server.configFile, "utf8"))?.[1];
  assert.ok(port, "the server's monitoring port");
  const body = await new Promise<string>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: Number(port), path: "/connz?auth=true&limit=1024", agent: false, timeout: 2000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    });
    req.once("error", reject);
    req.once("timeout", () => req.destroy(new Error("/connz timed out")));
    req.end();
  });
  const connz = JSON.parse(body) as { connections?: { name?: string; authorized_user?: string }[] };
  return (connz.connections ?? []).filter((c) => c.name === name).map((c) => c.authorized_user ?? "");
}

/** Asks the verb steadily, as a provider would, and counts what was answered. */
class SteadyAsker {
  sent = 0;
  answeredFirst = 0;
  answeredOnRetry = 0;
  readonly lost: number[] = [];
  private readonly asks: Promise<void>[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly nc: NatsConnection) {}

  private async once(timeout: number): Promise<void> {
    const m = await this.nc.request(NEEDS_VERB_SUBJECT, JSON.stringify({ what: "registry" }), { timeout });
    if (m.headers?.get("Nats-Service-Error")) throw new Error(`the verb answered ${m.headers.get("Nats-Service-Error-Code")}`);
    assert.ok(Array.isArray(m.json<{ entries?: unknown }>().entries));
  }

  private async ask(n: number): Promise<void> {
    const sentAt = Date.now();
    try {
      await this.once(2000);
      this.answeredFirst++;
      return;
    } catch {
      // asked again once, below
    }
    await sleep(Math.max(0, sentAt + 1500 - Date.now()));
    try {
      await this.once(Math.max(100, sentAt + 5000 - Date.now()));
      this.answeredOnRetry++;
    } catch {
      this.lost.push(n);
    }
  }

  start(): void {
    this.timer = setInterval(() => {
      const n = ++this.sent;
      this.asks.push(this.ask(n));
    }, 20);
  }

  get answered(): number {
    return this.answeredFirst + this.answeredOnRetry;
  }

  /** Wait for every ask started so far to end (answered or lost), asking on. */
  async settled(): Promise<void> {
    await Promise.all([...this.asks]);
  }

  /** Stop asking and wait for every ask to end. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.asks);
  }

  report(): string {
    return `sent ${this.sent}, answered ${this.answeredFirst} at once and ${this.answeredOnRetry} on the retry, lost ${this.lost.length}`;
  }
}

describe("credentials that rotate, in operator (JWT) mode", () => {
  const tmp = tempDir("mesh-rotation-");
  const credsPath = join(tmp.dir, "mesh-provisioner.creds");
  let op: JetStreamOperator;
  let server: RunningNatsServer;
  let fleet: Fleet;
  let serve: ServiceProcess;
  let sys: NatsConnection;
  let asker: NatsConnection;
  const users: Record<"a" | "b" | "c" | "d", MintedUser> = {} as never;
  /** The user the service runs as now (each test starts from it, so that each can run alone). */
  let current: MintedUser;

  /** Write the creds file the way an operator should (a new file renamed into place), or, with `partial`, half of it in place. */
  function writeCreds(u: MintedUser, partial = false): void {
    if (partial) {
      writeFileSync(credsPath, u.creds.slice(0, Math.floor(u.creds.length / 2)));
      return;
    }
    writeFileSync(`${credsPath}.new`, u.creds, { mode: 0o600 });
    renameSync(`${credsPath}.new`, credsPath);
  }

  /** Push the account's JWT revoking `u`, as `nsc revocations add-user` then `nsc push` do. */
  async function revoke(u: MintedUser): Promise<void> {
    const reply = await sys.request("$SYS.REQ.CLAIMS.UPDATE", op.accountJwt([u.publicKey]), { timeout: 5000 });
    const answer = reply.json<{ data?: { code?: number; message?: string }; error?: unknown }>();
    assert.equal(answer.data?.code, 200, `the account update was refused: ${reply.string()}`);
  }

  const serviceUsers = (): Promise<string[]> => connectedAs(server, "mesh-provisioner");

  async function connectedOnlyAs(u: MintedUser, what: string): Promise<void> {
    await eventually(async () => assert.deepEqual(await serviceUsers(), [u.publicKey]), { timeoutMs: 15_000, message: what });
  }

  before(async () => {
    // Each role a scoped signing key holding its printed grant; each user signed by its role's key.
    op = jetstreamOperator({ provisioner: grantFor("provisioner"), provider: grantFor("provider") });
    for (const k of ["a", "b", "c", "d"] as const) users[k] = op.user(`mesh-provisioner-${k}`, "provisioner");
    server = await startNatsServer({ configText: op.serverConfig(join(tmp.dir, "jwt")) });
    sys = await connect({ servers: server.url, authenticator: credsAuthenticator(new TextEncoder().encode(op.system.creds)) });
    const provider = op.user("provider", "provider");
    asker = await connect({
      servers: server.url,
      authenticator: credsAuthenticator(new TextEncoder().encode(provider.creds)),
      inboxPrefix: inboxPrefix("provider"),
    });
    writeCreds(users.a);
    fleet = new Fleet({ server: server.url, env: { LOG_FORMAT: "json" } });
    serve = fleet.spawn({ args: ["--creds", credsPath], name: "serve" });
    await serve.waitForLine((l) => l.msg === SYNCED, 30_000, SYNCED);
    await connectedOnlyAs(users.a, "the service connected as user A");
    current = users.a;
  });

  after(async () => {
    await fleet?.killAll();
    await asker?.close().catch(() => undefined);
    await sys?.close().catch(() => undefined);
    await server?.stop();
    tmp.remove();
  });

  test("a replaced creds file is used at the next reconnect (the old user revoked and dropped by the server), no verb request lost", async (t) => {
    const [old, next] = [current, users.b];
    const ask = new SteadyAsker(asker);
    ask.start();
    try {
      await eventually(() => assert.ok(ask.answeredFirst >= 20, ask.report()), { timeoutMs: 10_000 });
      const from = serve.lines.length;
      writeCreds(next);
      assert.deepEqual(await serviceUsers(), [old.publicKey], "replacing the file alone does not reconnect");
      await revoke(old);
      await serve.waitForLine((l) => l.msg === "reconnected to NATS", 15_000, "reconnected to NATS", from);
      await connectedOnlyAs(next, "the service reconnected as the new user, and no connection is left as the old one");
      current = next;
      const changed = await serve.waitForLine((l) => l.msg.includes("file changed"), 1000, "the creds file changed", from);
      assert.equal(changed.fields["user"], next.publicKey);
      assert.equal(changed.fields["before"], old.publicKey);
      const answered = ask.answered;
      await eventually(() => assert.ok(ask.answered >= answered + 20, ask.report()), { timeoutMs: 10_000 });
    } finally {
      await ask.stop();
    }
    t.diagnostic(ask.report());
    assert.deepEqual(ask.lost, [], ask.report());
    assert.equal(ask.answered, ask.sent, ask.report());
  });

  test("SIGHUP reconnects at once with the file as it is; a half-written file keeps the last good credentials; no verb request lost", async (t) => {
    const [old, next] = [current, users.c];
    const ask = new SteadyAsker(asker);
    ask.start();
    try {
      await eventually(() => assert.ok(ask.answeredFirst >= 20, ask.report()), { timeoutMs: 10_000 });

      // Caught half-written: the reconnect uses the last good content and says so.
      let from = serve.lines.length;
      writeCreds(next, true);
      serve.signal("SIGHUP");
      await serve.waitForLine((l) => l.msg.startsWith("SIGHUP: reconnecting to NATS"), 5000, "SIGHUP: reconnecting", from);
      const warned = await serve.waitForLine((l) => l.msg.startsWith("cannot use the credentials (--creds) file now"), 10_000, "the warning", from);
      assert.equal(warned.fields["user"], old.publicKey);
      await serve.waitForLine((l) => l.msg === "reconnected to NATS", 15_000, "reconnected to NATS", from);
      await connectedOnlyAs(old, "still the old user");
      // The asks of that reconnect's gap are retried 1.5 s after they were sent: let them end before the next
      // reconnect, as an operator's two SIGHUPs would be apart.
      await ask.settled();

      // Whole: SIGHUP connects as the new user, without any revocation to push it.
      from = serve.lines.length;
      writeCreds(next);
      serve.signal("SIGHUP");
      await serve.waitForLine((l) => l.msg === "reconnected to NATS", 15_000, "reconnected to NATS", from);
      await connectedOnlyAs(next, "SIGHUP made the service reconnect as the new user");
      current = next;
      await revoke(old); // nothing runs as the old user any more
      const answered = ask.answered;
      await eventually(() => assert.ok(ask.answered >= answered + 20, ask.report()), { timeoutMs: 10_000 });
    } finally {
      await ask.stop();
    }
    t.diagnostic(ask.report());
    assert.deepEqual(ask.lost, [], ask.report());
    assert.equal(ask.answered, ask.sent, ask.report());
    assert.deepEqual(await serviceUsers(), [next.publicKey]);
    assert.equal(serve.exit, undefined, "the service is still running");
  });

  test("a user revoked before its file is replaced: the service keeps trying and connects once the new file is there", async () => {
    const from = serve.lines.length;
    const logMark = readFileSync(server.logFile, "utf8").length;
    const [old, next] = [current, users.d];
    await revoke(old);
    const refused = await serve.waitForLine((l) => l.msg.startsWith("NATS refused the credentials at a reconnect"), 15_000, "the refusal", from);
    // The client's default gives up after two refusals in a row; wait for more than that, counted in the server's log
    // (only the service connects meanwhile; 2.9.10 does not name the user in that line).
    const refusals = (): number =>
      (
        readFileSync(server.logFile, "utf8")
          .slice(logMark)
          .match(/authentication error/g) ?? []
      ).length;
    await eventually(() => assert.ok(refusals() >= 3, `the server refused ${refusals()} attempts`), { timeoutMs: 15_000 });
    assert.deepEqual(await serviceUsers(), [], "no connection while the only credentials are revoked");
    writeCreds(next);
    await connectedOnlyAs(next, "the service connected as the new user once its file was in place");
    current = next;
    await serve.waitForLine((l) => l.msg === "reconnected to NATS" && l.receivedAt >= refused.receivedAt, 15_000, "reconnected to NATS", from);
    assert.equal(serve.exit, undefined, "the service is still running");
    assert.equal(serve.lines.filter((l) => l.fields["level"] === "fatal").length, 0, serve.tail());
  });
});

describe("TLS files that rotate", () => {
  const openssl = findOpenssl();
  const tmp = tempDir("mesh-tls-rotation-");
  let server: RunningNatsServer | undefined;
  let nc: NatsConnection | undefined;

  after(async () => {
    await nc?.close().catch(() => undefined);
    await server?.stop();
    tmp.remove();
  });

  // The client loads the CA, certificate and key files together at each connect; the CA is the one a test can swap
  // for a refusal on the client's side at once (a refused client certificate shows only at the connect timeout).
  test("the TLS files are read again at each reconnect", { skip: openssl ? false : "openssl is not installed" }, async () => {
    const tls = tlsMaterial(openssl!, tmp.dir);
    const live = { ca: join(tmp.dir, "live-ca.pem"), cert: join(tmp.dir, "live-client.pem"), key: join(tmp.dir, "live-client.key") };
    copyFileSync(tls.ca, live.ca);
    copyFileSync(tls.clientCert, live.cert);
    copyFileSync(tls.clientKey, live.key);
    server = await startNatsServer({ jetstream: false, configText: tls.serverConfig });
    nc = await connectBus(connectionConfig({ server: server.url, tlsca: live.ca, tlscert: live.cert, tlskey: live.key }, {}), "tls-rotation");
    const seen: string[] = [];
    void (async () => {
      for await (const s of nc!.status()) seen.push(s.type);
    })();

    copyFileSync(tls.otherCa, live.ca); // a CA that did not sign the server's certificate
    await nc.reconnect();
    await eventually(() => assert.ok(seen.filter((t) => t === "reconnecting").length >= 2, seen.join(",")), { timeoutMs: 10_000 });
    assert.ok(!seen.includes("reconnect"), "no reconnect with a CA that does not verify the server");

    copyFileSync(tls.ca, live.ca);
    await eventually(() => assert.ok(seen.includes("reconnect"), seen.join(",")), { timeoutMs: 10_000 });
    const echo = `tls.rotation.${process.pid}`;
    nc.subscribe(echo, { callback: (err, m) => void (err ? undefined : m.respond(m.data)) });
    assert.equal((await nc.request(echo, "ping", { timeout: 2000 })).string(), "ping");
  });
});
