/**
 * What holds of every object the chart renders, whatever the values: checked
 * on each render of the chart's tests (test/deploy/helm-*.test.ts).
 */
import assert from "node:assert/strict";
import type { K8sObject } from "../helpers/helm.js";

export const NAMESPACE = "mesh";
export const RELEASE = "mp";
/** Where the chart mounts the secrets it reads by path. */
export const SECRET_ROOT = "/etc/mesh-provisioner/";

/** The paths of the fields that render as nothing: null, "", {} or [] (a chart can lint clean and render an empty field). */
export function emptyFields(value: unknown, path = ""): string[] {
  if (value === null || value === undefined || value === "") return [path];
  if (Array.isArray(value)) return value.length === 0 ? [path] : value.flatMap((v, i) => emptyFields(v, `${path}[${i}]`));
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    return entries.length === 0 ? [path] : entries.flatMap(([k, v]) => emptyFields(v, `${path}.${k}`));
  }
  return [];
}

/** Whether a selector (matchLabels) picks an object with these labels. */
export function selects(selector: Record<string, string>, labels: Record<string, string> = {}): boolean {
  const pairs = Object.entries(selector);
  return pairs.length > 0 && pairs.every(([k, v]) => labels[k] === v);
}

export function only(objects: K8sObject[], kind: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind);
  assert.equal(found.length, 1, `exactly one ${kind} expected, rendered: ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(", ")}`);
  return found[0]!;
}

export function none(objects: K8sObject[], kind: string): void {
  assert.deepEqual(
    objects.filter((o) => o.kind === kind).map((o) => o.metadata.name),
    [],
    `no ${kind} expected`,
  );
}

/** The test hook's pod. */
export function testPod(objects: K8sObject[]): K8sObject {
  const pods = objects.filter((o) => o.kind === "Pod" && o.metadata.annotations?.["helm.sh/hook"] === "test");
  assert.equal(pods.length, 1, "one pod with the helm.sh/hook: test annotation");
  return pods[0]!;
}

/** A pod spec's environment as name -> value (a check of its own makes sure each has one). */
export function envOf(spec: any): Map<string, string> {
  return new Map((spec.containers[0].env ?? []).map((e: any) => [e.name, e.value]));
}

/** The file each path-valued environment variable names: the Secret and key behind it. */
export interface MountedFile {
  env: string;
  path: string;
  volume: string;
  secretName: string;
  key: string;
}

/**
 * A pod's container runs restricted, reads every secret by a path that a
 * read-only Secret volume provides (never by subPath, which the kubelet
 * does not refresh when the Secret changes), and each mounted file is named
 * by a variable. Returns those files.
 */
export function checkPod(spec: any, where: string): MountedFile[] {
  const pod = spec.securityContext;
  assert.equal(pod?.runAsNonRoot, true, `${where}: pod runAsNonRoot`);
  assert.equal(pod?.runAsUser, 10001, `${where}: pod runAsUser`);
  assert.equal(pod?.seccompProfile?.type, "RuntimeDefault", `${where}: pod seccompProfile`);
  assert.equal(spec.containers.length, 1, `${where}: one container`);
  const c = spec.containers[0];
  const sc = c.securityContext;
  assert.equal(sc?.allowPrivilegeEscalation, false, `${where}: allowPrivilegeEscalation`);
  assert.equal(sc?.readOnlyRootFilesystem, true, `${where}: readOnlyRootFilesystem`);
  assert.equal(sc?.runAsNonRoot, true, `${where}: container runAsNonRoot`);
  assert.equal(sc?.runAsUser, 10001, `${where}: container runAsUser`);
  assert.deepEqual(sc?.capabilities?.drop, ["ALL"], `${where}: capabilities dropped`);
  assert.equal(sc?.capabilities?.add, undefined, `${where}: no capability added`);
  assert.equal(sc?.seccompProfile?.type, "RuntimeDefault", `${where}: container seccompProfile`);
  assert.equal(spec.automountServiceAccountToken, false, `${where}: no API token mounted`);

  const names = (c.env ?? []).map((e: any) => e.name);
  assert.deepEqual(names, [...new Set(names)], `${where}: each variable once`);
  for (const e of c.env ?? []) assert.ok(typeof e.value === "string" && e.value !== "", `${where}: ${e.name} has a value`);

  const volumes = new Map<string, any>((spec.volumes ?? []).map((v: any) => [v.name, v]));
  const mounts: any[] = c.volumeMounts ?? [];
  for (const m of mounts) {
    assert.ok(volumes.has(m.name), `${where}: mount ${m.name} names a volume`);
    assert.equal(m.subPath, undefined, `${where}: ${m.name} is mounted whole, not by subPath`);
  }
  const tmp = mounts.find((m) => m.mountPath === "/tmp");
  assert.ok(tmp && volumes.get(tmp.name)?.emptyDir, `${where}: /tmp is a writable emptyDir (the root is read-only)`);

  const files = new Map<string, Omit<MountedFile, "env">>();
  for (const m of mounts) {
    const secret = volumes.get(m.name).secret;
    if (!secret) continue;
    assert.equal(m.readOnly, true, `${where}: ${m.name} at ${m.mountPath} is read-only`);
    assert.ok(m.mountPath.startsWith(SECRET_ROOT), `${where}: ${m.name} under ${SECRET_ROOT}`);
    assert.equal(secret.defaultMode, 0o440, `${where}: ${m.name}'s files are readable by the pod's group only`);
    assert.ok(secret.items?.length > 0, `${where}: ${m.name} names the keys it mounts`);
    for (const item of secret.items) {
      files.set(`${m.mountPath}/${item.path}`, { path: `${m.mountPath}/${item.path}`, volume: m.name, secretName: secret.secretName, key: item.key });
    }
  }
  const named: MountedFile[] = [];
  for (const e of c.env ?? []) {
    if (!String(e.value).startsWith(SECRET_ROOT)) continue;
    const file = files.get(e.value);
    assert.ok(file, `${where}: ${e.name}=${e.value} is a file a read-only Secret volume provides (mounted: ${[...files.keys()].join(", ") || "none"})`);
    named.push({ env: e.name, ...file });
  }
  const unnamed = [...files.keys()].filter((p) => !named.some((f) => f.path === p));
  assert.deepEqual(unnamed, [], `${where}: every mounted secret file is named by a variable`);
  return named;
}

/**
 * Every object: named, namespaced, labelled, nothing rendered empty; the pods
 * checked; every selector picks the service's pods and never the test pod;
 * each Secret a pod reads is rendered with its key, or is one the values name.
 */
export function checkEveryObject(objects: K8sObject[], existingSecrets: string[] = []): void {
  assert.ok(objects.length > 0, "the chart rendered objects");
  for (const o of objects) {
    const id = `${o.kind}/${o.metadata?.name}`;
    assert.ok(o.apiVersion && o.kind, `${id}: apiVersion and kind`);
    assert.match(o.metadata.name, /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, `${id}: a DNS label for a name`);
    assert.equal(o.metadata.namespace, NAMESPACE, `${id}: in the release's namespace`);
    for (const l of ["app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version", "app.kubernetes.io/managed-by", "helm.sh/chart"]) {
      assert.ok(o.metadata.labels?.[l], `${id}: label ${l}`);
    }
    assert.deepEqual(emptyFields(o), [], `${id}: fields rendered empty`);
  }
  const deployment = only(objects, "Deployment");
  const pod = deployment.spec.template;
  const test = testPod(objects);
  const readers = [...checkPod(pod.spec, "Deployment"), ...checkPod(test.spec, "test pod")];

  assert.ok(selects(deployment.spec.selector.matchLabels, pod.metadata.labels), "the Deployment's selector picks its own pods");
  assert.ok(!selects(deployment.spec.selector.matchLabels, test.metadata.labels), "the Deployment's selector leaves the test pod out");
  const service = only(objects, "Service");
  assert.ok(selects(service.spec.selector, pod.metadata.labels), "the Service selects the pods");
  assert.ok(!selects(service.spec.selector, test.metadata.labels), "the Service leaves the test pod out");
  for (const pdb of objects.filter((o) => o.kind === "PodDisruptionBudget")) {
    assert.ok(selects(pdb.spec.selector.matchLabels, pod.metadata.labels), "the budget covers the pods");
    assert.ok(!selects(pdb.spec.selector.matchLabels, test.metadata.labels), "the budget leaves the test pod out");
  }
  for (const t of pod.spec.topologySpreadConstraints ?? []) {
    assert.ok(selects(t.labelSelector.matchLabels, pod.metadata.labels), "the spread counts the pods");
  }
  for (const sm of objects.filter((o) => o.kind === "ServiceMonitor")) {
    assert.ok(selects(sm.spec.selector.matchLabels, service.metadata.labels), "the ServiceMonitor selects the Service");
  }

  const secrets = new Map(objects.filter((o) => o.kind === "Secret").map((s) => [s.metadata.name, s]));
  for (const f of readers) {
    const made = secrets.get(f.secretName);
    if (made) assert.ok(made.data?.[f.key], `${f.env}: Secret ${f.secretName} has the key ${f.key}`);
    else assert.ok(existingSecrets.includes(f.secretName), `${f.env}: Secret ${f.secretName} is neither rendered nor one the values name`);
  }
}
