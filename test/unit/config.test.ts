import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { parseDuration, formatDuration, type DurationBounds } from "../../src/duration.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandTimeoutMs, connectionConfig, parseHostPort, serveConfig, verifyAttempts, type ServeConfig } from "../../src/config.js";
import { COMMAND_ROLE, inboxPrefix } from "../../src/permissions/inbox.js";
import { Failure } from "../../src/failure.js";
import { SERVE_SETTINGS, type ServeKey, type Setting } from "../../src/defaults.js";

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

  test("the JetStream domain: none by default; NATS_JS_DOMAIN, then --js-domain, set it; serve's connection carries it", () => {
    assert.equal(connectionConfig({}, {}).jsDomain, undefined);
    assert.equal(connectionConfig({}, { NATS_JS_DOMAIN: "" }).jsDomain, undefined, "empty is unset");
    assert.equal(connectionConfig({}, { NATS_JS_DOMAIN: "hub" }).jsDomain, "hub");
    assert.equal(connectionConfig({ jsDomain: "site_1-a" }, { NATS_JS_DOMAIN: "hub" }).jsDomain, "site_1-a");
    assert.equal(serveConfig({}, { NATS_JS_DOMAIN: "hub" }).connection.jsDomain, "hub");
  });

  test("a JetStream domain is one subject token: a dot, a wildcard or a space is refused naming the flag or the variable", () => {
    for (const bad of ["hub.eu", "*", "hub>", "a b", " hub", "hub\t"]) {
      configError(() => connectionConfig({ jsDomain: bad }, {}), /^--js-domain ".*" must be one JetStream domain.*no dot, wildcard \(\* or >\) or space/s);
      configError(() => connectionConfig({}, { NATS_JS_DOMAIN: bad }), /^NATS_JS_DOMAIN ".*" must be one JetStream domain/s);
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
    assert.deepEqual(c.http, { host: "0.0.0.0", port: 8080, from: "--http" });
  });

  test("bad values are CONFIG errors naming the flag", () => {
    configError(() => serveConfig({ seatTtl: "10" }, {}), /--seat-ttl "10"/);
    configError(() => serveConfig({ registryInterval: "soon" }, {}), /--registry-interval "soon"/);
    for (const r of ["0", "6", "-1", "1.5", "two", ""]) configError(() => serveConfig({ replicas: r }, {}), /--replicas/);
    configError(() => serveConfig({ http: "8080" }, {}), /--http "8080" must be HOST:PORT/);
    configError(() => serveConfig({ logLevel: "loud" }, {}), /--log-level "loud"/);
  });

  test("LOG_LEVEL comes from the environment; MESH_PROVISIONER_LOG_LEVEL wins over it, and the flag over both", () => {
    assert.equal(serveConfig({}, { LOG_LEVEL: "debug" }).logLevel, "debug");
    assert.equal(serveConfig({}, { LOG_LEVEL: "debug", MESH_PROVISIONER_LOG_LEVEL: "error" }).logLevel, "error");
    assert.equal(serveConfig({}, { LOG_LEVEL: "debug", MESH_PROVISIONER_LOG_LEVEL: "" }).logLevel, "debug", "empty is unset");
    assert.equal(serveConfig({ logLevel: "warn" }, { LOG_LEVEL: "debug", MESH_PROVISIONER_LOG_LEVEL: "error" }).logLevel, "warn");
    configError(() => serveConfig({}, { LOG_LEVEL: "loud" }), /^LOG_LEVEL "loud" must be one of/);
  });

  test("NATS_URL reaches the serve config's connection", () => {
    assert.deepEqual(serveConfig({}, { NATS_URL: "nats://e:9" }).connection.servers, ["nats://e:9"]);
  });
});

test("parseHostPort reads HOST:PORT, bracketed IPv6, and an empty host as 127.0.0.1", () => {
  assert.deepEqual(parseHostPort("127.0.0.1:8080"), { host: "127.0.0.1", port: 8080 });
  assert.deepEqual(parseHostPort("[::1]:9000"), { host: "::1", port: 9000 });
  assert.deepEqual(parseHostPort(":7000"), { host: "127.0.0.1", port: 7000 });
  configError(() => parseHostPort("host"), /must be HOST:PORT/);
});

test("parseHostPort says a port past 65535 is out of range", () => {
  assert.equal(parseHostPort("127.0.0.1:65535").port, 65535);
  configError(() => parseHostPort("127.0.0.1:99999"), /^--http "127\.0\.0\.1:99999": port 99999 is out of range: a port is from 1 to 65535/);
  configError(() => serveConfig({}, { MESH_PROVISIONER_HTTP: "host:70000" }), /^MESH_PROVISIONER_HTTP "host:70000": port 70000 is out of range/);
});

describe("the bounds of the durations, from the table of settings", () => {
  const bounded = (SERVE_SETTINGS as readonly Setting[]).filter((s): s is Setting & { default: string; bounds: DurationBounds } => s.bounds !== undefined);

  test("every duration setting of serve has bounds, and its default lies within them", () => {
    assert.deepEqual(
      SERVE_SETTINGS.filter((s) => s.value === "<duration>").map((s) => s.key),
      bounded.map((s) => s.key),
    );
    for (const s of bounded) {
      const d = parseDuration(s.default);
      assert.ok(parseDuration(s.bounds.min) <= d && d <= parseDuration(s.bounds.max), s.flag);
    }
  });

  for (const s of bounded) {
    test(`${s.flag} takes ${s.bounds.min} to ${s.bounds.max}, and refuses a value outside them naming the flag`, () => {
      const min = parseDuration(s.bounds.min);
      const max = parseDuration(s.bounds.max);
      const ms = (v: string): number | undefined => {
        const c = serveConfig({ [s.key]: v }, {});
        const of: Record<string, number> = {
          registryInterval: c.registryIntervalMs,
          seatTtl: c.seatTtlMs,
          maxWait: c.maxWaitMs,
          staleAfter: c.staleAfterMs,
          driftDelay: c.driftDelayMs,
          checkpointEvery: c.checkpointEveryMs,
        };
        return of[s.key];
      };
      assert.equal(ms(s.bounds.min), min);
      assert.equal(ms(s.bounds.max), max);
      for (const v of [...(min > 1 ? [`${min - 1}ms`] : []), `${max + 1}ms`, "99999h"]) {
        configError(
          () => serveConfig({ [s.key]: v }, {}),
          new RegExp(`^${s.flag} "${v}" is out of range: write a duration from ${s.bounds.min} to ${s.bounds.max}$`),
        );
        configError(() => serveConfig({}, { [s.env]: v }), new RegExp(`^${s.env} "${v}" is out of range`));
      }
    });
  }

  test("--checkpoint-every 0 is still never", () => {
    assert.equal(serveConfig({ checkpointEvery: "0" }, {}).checkpointEveryMs, 0);
  });
});

describe("query's --timeout and verify's --attempts", () => {
  test("--timeout takes a duration, and a bare number as milliseconds", () => {
    assert.equal(commandTimeoutMs("1s"), 1000);
    assert.equal(commandTimeoutMs("1m30s"), 90_000);
    assert.equal(commandTimeoutMs("2500"), 2500);
    assert.equal(commandTimeoutMs(), 10_000, "the default");
  });

  test("--timeout out of its bounds, or not a duration, is refused naming the flag", () => {
    configError(() => commandTimeoutMs("0"), /^--timeout "0" \(a bare number is milliseconds\) is out of range: write a duration from 100ms to 10m$/);
    configError(() => commandTimeoutMs("5"), /^--timeout "5" \(a bare number is milliseconds\) is out of range/);
    configError(() => commandTimeoutMs("1h"), /^--timeout "1h" is out of range/);
    configError(() => commandTimeoutMs("soon"), /^--timeout "soon" is not a duration/);
    configError(() => commandTimeoutMs("-1"), /^--timeout "-1" is not a duration/);
  });

  test("--attempts is a whole number from 1 to 100", () => {
    assert.equal(verifyAttempts("1"), 1);
    assert.equal(verifyAttempts("100"), 100);
    assert.equal(verifyAttempts(), 3, "the default");
    for (const bad of ["0", "101", "-1", "1.5", "three", ""]) configError(() => verifyAttempts(bad), /^--attempts ".*" must be a whole number from 1 to 100$/);
  });
});

/** Each environment twin of serve's own settings: a value other than its default, and where the configuration shows it. */
/** `flag` absent: a switch, which can only turn on what its variable also turns on (its own tests, below). */
const TWINS: Record<ServeKey, { value: string; flag?: string; read: (c: ServeConfig) => unknown; expected: unknown; bad?: string }> = {
  registryInterval: { value: "30s", flag: "2m", read: (c) => c.registryIntervalMs, expected: 30_000, bad: "abc" },
  seatTtl: { value: "3s", flag: "4s", read: (c) => c.seatTtlMs, expected: 3000, bad: "abc" },
  seat: { value: "true", read: (c) => c.noSeat, expected: true },
  replicas: { value: "3", flag: "5", read: (c) => c.replicas, expected: 3, bad: "9" },
  maxWait: { value: "2s", flag: "1s", read: (c) => c.maxWaitMs, expected: 2000, bad: "soon" },
  staleAfter: { value: "30s", flag: "1m", read: (c) => c.staleAfterMs, expected: 30_000, bad: "late" },
  driftDelay: { value: "1s", flag: "2s", read: (c) => c.driftDelayMs, expected: 1000, bad: "1" },
  http: {
    value: "0.0.0.0:8080",
    flag: "127.0.0.1:9090",
    read: (c) => c.http && { host: c.http.host, port: c.http.port },
    expected: { host: "0.0.0.0", port: 8080 },
    bad: "8080",
  },
  httpToken: { value: "0123456789abcdef", flag: "fedcba9876543210", read: (c) => c.httpToken, expected: "0123456789abcdef", bad: "short" },
  httpTokenFile: { value: "/secrets/http-token", flag: "/secrets/other", read: (c) => c.httpToken, expected: "token-from-a-file-0123" },
  maxValueBytes: { value: "1KiB", flag: "2KiB", read: (c) => c.bucketLimits.maxValueBytes, expected: 1024, bad: "big" },
  bucketMaxBytes: { value: "2GiB", flag: "3GiB", read: (c) => c.bucketLimits.nodeBucketBytes, expected: 2 * 1024 ** 3, bad: "-1" },
  floodKeys: { value: "500", flag: "600", read: (c) => c.floodLimits.keys, expected: 500, bad: "many" },
  floodBytes: { value: "1MiB", flag: "2MiB", read: (c) => c.floodLimits.bytes, expected: 1024 ** 2, bad: "0" },
  checkpointEvery: { value: "0", flag: "1m", read: (c) => c.checkpointEveryMs, expected: 0, bad: "often" },
  checkpointMaxBytes: { value: "512MiB", flag: "256MiB", read: (c) => c.checkpointMaxBytes, expected: 512 * 1024 ** 2, bad: "1x" },
  logLevel: { value: "debug", flag: "warn", read: (c) => c.logLevel, expected: "debug", bad: "loud" },
  heapGrowing: { value: "150", flag: "200", read: (c) => c.heapGrowingPercent, expected: 150, bad: "lots" },
};

/** Files by path, for the secrets' file settings: a stand-in for the file system that throws as it does. */
function files(contents: Record<string, string>): (path: string) => string {
  return (path) => {
    const text = contents[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: "ENOENT" });
    return text;
  };
}

const FILES = files({
  "/secrets/http-token": "token-from-a-file-0123\n",
  "/secrets/other": "other-token-from-a-file\n",
  "/secrets/password": "s3cret pass\r\n",
  "/secrets/token": "nats-token\n\n",
  "/secrets/empty": "\n",
});

describe("environment twins of serve's settings", () => {
  // --http-token needs --http: every case serves HTTP unless it sets --http itself.
  const base = (key: ServeKey): Record<string, string> => (key === "http" ? {} : { MESH_PROVISIONER_HTTP: "127.0.0.1:0" });

  test("every setting of serve's table has a case here", () => {
    assert.deepEqual(
      SERVE_SETTINGS.map((s) => s.key),
      Object.keys(TWINS),
    );
  });

  for (const s of SERVE_SETTINGS) {
    const t = TWINS[s.key];
    test(`${s.env} sets ${s.flag}`, () => {
      const withoutIt = t.read(serveConfig({}, base(s.key), FILES));
      assert.notDeepEqual(withoutIt, t.expected, "the case's value differs from the default");
      assert.deepEqual(t.read(serveConfig({}, { ...base(s.key), [s.env]: t.value }, FILES)), t.expected);
    });

    const flag = t.flag;
    if (flag !== undefined) {
      test(`${s.flag} wins over ${s.env}`, () => {
        const fromFlag = t.read(serveConfig({ [s.key]: flag }, base(s.key), FILES));
        assert.notDeepEqual(fromFlag, t.expected);
        assert.deepEqual(t.read(serveConfig({ [s.key]: flag }, { ...base(s.key), [s.env]: t.value }, FILES)), fromFlag);
      });
    }

    if (t.bad !== undefined) {
      const bad = t.bad;
      test(`a bad ${s.env} is refused naming the variable, as ${s.flag}'s is naming the flag`, () => {
        const fromEnv = configError(() => serveConfig({}, { ...base(s.key), [s.env]: bad }, FILES));
        assert.ok(fromEnv.message.startsWith(s.env), fromEnv.message);
        if (s.key !== "httpToken") assert.ok(fromEnv.message.includes(`"${bad}"`), fromEnv.message);
        const fromFlag = configError(() => serveConfig({ [s.key]: bad }, base(s.key), FILES));
        assert.ok(fromFlag.message.startsWith(s.flag), fromFlag.message);
        assert.equal(fromEnv.message.slice(s.env.length), fromFlag.message.slice(s.flag.length), "the same message but for the name");
      });
    }
  }

  test("MESH_PROVISIONER_SEAT_TTL=abc is refused, naming the variable and what to write", () => {
    configError(() => serveConfig({}, { MESH_PROVISIONER_SEAT_TTL: "abc" }), /^MESH_PROVISIONER_SEAT_TTL "abc" is not a duration: write .* such as 500ms, 3s/);
  });

  test("an empty variable is unset: the default applies", () => {
    const c = serveConfig({}, { MESH_PROVISIONER_SEAT_TTL: "", MESH_PROVISIONER_HTTP: "", MESH_PROVISIONER_REPLICAS: "" });
    assert.equal(c.seatTtlMs, 10_000);
    assert.equal(c.http, undefined);
    assert.equal(c.replicas, 1);
  });

  test("a token without --http names where the token came from", () => {
    configError(() => serveConfig({}, { MESH_PROVISIONER_HTTP_TOKEN: "0123456789abcdef" }), /^MESH_PROVISIONER_HTTP_TOKEN guards the dashboard/);
    configError(() => serveConfig({ httpTokenFile: "/secrets/http-token" }, {}, FILES), /^--http-token-file guards the dashboard/);
  });

  test("a cross-check names the variables that were given", () => {
    configError(
      () => serveConfig({}, { MESH_PROVISIONER_MAX_VALUE_BYTES: "2GiB", MESH_PROVISIONER_BUCKET_MAX_BYTES: "1GiB" }),
      /^MESH_PROVISIONER_MAX_VALUE_BYTES is larger than MESH_PROVISIONER_BUCKET_MAX_BYTES/,
    );
  });
});

describe("--no-seat, a switch", () => {
  // commander hands the switch over as `seat`: false when --no-seat is given, its implied true when not.
  test("off by default: the instance campaigns for the seat", () => {
    assert.equal(serveConfig({}, {}).noSeat, false);
    assert.equal(serveConfig({ seat: true }, {}).noSeat, false, "commander's implied true is no flag given");
  });

  test("--no-seat turns it on, whatever the variable says", () => {
    assert.equal(serveConfig({ seat: false }, {}).noSeat, true);
    assert.equal(serveConfig({ seat: false }, { MESH_PROVISIONER_NO_SEAT: "false" }).noSeat, true);
  });

  test("MESH_PROVISIONER_NO_SEAT takes true or false as a person writes them; commander's implied true leaves it to decide", () => {
    for (const v of ["true", "TRUE", "1", "yes", "on", " true "]) assert.equal(serveConfig({ seat: true }, { MESH_PROVISIONER_NO_SEAT: v }).noSeat, true, v);
    for (const v of ["false", "0", "no", "off"]) assert.equal(serveConfig({}, { MESH_PROVISIONER_NO_SEAT: v }).noSeat, false, v);
    assert.equal(serveConfig({}, { MESH_PROVISIONER_NO_SEAT: "" }).noSeat, false, "empty is unset");
  });

  test("anything else in MESH_PROVISIONER_NO_SEAT is refused naming the variable and what to write", () => {
    configError(() => serveConfig({}, { MESH_PROVISIONER_NO_SEAT: "maybe" }), /^MESH_PROVISIONER_NO_SEAT "maybe" must be true or false$/);
  });
});

describe("--stale-after", () => {
  test("5s by default, 1s to 1h", () => {
    assert.equal(serveConfig({}, {}).staleAfterMs, 5000);
    assert.equal(serveConfig({ staleAfter: "1s" }, {}).staleAfterMs, 1000);
    assert.equal(serveConfig({ staleAfter: "1h" }, {}).staleAfterMs, 3_600_000);
    configError(() => serveConfig({ staleAfter: "500ms" }, {}), /^--stale-after "500ms"/);
    configError(() => serveConfig({}, { MESH_PROVISIONER_STALE_AFTER: "2h" }), /^MESH_PROVISIONER_STALE_AFTER "2h"/);
  });
});

describe("secrets given as files", () => {
  test("--password-file and NATS_PASSWORD_FILE are read once, the trailing newline trimmed", () => {
    let reads = 0;
    const counting = (path: string): string => {
      reads++;
      return FILES(path);
    };
    assert.equal(connectionConfig({ user: "u", passwordFile: "/secrets/password" }, {}, undefined, counting).password, "s3cret pass");
    assert.equal(reads, 1);
    assert.equal(connectionConfig({}, { NATS_USER: "u", NATS_PASSWORD_FILE: "/secrets/password" }, undefined, FILES).password, "s3cret pass");
  });

  test("--token-file and NATS_TOKEN_FILE are read, every trailing newline trimmed", () => {
    assert.equal(connectionConfig({ tokenFile: "/secrets/token" }, {}, undefined, FILES).token, "nats-token");
    assert.equal(connectionConfig({}, { NATS_TOKEN_FILE: "/secrets/token" }, undefined, FILES).token, "nats-token");
  });

  test("--http-token-file and MESH_PROVISIONER_HTTP_TOKEN_FILE are read", () => {
    const env = { MESH_PROVISIONER_HTTP: "127.0.0.1:0" };
    assert.equal(serveConfig({ httpTokenFile: "/secrets/http-token" }, env, FILES).httpToken, "token-from-a-file-0123");
    assert.equal(serveConfig({}, { ...env, MESH_PROVISIONER_HTTP_TOKEN_FILE: "/secrets/http-token" }, FILES).httpToken, "token-from-a-file-0123");
  });

  test("a file given by a flag wins over a value in the environment, and a value by a flag over a file in the environment", () => {
    assert.equal(connectionConfig({ tokenFile: "/secrets/token" }, { NATS_TOKEN: "from-env" }, undefined, FILES).token, "nats-token");
    assert.equal(connectionConfig({ token: "from-flag" }, { NATS_TOKEN_FILE: "/secrets/token" }, undefined, FILES).token, "from-flag");
  });

  test("the real file system: a file written with echo is read without its newline", () => {
    const dir = mkdtempSync(join(tmpdir(), "config-secret-"));
    try {
      writeFileSync(join(dir, "token"), "written-by-echo\n", { mode: 0o600 });
      assert.equal(connectionConfig({ tokenFile: join(dir, "token") }, {}).token, "written-by-echo");
      const e = configError(() => connectionConfig({ tokenFile: dir }, {}), /^--token-file ".*" cannot be read: EISDIR/);
      assert.ok(!e.message.includes("\n"), "one line");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a missing file is a one-line CONFIG error naming the flag or the variable, and the path", () => {
    for (const [flags, env, name] of [
      [{ user: "u", passwordFile: "/nope/pw" }, {}, "--password-file"],
      [{}, { NATS_USER: "u", NATS_PASSWORD_FILE: "/nope/pw" }, "NATS_PASSWORD_FILE"],
      [{ tokenFile: "/nope/pw" }, {}, "--token-file"],
      [{}, { NATS_TOKEN_FILE: "/nope/pw" }, "NATS_TOKEN_FILE"],
    ] as const) {
      const e = configError(() => connectionConfig(flags, env, undefined, FILES));
      assert.equal(e.message, `${name} "/nope/pw" cannot be read: ENOENT: no such file or directory, open '/nope/pw'`);
    }
    const e = configError(() => serveConfig({}, { MESH_PROVISIONER_HTTP: ":0", MESH_PROVISIONER_HTTP_TOKEN_FILE: "/nope/t" }, FILES));
    assert.match(e.message, /^MESH_PROVISIONER_HTTP_TOKEN_FILE "\/nope\/t" cannot be read: ENOENT/);
  });

  test("an empty file is refused, naming it", () => {
    configError(() => connectionConfig({ tokenFile: "/secrets/empty" }, {}, undefined, FILES), /^--token-file "\/secrets\/empty" is empty/);
  });

  test("a value and a file for one secret are refused, the value never in the message", () => {
    const cases = [
      () => connectionConfig({ user: "u", password: "pw-value", passwordFile: "/secrets/password" }, {}, undefined, FILES),
      () => connectionConfig({}, { NATS_USER: "u", NATS_PASSWORD: "pw-value", NATS_PASSWORD_FILE: "/secrets/password" }, undefined, FILES),
      () => connectionConfig({ token: "pw-value", tokenFile: "/secrets/token" }, {}, undefined, FILES),
      () => connectionConfig({}, { NATS_TOKEN: "pw-value", NATS_TOKEN_FILE: "/secrets/token" }, undefined, FILES),
      () => serveConfig({ http: ":0", httpToken: "pw-value-0123456789", httpTokenFile: "/secrets/http-token" }, {}, FILES),
      () => serveConfig({ http: ":0" }, { MESH_PROVISIONER_HTTP_TOKEN: "pw-value-0123456789", MESH_PROVISIONER_HTTP_TOKEN_FILE: "/secrets/http-token" }, FILES),
    ];
    const names = [
      "--password and --password-file",
      "NATS_PASSWORD and NATS_PASSWORD_FILE",
      "--token and --token-file",
      "NATS_TOKEN and NATS_TOKEN_FILE",
      "--http-token and --http-token-file",
      "MESH_PROVISIONER_HTTP_TOKEN and MESH_PROVISIONER_HTTP_TOKEN_FILE",
    ];
    cases.forEach((c, i) => {
      const e = configError(c, /are given: give one/);
      assert.ok(e.message.startsWith(`both ${names[i]} are given`), e.message);
      assert.ok(!e.message.includes("pw-value"), "the secret is not in the message");
    });
  });

  test("a password read from a file still needs a user", () => {
    configError(() => connectionConfig({ passwordFile: "/secrets/password" }, {}, undefined, FILES), /without a user: --password-file is set/);
  });
});
