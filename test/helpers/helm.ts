/**
 * The real helm for the chart's tests: where it is (HELM_BIN, which .ci/run
 * sets; else the version .ci/run builds into the cache; else PATH), and the
 * chart rendered with a set of values, parsed into its objects.
 */
import assert from "node:assert/strict";
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { executable, toolForTests, type Found } from "./tool.js";

// dist/test/helpers/ -> the repository's chart
export const CHART = fileURLToPath(new URL("../../../deploy/helm/mesh-provisioner/", import.meta.url));

/** The version .ci/run pins and builds (`HELM_VERSION="v…"` there, its one place). */
export const HELM_VERSION = ((): string => {
  const ciRun = fileURLToPath(new URL("../../../.ci/run", import.meta.url));
  const pinned = /^HELM_VERSION="(v[0-9][^"]*)"/m.exec(readFileSync(ciRun, "utf8"));
  if (pinned?.[1] === undefined) throw new TypeError(`${ciRun} pins no HELM_VERSION="v…" line`);
  return pinned[1];
})();

/** The helm binary to run, or why there is none. */
export function findHelm(env: NodeJS.ProcessEnv = process.env): Found {
  const named = env["HELM_BIN"];
  if (named) return executable(named) ? { bin: named } : { missing: `HELM_BIN=${named} is not an executable file` };
  const cached = join(env["XDG_CACHE_HOME"] || join(homedir(), ".cache"), "mesh-provisioner", `helm-${HELM_VERSION}`, "helm");
  if (executable(cached)) return { bin: cached };
  for (const dir of (env["PATH"] ?? "").split(delimiter)) {
    if (dir && executable(join(dir, "helm"))) return { bin: join(dir, "helm") };
  }
  return {
    missing: `helm is not installed: not at HELM_BIN, ${cached} or on PATH (build it: GOBIN=${join(cached, "..")} go install helm.sh/helm/v3/cmd/helm@${HELM_VERSION}, as .ci/run does)`,
  };
}

/**
 * helm for a test file: its path, or why the file's suites are skipped. With
 * CI=true a missing helm is not a skip but a failing test of its own, which
 * says how to install it.
 */
export function helmForTests(): { bin: string; skip: string | false } {
  return toolForTests(findHelm(), "helm", "the chart's tests must run");
}

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Run helm with these arguments. */
export function helm(bin: string, args: string[]): Ran {
  const r = spawnSync(bin, args, {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, HELM_CACHE_HOME: join(tmpdir(), "mesh-provisioner-helm-cache") },
  });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? (r.error ? String(r.error) : "") };
}

/** Run helm with a values file holding `values` (JSON is YAML) as its last argument pair. */
export function withValues(bin: string, args: string[], values: object): Ran {
  const dir = mkdtempSync(join(tmpdir(), "mesh-provisioner-values-"));
  try {
    const file = join(dir, "values.yaml");
    writeFileSync(file, JSON.stringify(values));
    return helm(bin, [...args, "--values", file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The chart's NOTES.txt as `helm install` prints it after an install, with
 * these values. `helm template` leaves NOTES out and `helm install` needs a
 * cluster, so a copy of the chart renders them into a document of its own
 * (the same text through `tpl`, with the same values and helpers).
 */
export function renderNotes(bin: string, values: object, release: string, namespace: string): string {
  const dir = mkdtempSync(join(tmpdir(), "mesh-provisioner-notes-"));
  try {
    const chart = join(dir, "chart");
    cpSync(CHART, chart, { recursive: true });
    copyFileSync(join(chart, "templates", "NOTES.txt"), join(chart, "notes.txt"));
    writeFileSync(join(chart, "templates", "zz-notes.yaml"), 'notes: {{ tpl (.Files.Get "notes.txt") . | toJson }}\n');
    const r = withValues(bin, ["template", release, chart, "--namespace", namespace, "--show-only", "templates/zz-notes.yaml"], values);
    assert.equal(r.status, 0, `the NOTES did not render:\n${r.stderr}`);
    const [doc] = parseObjects(r.stdout) as unknown as { notes: string }[];
    return doc!.notes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A Kubernetes object as rendered (its fields as the tests read them). */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
} & Record<string, any>;

/**
 * The rendered documents as objects. Parsed as YAML 1.1, as the Kubernetes
 * API's own decoder reads them (so `0440` is octal there as here).
 */
export function parseObjects(text: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(text, { version: "1.1", uniqueKeys: true })) {
    if (doc.errors.length > 0) assert.fail(`helm rendered YAML that does not parse: ${doc.errors.map((e) => e.message).join("; ")}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) objects.push(value as K8sObject);
  }
  return objects;
}
