import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { get } from "node:http";
import { inspect } from "node:util";
import type { NatsConnection, ServerInfo } from "@nats-io/nats-core";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { connectionConfig, type ConnectionFlags } from "../../src/config.js";
import { connectBus } from "../../src/connect.js";
import { eventually } from "../helpers/eventually.js";
import { spawnService, type ServiceProcess } from "../helpers/processes.js";
import {
  findOpenssl,
  operatorSetup,
  tempDir,
  tlsMaterial,
  userNkey,
  type OperatorSetup,
  type TlsMaterial,
  type UserNkey,
} from "../helpers/credential-material.js";
import { Failure } from "../../src/failure.js";

// Distinctive secrets, so that "it appears nowhere in the output" means something.
const USER = "u";
const PASSWORD = `pw-${randomBytes(12).toString("hex")}`;
const TOKEN = `s3cret-${randomBytes(12).toString("hex")}`;
const OPENSSL = findOpenssl();
const NO_OPENSSL = OPENSSL ? false : "openssl is not installed: the CA and the certificates cannot be made";
const SYNCED = "all projections synced: answering from them";

type Env = Record<string, string | undefined>;

/** The status of a GET, on a connection of its own (closed after), so that nothing holds the server open. */
function httpStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once("error", reject);
    req.once("timeout", () => req.destroy(new Error(`GET ${url} timed out`)));
  });
}

describe("credentials: every kind by flag and by the nats CLI's environment name", () => {
  const tmp = tempDir("mesh-credentials-");
  const conns: NatsConnection[] = [];
  const children: ServiceProcess[] = [];
  let userServer: RunningNatsServer; // authorization users [{user, password}], JetStream
  let tokenServer: RunningNatsServer; // authorization token, JetStream
  let nkeyServer: RunningNatsServer; // authorization users [{nkey}]
  let tlsServer: RunningNatsServer | undefined; // tls { verify: true }, server certificate IP:127.0.0.1 and DNS:localhost
  let tlsIpOnlyServer: RunningNatsServer | undefined; // the same, server certificate IP:127.0.0.1 only
  let operatorServer: RunningNatsServer; // operator mode, memory resolver
  let nkey: UserNkey;
  let otherNkey: UserNkey;
  let tls: TlsMaterial | undefined;
  let operator: OperatorSetup;

  before(async () => {
    nkey = userNkey(tmp.dir, "user.nk");
    otherNkey = userNkey(tmp.dir, "other.nk"); // a well-formed seed the server does not know
    tls = OPENSSL ? tlsMaterial(OPENSSL, tmp.dir) : undefined;
    operator = operatorSetup(tmp.dir);
    const started = await Promise.allSettled([
      startNatsServer({ configText: `authorization { users: [{user: ${JSON.stringify(USER)}, password: ${JSON.stringify(PASSWORD)}}] }` }),
      startNatsServer({ configText: `authorization { token: ${JSON.stringify(TOKEN)} }` }),
      startNatsServer({ jetstream: false, configText: `authorization { users: [{nkey: ${JSON.stringify(nkey.publicKey)}}] }` }),
      tls ? startNatsServer({ jetstream: false, configText: tls.serverConfig }) : Promise.resolve(undefined),
      startNatsServer({ jetstream: false, configText: operator.serverConfig }),
      tls ? startNatsServer({ jetstream: false, configText: tls.ipOnlyServerConfig }) : Promise.resolve(undefined),
    ]);
    const [u, t, n, s, o, i] = started.map((r) => (r.status === "fulfilled" ? r.value : undefined));
    userServer = u!;
    tokenServer = t!;
    nkeyServer = n!;
    tlsServer = s;
    operatorServer = o!;
    tlsIpOnlyServer = i;
    const failed = started.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  });

  after(async () => {
    await Promise.all(children.map((c) => c.stop("SIGKILL")));
    for (const nc of conns) await nc.close().catch(() => undefined);
    await Promise.all([userServer, tokenServer, nkeyServer, tlsServer, operatorServer, tlsIpOnlyServer].map((s) => s?.stop()));
    tmp.remove();
  });

  /** Connect by the project's own path, and prove the connection carries messages both ways. */
  async function connectsAndWorks(flags: ConnectionFlags, env: Env): Promise<ServerInfo | undefined> {
    const nc = await connectBus(connectionConfig(flags, env), "credentials-test");
    conns.push(nc);
    const subject = `credentials.echo.${randomBytes(4).toString("hex")}`;
    nc.subscribe(subject, { callback: (_err, m) => void m.respond(m.data) });
    const reply = await nc.request(subject, "ping", { timeout: 2000 });
    assert.equal(reply.string(), "ping");
    const info = nc.info;
    await nc.close();
    return info;
  }

  /** The connection is refused: a CONNECT error that says so, with none of `secrets` in it. */
  async function refused(flags: ConnectionFlags, env: Env, secrets: string[] = []): Promise<void> {
    await assert.rejects(connectBus(connectionConfig(flags, env), "credentials-test"), (err: unknown) => {
      assert.ok(err instanceof Failure, `expected a Failure, got ${inspect(err)}`);
      assert.equal(err.kind, "CONNECT");
      assert.match(err.message, /cannot connect to NATS/);
      const whole = inspect(err, { depth: 10 }); // the message, the stack and the cause chain
      for (const s of secrets) assert.ok(!whole.includes(s), `the error shows a secret: ${whole}`);
      return true;
    });
  }

  describe("user and password", () => {
    test("--user/--password connect", async () => {
      await connectsAndWorks({ server: userServer.url, user: USER, password: PASSWORD }, {});
    });

    test("NATS_USER/NATS_PASSWORD (and NATS_URL) connect", async () => {
      await connectsAndWorks({}, { NATS_URL: userServer.url, NATS_USER: USER, NATS_PASSWORD: PASSWORD });
    });

    test("no credentials are refused", async () => {
      await refused({ server: userServer.url }, {});
    });

    test("a wrong password is refused with a CONNECT error that does not show the password", async () => {
      const wrong = `wrong-${randomBytes(8).toString("hex")}`;
      await refused({ server: userServer.url, user: USER, password: wrong }, {}, [wrong, PASSWORD]);
      await refused({}, { NATS_URL: userServer.url, NATS_USER: USER, NATS_PASSWORD: wrong }, [wrong, PASSWORD]);
    });

    test("flags win over the environment: a wrong NATS_PASSWORD with the right --password connects", async () => {
      const env = { NATS_URL: "nats://127.0.0.1:1", NATS_USER: "nobody", NATS_PASSWORD: "wrong" };
      await connectsAndWorks({ server: userServer.url, user: USER, password: PASSWORD }, env);
      // The right user from the environment, the right password from the flag.
      await connectsAndWorks({ server: userServer.url, password: PASSWORD }, { NATS_USER: USER, NATS_PASSWORD: "wrong" });
    });
  });

  describe("token", () => {
    test("--token connects", async () => {
      await connectsAndWorks({ server: tokenServer.url, token: TOKEN }, {});
    });

    test("NATS_TOKEN connects", async () => {
      await connectsAndWorks({ server: tokenServer.url }, { NATS_TOKEN: TOKEN });
    });

    test("no token and a wrong token are refused, without showing the token", async () => {
      await refused({ server: tokenServer.url }, {});
      const wrong = `wrong-${randomBytes(8).toString("hex")}`;
      await refused({ server: tokenServer.url, token: wrong }, {}, [wrong, TOKEN]);
    });

    test("flags win over the environment: a wrong NATS_TOKEN with the right --token connects", async () => {
      await connectsAndWorks({ server: tokenServer.url, token: TOKEN }, { NATS_TOKEN: "wrong" });
    });
  });

  describe("nkey seed file", () => {
    test("--nkey connects", async () => {
      await connectsAndWorks({ server: nkeyServer.url, nkey: nkey.seedFile }, {});
    });

    test("NATS_NKEY connects", async () => {
      await connectsAndWorks({ server: nkeyServer.url }, { NATS_NKEY: nkey.seedFile });
    });

    test("no nkey and an unknown nkey are refused", async () => {
      await refused({ server: nkeyServer.url }, {});
      await refused({ server: nkeyServer.url, nkey: otherNkey.seedFile }, {});
    });

    test("flags win over the environment: an unknown NATS_NKEY with the right --nkey connects", async () => {
      await connectsAndWorks({ server: nkeyServer.url, nkey: nkey.seedFile }, { NATS_NKEY: otherNkey.seedFile });
    });

    test("a missing seed file is a CONFIG error naming the file", async () => {
      const missing = `${tmp.dir}/no-such.nk`;
      await assert.rejects(
        connectBus(connectionConfig({ server: nkeyServer.url }, { NATS_NKEY: missing }), "credentials-test"),
        (err: unknown) => err instanceof Failure && err.kind === "CONFIG" && err.message.includes(missing),
      );
    });
  });

  describe("TLS with a client certificate", () => {
    test("--tlsca/--tlscert/--tlskey connect", { skip: NO_OPENSSL }, async () => {
      const info = await connectsAndWorks({ server: tlsServer!.url, tlsca: tls!.ca, tlscert: tls!.clientCert, tlskey: tls!.clientKey }, {});
      assert.equal(info?.tls_required, true);
    });

    test("NATS_CA/NATS_CERT/NATS_KEY connect", { skip: NO_OPENSSL }, async () => {
      const info = await connectsAndWorks({ server: tlsServer!.url }, { NATS_CA: tls!.ca, NATS_CERT: tls!.clientCert, NATS_KEY: tls!.clientKey });
      assert.equal(info?.tls_required, true);
    });

    test("without the client certificate, or without the right CA, the connection is refused", { skip: NO_OPENSSL }, async () => {
      // The server refuses the handshake; the client only notices at its connect timeout (5 s).
      await refused({ server: tlsServer!.url, tlsca: tls!.ca }, {});
      await refused({ server: tlsServer!.url, tlscert: tls!.clientCert, tlskey: tls!.clientKey }, {});
      await refused({ server: tlsServer!.url, tlsca: tls!.otherCa, tlscert: tls!.clientCert, tlskey: tls!.clientKey }, {});
    });

    test("flags win over the environment: wrong NATS_CA/NATS_CERT/NATS_KEY with the right flags connect", { skip: NO_OPENSSL }, async () => {
      // A CA that did not sign the server's certificate, and the server's own certificate as a
      // client certificate (no clientAuth: the server refuses it). Either one alone fails.
      const env = { NATS_URL: tlsServer!.url, NATS_CA: tls!.otherCa, NATS_CERT: tls!.serverCert, NATS_KEY: tls!.serverKey };
      await refused({}, env);
      await connectsAndWorks({ tlsca: tls!.ca, tlscert: tls!.clientCert, tlskey: tls!.clientKey }, env);
    });

    test("an IP-only server certificate (subjectAltName IP:127.0.0.1) is accepted at nats://127.0.0.1", { skip: NO_OPENSSL }, async () => {
      await connectsAndWorks({ server: tlsIpOnlyServer!.url, tlsca: tls!.ca, tlscert: tls!.clientCert, tlskey: tls!.clientKey }, {});
    });
  });

  describe("creds file (operator mode, JWT)", () => {
    test("--creds connects", async () => {
      await connectsAndWorks({ server: operatorServer.url, creds: operator.credsFile }, {});
    });

    test("NATS_CREDS connects", async () => {
      await connectsAndWorks({ server: operatorServer.url }, { NATS_CREDS: operator.credsFile });
    });

    test("no creds and a user of an unknown account are refused", async () => {
      await refused({ server: operatorServer.url }, {});
      await refused({ server: operatorServer.url, creds: operator.strangerCredsFile }, {});
    });

    test("flags win over the environment: a wrong NATS_CREDS with the right --creds connects", async () => {
      await connectsAndWorks({ server: operatorServer.url, creds: operator.credsFile }, { NATS_CREDS: operator.strangerCredsFile });
    });
  });

  describe("serve never logs a secret", () => {
    /** Spawn serve at debug level; return everything it wrote to stdout and stderr once it exits. */
    function spawnCapturing(server: RunningNatsServer, env: Env, args: string[] = []): { proc: ServiceProcess; output: () => Promise<string> } {
      const proc = spawnService({ server: server.url, args: ["--log-level", "debug", ...args], env });
      children.push(proc);
      const chunks: Buffer[] = [];
      proc.child.stdout!.on("data", (b: Buffer) => chunks.push(b));
      proc.child.stderr!.on("data", (b: Buffer) => chunks.push(b));
      // 'close' comes after the exit once both pipes are drained: then the output is whole.
      const closed = new Promise<void>((resolve) => proc.child.once("close", () => resolve()));
      return { proc, output: async () => (await closed, Buffer.concat(chunks).toString("utf8")) };
    }

    async function servesAndStops(server: RunningNatsServer, env: Env, secret: string): Promise<void> {
      // --http, and a SIGTERM only once /readyz answers 200: that answer is written in a later
      // turn of the child's event loop than the one in which serveCommand installed its SIGTERM
      // handler. Any log line (even "serving /healthz…", logged just before) can be read here
      // and answered with a signal before the child ran on (2 CPUs: measured 5 of 12), and a
      // signal during start-up is tested on its own below.
      const { proc, output } = spawnCapturing(server, env, ["--http", "127.0.0.1:0"]);
      await proc.waitForLine((l) => l.msg === SYNCED, 10_000, SYNCED);
      const serving = await proc.waitForLine((l) => l.msg.startsWith("serving /healthz"), 5_000, "serving /healthz");
      const url = String(serving.fields["url"]);
      await eventually(async () => assert.equal(await httpStatus(`${url}/readyz`), 200), { timeoutMs: 5_000, message: `${url}/readyz` });
      const exit = await proc.stop("SIGTERM", 5000);
      assert.deepEqual([exit.code, exit.signal], [0, null], `serve did not stop cleanly:\n${proc.tail()}`);
      const text = await output();
      assert.ok(text.includes(SYNCED), "the captured output must hold the log lines");
      assert.ok(
        proc.lines.some((l) => l.fields["level"] === "debug"),
        "debug lines must have been written",
      );
      assert.ok(!text.includes(secret), `the secret appears in the output:\n${text}`);
    }

    test("NATS_USER/NATS_PASSWORD: serves, stops with 0 on SIGTERM, and the password is nowhere in its output", async () => {
      await servesAndStops(userServer, { NATS_USER: USER, NATS_PASSWORD: PASSWORD }, PASSWORD);
    });

    test("NATS_TOKEN: serves, stops with 0 on SIGTERM, and the token is nowhere in its output", async () => {
      await servesAndStops(tokenServer, { NATS_TOKEN: TOKEN }, TOKEN);
    });

    test("a wrong NATS_PASSWORD: exits with E_CONNECT's status, and neither password is in its output", async () => {
      const wrong = `wrong-${randomBytes(8).toString("hex")}`;
      const { proc, output } = spawnCapturing(userServer, { NATS_USER: USER, NATS_PASSWORD: wrong });
      const exit = await Promise.race([
        proc.exited,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`serve did not exit:\n${proc.tail()}`)), 10_000).unref()),
      ]);
      assert.equal(exit.code, 3, proc.tail());
      const text = await output();
      assert.match(text, /cannot connect to NATS.*\[E_CONNECT\]/);
      assert.ok(!text.includes(wrong) && !text.includes(PASSWORD), `a password appears in the output:\n${text}`);
    });

    test("a SIGTERM during start-up (at its first log line) still ends it with status 0", async () => {
      const { proc } = spawnCapturing(userServer, { NATS_USER: USER, NATS_PASSWORD: PASSWORD });
      await proc.waitForLine((l) => l.msg === "starting mesh-provisioner", 10_000, "starting mesh-provisioner");
      const exit = await proc.stop("SIGTERM", 8000);
      assert.deepEqual([exit.code, exit.signal], [0, null], proc.tail());
    });
  });
});
