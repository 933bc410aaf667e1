/**
 * The Helm chart's credentials: the NATS ones (.creds, nkey seed, user and
 * password, token, TLS files) and the dashboard's token, each a file of a
 * Secret mounted read-only and named to the service by its variable; and
 * every variable the chart hands the service is one the command line knows.
 * Rendered by the real helm; skipped without it, except in CI (CI=true).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { CHART, helmForTests, parseObjects, withValues, type K8sObject } from "../helpers/helm.js";
import { checkEveryObject, checkPod, envOf, NAMESPACE, only, RELEASE, testPod, type MountedFile } from "./chart-checks.js";

const { bin, skip } = helmForTests();
// dist/test/deploy/ -> the repository's bin/
const BIN = fileURLToPath(new URL("../../../bin/mesh-provisioner", import.meta.url));

interface Rendered {
  objects: K8sObject[];
  /** The files the service's container reads by path, and the test pod's. */
  service: MountedFile[];
  test: MountedFile[];
}
function render(values: object, existingSecrets: string[] = []): Rendered {
  const r = withValues(bin, ["template", RELEASE, CHART, "--namespace", NAMESPACE], values);
  assert.equal(r.status, 0, `helm template failed:\n${r.stderr}`);
  const objects = parseObjects(r.stdout);
  checkEveryObject(objects, existingSecrets);
  return {
    objects,
    service: checkPod(only(objects, "Deployment").spec.template.spec, "Deployment"),
    test: checkPod(testPod(objects).spec, "test pod"),
  };
}
const secretData = (objects: K8sObject[], name: string): Record<string, string> =>
  Object.fromEntries(
    Object.entries(
      only(
        objects.filter((o) => o.metadata.name === name),
        "Secret",
      ).data,
    ).map(([k, v]) => [k, Buffer.from(String(v), "base64").toString()]),
  );
const fileOf = (f: MountedFile): [string, string, string, string] => [f.env, f.path, f.secretName, f.key];

/** Each way to authenticate: the variable naming its file, the Secret's key by default, the file's name, and a content. */
const AUTH = [
  {
    type: "creds",
    env: "NATS_CREDS",
    key: "creds",
    file: "user.creds",
    content: "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1Qi.creds-test\n------END NATS USER JWT------\n",
  },
  { type: "nkey", env: "NATS_NKEY", key: "nkey", file: "user.nk", content: "SU-not-a-real-seed-for-the-chart-test" },
  { type: "userPassword", env: "NATS_PASSWORD_FILE", key: "password", file: "password", content: "correct horse battery staple" },
  { type: "token", env: "NATS_TOKEN_FILE", key: "token", file: "token", content: "a-bus-token-for-the-test" },
];
const AUTH_VARIABLES = ["NATS_CREDS", "NATS_NKEY", "NATS_USER", "NATS_PASSWORD", "NATS_PASSWORD_FILE", "NATS_TOKEN", "NATS_TOKEN_FILE"];
const userOf = (type: string): object => (type === "userPassword" ? { user: "provisioner" } : {});

describe("the Helm chart's credentials, rendered by the real helm", { skip }, () => {
  test("each kind from an existing Secret: one variable names one read-only file of it, in the service and in the test pod alike", () => {
    for (const a of AUTH) {
      const {
        objects,
        service,
        test: t,
      } = render({ nats: { auth: { type: a.type, existingSecret: "provisioner-auth", ...userOf(a.type) } } }, ["provisioner-auth"]);
      assert.equal(objects.filter((o) => o.kind === "Secret").length, 0, `${a.type}: the chart makes no Secret of its own`);
      const expected = [[a.env, `/etc/mesh-provisioner/nats/${a.file}`, "provisioner-auth", a.key]];
      assert.deepEqual(service.map(fileOf), expected, a.type);
      assert.deepEqual(t.map(fileOf), expected, `${a.type}: the test pod`);
      const env = envOf(only(objects, "Deployment").spec.template.spec);
      const auth = AUTH_VARIABLES.filter((v) => env.has(v));
      assert.deepEqual(auth, a.type === "userPassword" ? ["NATS_USER", a.env] : [a.env], `${a.type}: no other credential variable`);
      if (a.type === "userPassword") assert.equal(env.get("NATS_USER"), "provisioner");
    }
  });

  test("secretKey names the key of an existing Secret", () => {
    const { service } = render({ nats: { auth: { type: "nkey", existingSecret: "seeds", secretKey: "provisioner.nk" } } }, ["seeds"]);
    assert.deepEqual(service.map(fileOf), [["NATS_NKEY", "/etc/mesh-provisioner/nats/user.nk", "seeds", "provisioner.nk"]]);
  });

  test("each kind from values: the chart makes the Secret, and the secret is in nothing else it renders", () => {
    for (const a of AUTH) {
      const { objects, service } = render({ nats: { auth: { type: a.type, content: a.content, ...userOf(a.type) } } });
      const [file] = service;
      assert.ok(file, a.type);
      assert.deepEqual(secretData(objects, file.secretName), { [a.key]: a.content }, `${a.type}: the Secret holds the content under its key`);
      for (const o of objects.filter((x) => x.kind !== "Secret")) {
        const text = JSON.stringify(o);
        assert.ok(!text.includes(a.content) && !text.includes(Buffer.from(a.content).toString("base64")), `${a.type}: ${o.kind} carries the secret`);
      }
    }
  });

  test("TLS: the CA, the client certificate and its key from a cert-manager style Secret, or from values", () => {
    const tls = (values: object, existing: string[] = []) => render({ nats: { tls: { enabled: true, ...values } } }, existing);
    const both = tls({ existingSecret: "nats-client-tls", useClientCertificate: true }, ["nats-client-tls"]);
    assert.deepEqual(both.service.map(fileOf), [
      ["NATS_CA", "/etc/mesh-provisioner/tls/ca.crt", "nats-client-tls", "ca.crt"],
      ["NATS_CERT", "/etc/mesh-provisioner/tls/tls.crt", "nats-client-tls", "tls.crt"],
      ["NATS_KEY", "/etc/mesh-provisioner/tls/tls.key", "nats-client-tls", "tls.key"],
    ]);
    assert.deepEqual(both.test.map(fileOf), both.service.map(fileOf), "the test pod connects the same way");
    const caOnly = tls({ existingSecret: "nats-ca", keys: { ca: "root.pem" } }, ["nats-ca"]);
    assert.deepEqual(caOnly.service.map(fileOf), [["NATS_CA", "/etc/mesh-provisioner/tls/ca.crt", "nats-ca", "root.pem"]]);
    const clientOnly = tls({ existingSecret: "client", useCA: false, useClientCertificate: true }, ["client"]);
    assert.deepEqual(
      clientOnly.service.map((f) => f.env),
      ["NATS_CERT", "NATS_KEY"],
    );
    const pem = { ca: "-----BEGIN CERTIFICATE-----\nCA\n", cert: "-----BEGIN CERTIFICATE-----\nME\n", key: "-----BEGIN PRIVATE KEY-----\nK\n" };
    const made = tls({ useClientCertificate: true, ...pem });
    assert.deepEqual(secretData(made.objects, made.service[0]!.secretName), { "ca.crt": pem.ca, "tls.crt": pem.cert, "tls.key": pem.key });
  });

  test("the dashboard's token: a file for the service only, never in the test pod, and no variable without one", () => {
    const existing = render({ http: { token: { existingSecret: "dashboard", secretKey: "bearer" } } }, ["dashboard"]);
    assert.deepEqual(existing.service.map(fileOf), [["MESH_PROVISIONER_HTTP_TOKEN_FILE", "/etc/mesh-provisioner/http/token", "dashboard", "bearer"]]);
    assert.deepEqual(existing.test, []);
    assert.ok(!envOf(testPod(existing.objects).spec).has("MESH_PROVISIONER_HTTP_TOKEN_FILE"));
    const token = "0123456789abcdef-dashboard";
    const made = render({ http: { token: { value: token } } });
    assert.deepEqual(secretData(made.objects, made.service[0]!.secretName), { token });
    assert.ok(!JSON.stringify(only(made.objects, "Deployment")).includes(token));
    const none = render({});
    assert.deepEqual(none.service, []);
    assert.ok(![...envOf(only(none.objects, "Deployment").spec.template.spec).keys()].some((k) => k.includes("TOKEN")));
  });

  test("everything at once: creds, TLS and the dashboard's token, each in its own read-only directory", () => {
    const { service } = render(
      {
        nats: { auth: { type: "creds", existingSecret: "c" }, tls: { enabled: true, existingSecret: "t", useClientCertificate: true } },
        http: { token: { existingSecret: "h" } },
      },
      ["c", "t", "h"],
    );
    assert.deepEqual(service.map((f) => f.env).sort(), ["MESH_PROVISIONER_HTTP_TOKEN_FILE", "NATS_CA", "NATS_CERT", "NATS_CREDS", "NATS_KEY"]);
    assert.equal(new Set(service.map((f) => f.volume)).size, 3);
  });

  test("every variable the chart hands the service is one `serve --help` names, and the test pod's one `query --help` names", () => {
    const help = (cmd: string): string => {
      const r = spawnSync(process.execPath, [BIN, cmd, "--help"], { encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout;
    };
    const serveHelp = help("serve");
    const queryHelp = help("query");
    const config = { registryInterval: "1h", seatTtl: "10s", bucketReplicas: 1, maxWait: "5s", driftDelay: "250ms", maxValueBytes: "64KiB" };
    const more = {
      bucketMaxBytes: "1GiB",
      floodKeys: 10000,
      floodBytes: "16MiB",
      checkpointEvery: "5m",
      checkpointMaxBytes: "1GiB",
      logLevel: "info",
      heapGrowing: 300,
    };
    const sets: object[] = [
      {
        nats: { inboxPrefix: "_INBOX_mp", jsDomain: "hub", tls: { enabled: true, existingSecret: "t", useClientCertificate: true } },
        config: { ...config, ...more },
      },
      { http: { token: { existingSecret: "h" } } },
      ...AUTH.map((a) => ({ nats: { auth: { type: a.type, existingSecret: "a", ...userOf(a.type) } } })),
    ];
    for (const values of sets) {
      const { objects } = render(values, ["a", "t", "h"]);
      for (const name of envOf(only(objects, "Deployment").spec.template.spec).keys()) {
        assert.ok(new RegExp(`\\b${name}\\b`).test(serveHelp), `serve --help does not name ${name}`);
      }
      for (const name of envOf(testPod(objects).spec).keys()) {
        assert.ok(new RegExp(`\\b${name}\\b`).test(queryHelp), `query --help does not name ${name}`);
      }
    }
  });
});
