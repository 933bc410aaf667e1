/**
 * One version for the service, the client and the Go module: every place
 * that carries it agrees with the root package.json, and
 * scripts/set-version.mjs moves them all together. The files are read here
 * on their own terms (JSON parsed, the Go constant and the chart's fields
 * matched), not through the script's table, so a place the table forgets
 * still fails here.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// dist/test/unit/ -> the repository
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CHART = "deploy/helm/mesh-provisioner/Chart.yaml";
/** The files set-version reads and writes, and the scripts it runs from. */
const FILES = ["package.json", "package-lock.json", "client/package.json", "go/version.go", CHART, "scripts/set-version.mjs", "scripts/release/versions.mjs"];

const json = (root: string, file: string): any => JSON.parse(readFileSync(join(root, file), "utf8"));

/** A top-level field of a YAML file, its value unquoted. */
function yamlField(text: string, field: string): string | undefined {
  const m = new RegExp(`^${field}:\\s*(.*?)\\s*(#.*)?$`, "m").exec(text);
  return m?.[1]?.replace(/^(["'])(.*)\1$/, "$2");
}

/** Every place that must carry the version, as "where: value". */
function places(root: string): Record<string, string | undefined> {
  const pkg = json(root, "package.json");
  const client = json(root, "client/package.json");
  const lock = json(root, "package-lock.json");
  const goSource = readFileSync(join(root, "go/version.go"), "utf8");
  const chart = readFileSync(join(root, CHART), "utf8");
  return {
    "client/package.json version": client.version,
    "package.json devDependencies mesh-provisioner-client": pkg.devDependencies?.["mesh-provisioner-client"],
    "package-lock.json version": lock.version,
    'package-lock.json packages[""].version': lock.packages?.[""]?.version,
    'package-lock.json packages[""].devDependencies mesh-provisioner-client': lock.packages?.[""]?.devDependencies?.["mesh-provisioner-client"],
    "package-lock.json packages.client.version": lock.packages?.client?.version,
    "go/version.go Version": /^const Version = "([^"]*)"$/m.exec(goSource)?.[1],
    "Chart.yaml version": yamlField(chart, "version"),
    "Chart.yaml appVersion": yamlField(chart, "appVersion"),
  };
}

test("the client, the lock, the Go module and the chart carry the root package.json's version", () => {
  const version = json(ROOT, "package.json").version as string;
  assert.match(version, /^\d+\.\d+\.\d+/);
  const want = Object.fromEntries(Object.keys(places(ROOT)).map((k) => [k, version]));
  assert.deepEqual(places(ROOT), want, `run node scripts/set-version.mjs ${version}`);
});

test("the Go module's Version is an exported constant with a doc comment", () => {
  const source = readFileSync(join(ROOT, "go/version.go"), "utf8");
  assert.match(source, /^package provisioner$/m);
  assert.match(source, /^\/\/ Version is [^\n]*\n(\/\/[^\n]*\n)*const Version = "/m);
});

test("set-version moves every place to the new version and nothing else", () => {
  const work = mkdtempSync(join(tmpdir(), "set-version-"));
  try {
    for (const f of FILES) {
      mkdirSync(dirname(join(work, f)), { recursive: true });
      cpSync(join(ROOT, f), join(work, f));
    }
    const r = spawnSync(process.execPath, ["scripts/set-version.mjs", "9.8.7-rc.1"], { cwd: work, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(json(work, "package.json").version, "9.8.7-rc.1");
    const want = Object.fromEntries(Object.keys(places(work)).map((k) => [k, "9.8.7-rc.1"]));
    assert.deepEqual(places(work), want);
    // Each file differs from the repository's only on the lines that carry the version.
    for (const f of FILES.filter((f) => !f.startsWith("scripts/"))) {
      const before = readFileSync(join(ROOT, f), "utf8").split("\n");
      const after = readFileSync(join(work, f), "utf8").split("\n");
      assert.equal(after.length, before.length, f);
      const changed = after.filter((line, i) => line !== before[i]);
      assert.ok(changed.length > 0, `${f} changed`);
      for (const line of changed) assert.ok(line.includes("9.8.7-rc.1"), `${f}: only version lines change, not ${JSON.stringify(line)}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("set-version refuses what is not a SemVer version, and writes nothing when a place is missing", () => {
  const work = mkdtempSync(join(tmpdir(), "set-version-"));
  try {
    for (const f of FILES.filter((f) => f !== "go/version.go")) {
      mkdirSync(dirname(join(work, f)), { recursive: true });
      cpSync(join(ROOT, f), join(work, f));
    }
    const bad = spawnSync(process.execPath, ["scripts/set-version.mjs", "1.2"], { cwd: work, encoding: "utf8" });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^set-version: give one SemVer version/);
    const missing = spawnSync(process.execPath, ["scripts/set-version.mjs", "1.2.3"], { cwd: work, encoding: "utf8" });
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr.trim().split("\n").length, 1, "a one-line error");
    assert.match(missing.stderr, /go\/version\.go .* is missing/);
    assert.equal(json(work, "package.json").version, json(ROOT, "package.json").version, "package.json is left as it was");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
