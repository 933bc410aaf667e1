import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { parseDuration, formatDuration } from "../../src/duration.js";
import { connectionConfig, parseHostPort, serveConfig } from "../../src/config.js";
import { COMMAND_ROLE, inboxPrefix } from "../../src/permissions/inbox.js";
import { Failure } from "../../src/failure.js";

function configError(fn: () => unknown, message?: RegExp): Failure {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof Failure, "expected a Failure");
  assert.equal(caught.kind, "CONFIG");
  assert.equal(caught.code, "E_CONFIG");
  if (message) assert.match(caught.message, message);
  return caught;
}

describe("parseDuration", () => {
  test("single units", () => {
    assert.equal(parseDuration("500ms"), 500);
    assert.equal(parseDuration("3s"), 3000);
    assert.equal(parseDuration("2m"), 120_000);
    assert.equal(parseDuration("1h"), 3_600_000);
    assert.equal(parseDuration("1d"), 86_400_000);
  });

  test("sums of parts", () => {
    assert.equal(parseDuration("1h30m"), 5_400_000);
    assert.equal(parseDuration("1m30s"), 90_000);
    assert.equal(parseDuration("1s500ms"), 1500);
    assert.equal(parseDuration("2h3m4s5ms"), 2 * 3_600_000 + 3 * 60_000 + 4000 + 5);
  });

  test("decimals and surrounding spaces", () => {
    assert.equal(parseDuration("1.5s"), 1500);
    assert.equal(parseDuration("0.5h"), 1_800_000);
    assert.equal(parseDuration("  3s "), 3000);
  });

  test("bad durations throw CONFIG naming the flag", () => {
    for (const bad of ["", " ", "3", "ms", "3x", "-1s", "0s", "0ms", "1h 30m", "s3", "3S", "1.s", ".5s", "1h30", "abc", "3s!"]) {
      const e = configError(() => parseDuration(bad, "--seat-ttl"), /^--seat-ttl ".*" is not a duration/);
      assert.ok(e.message.includes(JSON.stringify(bad)), bad);
    }
  });

  test("a positive duration that rounds to 0 ms is refused", () => {
    configError(() => parseDuration("0.4ms", "--seat-ttl"), /not a duration/);
  });

  test("formatDuration writes the largest whole unit, and parses back", () => {
    assert.equal(formatDuration(3_600_000), "1h");
    assert.equal(formatDuration(5_400_000), "90m");
    assert.equal(formatDuration(3000), "3s");
    assert.equal(formatDuration(1500), "1500ms");
    for (const ms of [500, 3000, 90_000, 3_600_000, 5_400_000]) assert.equal(parseDuration(formatDuration(ms)), ms);
  });
});

describe("connectionConfig", () => {
  test("defaults to nats://127.0.0.1:4222 with no credentials", () => {
    const c = connectionConfig({}, {});
    assert.deepEqual(c.servers, ["nats://127.0.0.1:4222"]);
    for (const f of ["creds", "nkey", "user", "password", "token", "ca", "cert", "key"] as const) assert.equal(c[f], undefined, f);
    assert.ok(Object.isFrozen(c));
  });

  test("NATS_URL is used when --server is not given", () => {
    assert.deepEqual(connectionConfig({}, { NATS_URL: "nats://a:1" }).servers, ["nats://a:1"]);
  });

  test("--server wins over NATS_URL", () => {
    assert.deepEqual(connectionConfig({ server: "nats://flag:2" }, { NATS_URL: "nats://env:1" }).servers, ["nats://flag:2"]);
  });

  test("an empty NATS_URL falls back to the default", () => {
    assert.deepEqual(connectionConfig({}, { NATS_URL: "" }).servers, ["nats://127.0.0.1:4222"]);
  });

  test("several servers separated by commas, and host:port without scheme", () => {
    assert.deepEqual(connectionConfig({ server: "nats://a:1, tls://b:2,c:3" }, {}).servers, ["nats://a:1", "tls://b:2", "c:3"]);
  });

  test("a server that is not a NATS URL is a CONFIG error", () => {
    configError(() => connectionConfig({ server: "http://x:1" }, {}), /--server "http:\/\/x:1" is not a NATS URL/);
    configError(() => connectionConfig({}, { NATS_URL: "nats://has space:1" }), /not a NATS URL/);
  });

  test("credentials come from the environment, flags win", () => {
    const env = {
      NATS_CREDS: "/env.creds",
      NATS_NKEY: "/env.nk",
      NATS_USER: "envuser",
      NATS_PASSWORD: "envpw",
      NATS_TOKEN: "envtok",
      NATS_CA: "/env-ca.pem",
      NATS_CERT: "/env-cert.pem",
      NATS_KEY: "/env-key.pem",
    };
    const fromEnv = connectionConfig({}, env);
    assert.equal(fromEnv.creds, "/env.creds");
    assert.equal(fromEnv.nkey, "/env.nk");
    assert.equal(fromEnv.user, "envuser");
    assert.equal(fromEnv.password, "envpw");
    assert.equal(fromEnv.token, "envtok");
    assert.equal(fromEnv.ca, "/env-ca.pem");
    assert.equal(fromEnv.cert, "/env-cert.pem");
    assert.equal(fromEnv.key, "/env-key.pem");

    const fromFlags = connectionConfig(
      {
        creds: "/f.creds",
        nkey: "/f.nk",
        user: "fuser",
        password: "fpw",
        token: "ftok",
        tlsca: "/f-ca.pem",
        tlscert: "/f-cert.pem",
        tlskey: "/f-key.pem",
      },
      env,
    );
    assert.equal(fromFlags.creds, "/f.creds");
    assert.equal(fromFlags.nkey, "/f.nk");
    assert.equal(fromFlags.user, "fuser");
    assert.equal(fromFlags.password, "fpw");
    assert.equal(fromFlags.token, "ftok");
    assert.equal(fromFlags.ca, "/f-ca.pem");
    assert.equal(fromFlags.cert, "/f-cert.pem");
    assert.equal(fromFlags.key, "/f-key.pem");
  });

  test("a password without a user is a CONFIG error", () => {
    configError(() => connectionConfig({ password: "pw" }, {}), /password was given without a user/);
    configError(() => connectionConfig({}, { NATS_PASSWORD: "pw" }), /without a user/);
    assert.equal(connectionConfig({ password: "pw" }, { NATS_USER: "u" }).user, "u");
  });

  test("a client certificate needs both cert and key", () => {
    configError(() => connectionConfig({ tlscert: "/c.pem" }, {}), /both --tlscert/);
    configError(() => connectionConfig({}, { NATS_KEY: "/k.pem" }), /both --tlscert/);
  });

  test("the inbox prefix defaults to the one the commands' printed grant allows; environment, then flag, win", () => {
    assert.equal(connectionConfig({}, {}).inboxPrefix, inboxPrefix(COMMAND_ROLE));
    assert.equal(connectionConfig({}, {}).inboxPrefix, "_INBOX_mesh-operator");
    assert.equal(connectionConfig({}, { NATS_INBOX_PREFIX: "" }).inboxPrefix, "_INBOX_mesh-operator", "empty is unset");
    assert.equal(connectionConfig({}, { NATS_INBOX_PREFIX: "_INBOX_mesh-provider" }).inboxPrefix, "_INBOX_mesh-provider");
    assert.equal(connectionConfig({ inboxPrefix: "_INBOX" }, { NATS_INBOX_PREFIX: "_INBOX_mesh-provider" }).inboxPrefix, "_INBOX");
    assert.equal(connectionConfig({}, {}, "_INBOX_mesh-node_n1").inboxPrefix, "_INBOX_mesh-node_n1");
    assert.equal(connectionConfig({ inboxPrefix: "a.b_c-d" }, {}).inboxPrefix, "a.b_c-d");
    for (const bad of ["_INBOX.>", "a.*", "a b", "a..b", ".a", "a."]) {
      configError(() => connectionConfig({ inboxPrefix: bad }, {}), /--inbox-prefix ".*" must be subject tokens/);
    }
  });
});

describe("serveConfig", () => {
  test("defaults: registry interval 1h, seat ttl 10s, replicas 1, wait 5s", () => {
    const c = serveConfig({}, {});
    assert.equal(c.registryIntervalMs, 3_600_000);
    assert.equal(c.seatTtlMs, 10_000);
    assert.equal(c.replicas, 1);
    assert.equal(c.maxWaitMs, 5000);
    assert.equal(c.http, undefined);
    assert.equal(c.logLevel, "info");
    assert.equal(c.heapGrowingPercent, 300);
    assert.deepEqual(c.connection.servers, ["nats://127.0.0.1:4222"]);
    assert.equal(c.connection.inboxPrefix, inboxPrefix("provisioner"), "the prefix `permissions --role provisioner` allows");
    assert.equal(serveConfig({}, { NATS_INBOX_PREFIX: "_INBOX" }).connection.inboxPrefix, "_INBOX");
    assert.ok(Object.isFrozen(c));
  });

  test("heap growing: by flag or MESH_PROVISIONER_HEAP_GROWING, 0 for V8's own, anything else refused by name", () => {
    assert.equal(serveConfig({ heapGrowing: "150" }, { MESH_PROVISIONER_HEAP_GROWING: "50" }).heapGrowingPercent, 150);
    assert.equal(serveConfig({}, { MESH_PROVISIONER_HEAP_GROWING: "0" }).heapGrowingPercent, 0);
    for (const v of ["-1", "1.5", "lots", "1001"]) configError(() => serveConfig({ heapGrowing: v }, {}), /--heap-growing/);
  });

  test("flags set the durations and replicas", () => {
    const c = serveConfig({ registryInterval: "1h30m", seatTtl: "3s", replicas: "3", maxWait: "500ms", http: "0.0.0.0:8080" }, {});
    assert.equal(c.registryIntervalMs, 5_400_000);
    assert.equal(c.seatTtlMs, 3000);
    assert.equal(c.replicas, 3);
    assert.equal(c.maxWaitMs, 500);
    assert.deepEqual(c.http, { host: "0.0.0.0", port: 8080 });
  });

  test("bad values are CONFIG errors naming the flag", () => {
    configError(() => serveConfig({ seatTtl: "10" }, {}), /--seat-ttl "10"/);
    configError(() => serveConfig({ registryInterval: "soon" }, {}), /--registry-interval "soon"/);
    for (const r of ["0", "6", "-1", "1.5", "two", ""]) configError(() => serveConfig({ replicas: r }, {}), /--replicas/);
    configError(() => serveConfig({ http: "8080" }, {}), /--http "8080" must be HOST:PORT/);
    configError(() => serveConfig({ logLevel: "loud" }, {}), /--log-level "loud"/);
  });

  test("LOG_LEVEL comes from the environment; the flag wins", () => {
    assert.equal(serveConfig({}, { LOG_LEVEL: "debug" }).logLevel, "debug");
    assert.equal(serveConfig({ logLevel: "warn" }, { LOG_LEVEL: "debug" }).logLevel, "warn");
  });

  test("NATS_URL reaches the serve config's connection", () => {
    assert.deepEqual(serveConfig({}, { NATS_URL: "nats://e:9" }).connection.servers, ["nats://e:9"]);
  });
});

test("parseHostPort reads HOST:PORT, bracketed IPv6, and an empty host as 127.0.0.1", () => {
  assert.deepEqual(parseHostPort("127.0.0.1:8080"), { host: "127.0.0.1", port: 8080 });
  assert.deepEqual(parseHostPort("[::1]:9000"), { host: "::1", port: 9000 });
  assert.deepEqual(parseHostPort(":7000"), { host: "127.0.0.1", port: 7000 });
  configError(() => parseHostPort("host:70000"), /must be HOST:PORT/);
  configError(() => parseHostPort("host"), /must be HOST:PORT/);
});
