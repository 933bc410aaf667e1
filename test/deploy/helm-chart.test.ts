/**
 * The Helm chart (deploy/helm/mesh-provisioner), linted and rendered by the
 * real helm with several value sets, each rendered object parsed and checked:
 * what every render must hold is in chart-checks.ts, what each value set
 * changes is here. Without helm the tests are skipped, except in CI
 * (CI=true), where a missing helm fails them.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { CHART, helmForTests, parseObjects, renderNotes, withValues, type K8sObject } from "../helpers/helm.js";
import { checkEveryObject, envOf, NAMESPACE, none, only, RELEASE, testPod } from "./chart-checks.js";

const { bin, skip } = helmForTests();

const APP_VERSION = String((parse(readFileSync(join(CHART, "Chart.yaml"), "utf8")) as { appVersion: unknown }).appVersion);

function render(values: object, existingSecrets: string[] = []): K8sObject[] {
  const r = withValues(bin, ["template", RELEASE, CHART, "--namespace", NAMESPACE], values);
  assert.equal(r.status, 0, `helm template failed:\n${r.stderr}`);
  const objects = parseObjects(r.stdout);
  checkEveryObject(objects, existingSecrets);
  return objects;
}
const deploymentOf = (objects: K8sObject[]): any => only(objects, "Deployment");
const containerOf = (objects: K8sObject[]): any => deploymentOf(objects).spec.template.spec.containers[0];

/** Value sets that must install: each also checked by `helm lint --strict`. */
const CREDS = { nats: { url: "nats://nats.mesh.svc:4222", auth: { type: "creds", existingSecret: "provisioner-creds" } } };
const USER_PASSWORD = { nats: { auth: { type: "userPassword", user: "provisioner", content: "correct horse battery staple" } } };
const TLS = { nats: { tls: { enabled: true, existingSecret: "nats-client-tls", useCA: true, useClientCertificate: true } } };
const ONE = { replicaCount: 1 };
const MONITORED = { metrics: { serviceMonitor: { enabled: true, labels: { release: "kube-prometheus-stack" } } } };

describe("the Helm chart, rendered by the real helm", { skip }, () => {
  test("helm lint --strict passes with the defaults and with each value set below", () => {
    for (const values of [{}, CREDS, USER_PASSWORD, TLS, ONE, MONITORED]) {
      const r = withValues(bin, ["lint", "--strict", CHART], values);
      assert.equal(r.status, 0, `helm lint --strict with ${JSON.stringify(values)}:\n${r.stdout}${r.stderr}`);
      assert.match(r.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  test("the defaults: two instances rolled one at a time with none unavailable, a budget, a Service, a test pod, and no Secret", () => {
    const objects = render({});
    assert.deepEqual(objects.map((o) => o.kind).sort(), ["Deployment", "Pod", "PodDisruptionBudget", "Service"]);
    const d = deploymentOf(objects);
    assert.equal(d.spec.replicas, 2);
    assert.deepEqual(d.spec.strategy, { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    assert.equal(only(objects, "PodDisruptionBudget").spec.minAvailable, 1);
    assert.equal(only(objects, "PodDisruptionBudget").spec.maxUnavailable, undefined);
    const c = containerOf(objects);
    assert.equal(c.image, `mesh-provisioner:${APP_VERSION}`, "the image's tag defaults to the chart's appVersion");
    assert.deepEqual(c.args, ["serve"]);
    assert.equal(c.command, undefined, "the image's entrypoint runs, so SIGTERM reaches the service");
    assert.deepEqual(
      [...envOf(d.spec.template.spec)],
      [
        ["NATS_URL", "nats://nats:4222"],
        ["MESH_PROVISIONER_HTTP", "0.0.0.0:8080"],
      ],
    );
    assert.deepEqual(c.ports, [{ name: "http", containerPort: 8080, protocol: "TCP" }]);
    assert.deepEqual(only(objects, "Service").spec.ports, [{ name: "http", port: 8080, targetPort: "http", protocol: "TCP" }]);
  });

  test("the probes: liveness asks /healthz, readiness and the first sync /readyz, on the http port, with ten minutes for the first sync", () => {
    const c = containerOf(render({}));
    assert.deepEqual(c.livenessProbe.httpGet, { path: "/healthz", port: "http" });
    assert.deepEqual(c.readinessProbe.httpGet, { path: "/readyz", port: "http" });
    assert.deepEqual(c.startupProbe.httpGet, { path: "/readyz", port: "http" });
    assert.ok(c.startupProbe.failureThreshold * c.startupProbe.periodSeconds >= 600, "a first sync of 1M needs under load has 10 minutes");
    assert.ok(c.livenessProbe.failureThreshold * c.livenessProbe.periodSeconds >= 30, "a busy moment does not restart a live process");
    const longer = containerOf(render({ probes: { startup: { periodSeconds: 10, failureThreshold: 360, timeoutSeconds: 3 } } }));
    assert.deepEqual([longer.startupProbe.periodSeconds, longer.startupProbe.failureThreshold], [10, 360]);
  });

  test("the pods stop within a grace longer than the service's own stop, with requests and a memory limit, spread over nodes", () => {
    const d = deploymentOf(render({}));
    const spec = d.spec.template.spec;
    assert.equal(spec.terminationGracePeriodSeconds, 45, "the service's stop is bounded well below this (docs/operations.md)");
    assert.equal(deploymentOf(render({ terminationGracePeriodSeconds: 90 })).spec.template.spec.terminationGracePeriodSeconds, 90);
    const r = spec.containers[0].resources;
    assert.ok(r.requests.cpu && r.requests.memory && r.limits.memory, JSON.stringify(r));
    assert.equal(r.limits.cpu, undefined, "no CPU limit throttles a first sync");
    assert.deepEqual(
      spec.topologySpreadConstraints.map((t: any) => [t.topologyKey, t.maxSkew, t.whenUnsatisfiable]),
      [["kubernetes.io/hostname", 1, "ScheduleAnyway"]],
    );
  });

  test("the test pod asks the verb with query registry, with the service's image, connection and credentials", () => {
    for (const values of [{}, CREDS, USER_PASSWORD, TLS]) {
      const objects = render(values, ["provisioner-creds", "nats-client-tls"]);
      const pod = testPod(objects);
      assert.equal(pod.metadata.annotations!["helm.sh/hook"], "test");
      assert.equal(pod.spec.restartPolicy, "Never", "a failed ask fails the test rather than being retried");
      const c = pod.spec.containers[0];
      assert.deepEqual(c.args.slice(0, 2), ["query", "registry"]);
      assert.equal(c.image, containerOf(objects).image);
      const serviceEnv = [...envOf(deploymentOf(objects).spec.template.spec)].filter(([k]) => k.startsWith("NATS_"));
      // No inbox prefix of its own: `query`'s default, the operator's, is one the service's grant receives on too.
      assert.deepEqual([...envOf(pod.spec)], serviceEnv, "the same NATS_* variables, so the same files, and nothing else");
      assert.equal(envOf(pod.spec).has("NATS_INBOX_PREFIX"), false);
      assert.deepEqual(
        c.volumeMounts.filter((m: any) => m.name.startsWith("nats-")),
        containerOf(objects).volumeMounts.filter((m: any) => m.name.startsWith("nats-")),
      );
    }
  });

  test("a JetStream domain reaches the service and the test pod as NATS_JS_DOMAIN, and nothing names one by default", () => {
    const objects = render({ nats: { jsDomain: "hub" } });
    assert.equal(envOf(deploymentOf(objects).spec.template.spec).get("NATS_JS_DOMAIN"), "hub");
    assert.equal(envOf(testPod(objects).spec).get("NATS_JS_DOMAIN"), "hub");
    assert.equal(envOf(deploymentOf(render({})).spec.template.spec).has("NATS_JS_DOMAIN"), false);
  });

  test("seat.enabled false: the instances run with MESH_PROVISIONER_NO_SEAT=true, the NOTES say so; by default nothing names it", () => {
    const objects = render({ seat: { enabled: false }, nats: { jsDomain: "hub" } });
    const env = envOf(deploymentOf(objects).spec.template.spec);
    assert.equal(env.get("MESH_PROVISIONER_NO_SEAT"), "true");
    assert.equal(env.get("NATS_JS_DOMAIN"), "hub");
    assert.equal(envOf(testPod(objects).spec).has("MESH_PROVISIONER_NO_SEAT"), false, "the test pod only asks");
    assert.equal(envOf(deploymentOf(render({})).spec.template.spec).has("MESH_PROVISIONER_NO_SEAT"), false);
    assert.equal(envOf(deploymentOf(render({ seat: { enabled: true } })).spec.template.spec).has("MESH_PROVISIONER_NO_SEAT"), false);
    const notes = renderNotes(bin, { seat: { enabled: false }, replicaCount: 1 }, RELEASE, NAMESPACE);
    assert.match(notes, /seat\.enabled is false: these instances never take the seat/);
    assert.doesNotMatch(notes, /One instance: no standby/, "no seat, no standby to miss");
    const lint = withValues(bin, ["lint", "--strict", CHART], { seat: { enabled: false } });
    assert.equal(lint.status, 0, lint.stdout + lint.stderr);
  });

  test("one replica: no budget (it would block every drain); maxUnavailable replaces minAvailable when set", () => {
    const objects = render(ONE);
    assert.equal(deploymentOf(objects).spec.replicas, 1);
    none(objects, "PodDisruptionBudget");
    const pdb = only(render({ podDisruptionBudget: { maxUnavailable: 1 } }), "PodDisruptionBudget");
    assert.deepEqual([pdb.spec.maxUnavailable, pdb.spec.minAvailable], [1, undefined]);
    none(render({ podDisruptionBudget: { enabled: false } }), "PodDisruptionBudget");
    const evicting = only(render({ podDisruptionBudget: { unhealthyPodEvictionPolicy: "AlwaysAllow" } }), "PodDisruptionBudget");
    assert.equal(evicting.spec.unhealthyPodEvictionPolicy, "AlwaysAllow");
  });

  test("serviceMonitor on: a monitoring.coreos.com/v1 ServiceMonitor scraping /metrics on the http port of this release's Service", () => {
    const objects = render(MONITORED);
    const sm = only(objects, "ServiceMonitor");
    assert.equal(sm.apiVersion, "monitoring.coreos.com/v1");
    assert.equal(sm.metadata.labels!["release"], "kube-prometheus-stack");
    assert.deepEqual(sm.spec.namespaceSelector, { matchNames: [NAMESPACE] });
    assert.deepEqual(sm.spec.endpoints, [{ port: "http", path: "/metrics", interval: "30s", scrapeTimeout: "10s" }]);
    none(render({}), "ServiceMonitor");
  });

  test("the NOTES say how to ask the service: rollout status, query registry in a pod, helm test, the dashboard's port-forward", () => {
    const notes = renderNotes(bin, {}, RELEASE, NAMESPACE);
    const name = deploymentOf(render({})).metadata.name;
    for (const line of [
      `kubectl -n ${NAMESPACE} rollout status deployment/${name}`,
      `kubectl -n ${NAMESPACE} exec deployment/${name} -- \\\n    node /app/bin/mesh-provisioner query registry\n`,
      "mesh-provisioner query registry --server nats://nats:4222",
      `helm test ${RELEASE} -n ${NAMESPACE}`,
      `kubectl -n ${NAMESPACE} port-forward service/${name} 8080:8080`,
    ]) {
      assert.ok(notes.includes(line), `the NOTES hold: ${line}\n---\n${notes}`);
    }
    assert.match(notes, /No http\.token is set/, "a dashboard without a token is pointed out");
    assert.doesNotMatch(notes, /One instance/);
    const one = renderNotes(bin, { replicaCount: 1, http: { token: { existingSecret: "dashboard" } } }, RELEASE, NAMESPACE);
    assert.match(one, /One instance: no standby/);
    assert.doesNotMatch(one, /No http\.token is set/);
    assert.match(one, /bearer token of Secret dashboard, key token/);
  });

  test("the image by tag, or by digest", () => {
    assert.equal(containerOf(render({ image: { repository: "registry.example/mp", tag: "9.9.9" } })).image, "registry.example/mp:9.9.9");
    const digest = `sha256:${"ab".repeat(32)}`;
    assert.equal(containerOf(render({ image: { repository: "registry.example/mp", digest } })).image, `registry.example/mp@${digest}`);
  });

  test("a ServiceAccount only on request, and the service's settings as their MESH_PROVISIONER_<FLAG> twins", () => {
    none(render({}), "ServiceAccount");
    const withAccount = render({ serviceAccount: { create: true } });
    assert.equal(deploymentOf(withAccount).spec.template.spec.serviceAccountName, only(withAccount, "ServiceAccount").metadata.name);
    // Each value, the serve flag it stands for: the twin is the flag upper-cased, dashes to underscores.
    const settings: Record<string, [string, string | number]> = {
      registryInterval: ["--registry-interval", "30m"],
      seatTtl: ["--seat-ttl", "5s"],
      bucketReplicas: ["--replicas", 3],
      maxWait: ["--max-wait", "2s"],
      driftDelay: ["--drift-delay", "500ms"],
      maxValueBytes: ["--max-value-bytes", "32KiB"],
      bucketMaxBytes: ["--bucket-max-bytes", "2GiB"],
      floodKeys: ["--flood-keys", 20000],
      floodBytes: ["--flood-bytes", "32MiB"],
      checkpointEvery: ["--checkpoint-every", "0"],
      checkpointMaxBytes: ["--checkpoint-max-bytes", "2GiB"],
      logLevel: ["--log-level", "debug"],
      heapGrowing: ["--heap-growing", 0],
    };
    const config = Object.fromEntries(Object.entries(settings).map(([k, [, v]]) => [k, v]));
    const env = envOf(deploymentOf(render({ config })).spec.template.spec);
    for (const [, [flag, value]] of Object.entries(settings)) {
      const twin = `MESH_PROVISIONER_${flag.slice(2).toUpperCase().replace(/-/g, "_")}`;
      assert.equal(env.get(twin), String(value), twin);
    }
    assert.equal(
      [...env.keys()].filter((k) => k.startsWith("MESH_PROVISIONER_")).length,
      Object.keys(settings).length + 1,
      "the twins and MESH_PROVISIONER_HTTP",
    );
  });
});

describe("the Helm chart refuses values it cannot honour", { skip }, () => {
  // Each value set, and what helm's message must name: values.schema.json's field, or the template's own check.
  const refused: [string, object, string][] = [
    ["no instance", { replicaCount: 0 }, "/replicaCount"],
    ["a misspelt key", { replicas: 3 }, "additional properties 'replicas'"],
    ["an unknown auth type", { nats: { auth: { type: "password" } } }, "/nats/auth/type"],
    ["a duration the service cannot parse", { config: { seatTtl: "10 seconds" } }, "/config/seatTtl"],
    ["bucket replicas above 5", { config: { bucketReplicas: 7 } }, "/config/bucketReplicas"],
    ["a dashboard token under 16 characters", { http: { token: { value: "short" } } }, "/http/token/value"],
    ["a probe that never waits", { probes: { startup: { periodSeconds: 0 } } }, "/probes/startup/periodSeconds"],
    ["a pull policy Kubernetes does not know", { image: { pullPolicy: "Sometimes" } }, "/image/pullPolicy"],
    ["a pod label that would change the selector", { podLabels: { "app.kubernetes.io/component": "x" } }, "app.kubernetes.io/component"],
    ["credentials without a Secret", { nats: { auth: { type: "creds" } } }, "nats.auth.existingSecret"],
    ["a password without its user", { nats: { auth: { type: "userPassword", content: "pw" } } }, "nats.auth.user"],
    ["TLS without a CA", { nats: { tls: { enabled: true } } }, "nats.tls.ca"],
    ["a Secret named twice", { nats: { auth: { type: "nkey", existingSecret: "s", content: "SU…" } } }, "not both"],
    ["a JetStream domain of several tokens", { nats: { jsDomain: "hub.eu" } }, "/nats/jsDomain"],
    ["a seat that is not a boolean", { seat: { enabled: "no" } }, "/seat/enabled"],
  ];
  for (const [what, values, named] of refused) {
    test(`refused: ${what}`, () => {
      const r = withValues(bin, ["template", RELEASE, CHART, "--namespace", NAMESPACE], values);
      assert.notEqual(r.status, 0, `helm template accepted ${JSON.stringify(values)}`);
      assert.ok(r.stderr.includes(named), `the message names ${named}:\n${r.stderr}`);
      assert.equal(r.stdout.trim(), "", "nothing rendered");
    });
  }

  test("helm lint --strict fails on a refused value too", () => {
    const r = withValues(bin, ["lint", "--strict", CHART], { replicaCount: 0 });
    assert.notEqual(r.status, 0, r.stdout);
    assert.ok(r.stdout.includes("/replicaCount") || r.stderr.includes("/replicaCount"), r.stdout + r.stderr);
  });
});
