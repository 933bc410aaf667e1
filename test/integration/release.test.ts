/**
 * `npm run release` (scripts/release.mjs) as an operator checks its folder:
 * run into a temporary folder (with --skip-build: `npm test` has just
 * built), it holds both npm packages, their CycloneDX SBOMs, the chart's
 * package, the release notes and SHA256SUMS; each file is what its name
 * says, for the version of package.json; `sha256sum -c` verifies them and
 * fails once a byte changes. And it refuses, before making anything, when
 * the versions disagree, when CHANGELOG.md has no section for the version,
 * or when the folder exists.
 *
 * It needs helm ($HELM_BIN, or the one .ci/run builds): without it the
 * folder's tests fail under CI=true and are skipped elsewhere.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { helmForTests } from "../helpers/helm.js";

// dist/test/integration/ -> the repository
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const CLIENT_PKG = JSON.parse(readFileSync(join(ROOT, "client/package.json"), "utf8"));
const VERSION: string = PKG.version;
const CHART = "deploy/helm/mesh-provisioner/Chart.yaml";

const SERVICE_TGZ = `mesh-provisioner-${VERSION}.tgz`;
const CLIENT_TGZ = `mesh-provisioner-client-${VERSION}.tgz`;
const SERVICE_SBOM = `mesh-provisioner-${VERSION}.cdx.json`;
const CLIENT_SBOM = `mesh-provisioner-client-${VERSION}.cdx.json`;
const CHART_TGZ = `mesh-provisioner-chart-${VERSION}.tgz`;
const EXPECTED = [SERVICE_TGZ, SERVICE_SBOM, CHART_TGZ, CLIENT_SBOM, CLIENT_TGZ, "RELEASE-NOTES.md", "SHA256SUMS"].sort();

// helm as the release finds it too: $HELM_BIN, the cached build .ci/run makes, or PATH. Under CI=true a missing helm is a failing test.
const { skip: noHelm } = helmForTests();

function release(root: string, ...args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [join(root, "scripts/release.mjs"), ...args], { cwd: root, encoding: "utf8", timeout: 120_000 });
}

/** One file of a gzipped tarball, as text. */
function fromTarball(tgz: string, path: string): string {
  const r = spawnSync("tar", ["-xzOf", tgz, path], { encoding: "utf8" });
  assert.equal(r.status, 0, `${path} in ${tgz}: ${r.stderr}`);
  return r.stdout;
}

const tarList = (tgz: string): string[] => spawnSync("tar", ["-tzf", tgz], { encoding: "utf8" }).stdout.trim().split("\n");

/** A top-level field of a YAML text, unquoted. */
const yamlField = (text: string, field: string): string | undefined =>
  new RegExp(`^${field}:\\s*(.*?)\\s*(#.*)?$`, "m").exec(text)?.[1]?.replace(/^(["'])(.*)\1$/, "$2");

describe("npm run release makes a folder an operator can check", { skip: noHelm, timeout: 180_000 }, () => {
  let work: string;
  let out: string;

  before(() => {
    work = mkdtempSync(join(tmpdir(), "mesh-provisioner-release-"));
    out = join(work, "out");
    const r = release(ROOT, "--skip-build", "--out", out);
    assert.equal(r.status, 0, `release failed:\n${r.stderr}`);
    assert.equal(r.stdout.trim(), out, "it prints the folder it made");
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("the folder holds both npm packages, their SBOMs, the chart's package, the notes and SHA256SUMS, none empty", () => {
    assert.deepEqual(readdirSync(out).sort(), EXPECTED);
    for (const f of EXPECTED) assert.ok(statSync(join(out, f)).size > 0, `${f} is not empty`);
  });

  test("each npm package holds its package.json at the release's version, and what it runs", () => {
    const service = JSON.parse(fromTarball(join(out, SERVICE_TGZ), "package/package.json"));
    assert.deepEqual([service.name, service.version], ["mesh-provisioner", VERSION]);
    const client = JSON.parse(fromTarball(join(out, CLIENT_TGZ), "package/package.json"));
    assert.deepEqual([client.name, client.version], ["mesh-provisioner-client", VERSION]);
    const serviceFiles = tarList(join(out, SERVICE_TGZ));
    for (const f of ["package/bin/mesh-provisioner", "package/dist/bundle/index.js"]) assert.ok(serviceFiles.includes(f), `${f} is in ${SERVICE_TGZ}`);
    const clientFiles = tarList(join(out, CLIENT_TGZ));
    for (const f of ["package/dist/src/index.js", "package/dist/src/index.d.ts"]) assert.ok(clientFiles.includes(f), `${f} is in ${CLIENT_TGZ}`);
  });

  for (const [file, pkg, type] of [
    [SERVICE_SBOM, PKG, "application"],
    [CLIENT_SBOM, CLIENT_PKG, "library"],
  ] as const) {
    test(`${file} is a CycloneDX SBOM of ${pkg.name} ${VERSION} listing its runtime dependencies and theirs`, () => {
      const bom = JSON.parse(readFileSync(join(out, file), "utf8"));
      assert.equal(bom.bomFormat, "CycloneDX");
      assert.match(bom.specVersion, /^1\.\d+$/);
      const subject = bom.metadata.component;
      assert.deepEqual([subject.name, subject.version, subject.type, subject.purl], [pkg.name, VERSION, type, `pkg:npm/${pkg.name}@${VERSION}`]);
      const refs = new Set<string>(bom.components.map((c: any) => c["bom-ref"]));
      for (const c of bom.components) assert.equal(`${c.name}@${c.version}`, c["bom-ref"], "each component is named as its package");
      const direct: string[] = bom.dependencies.find((d: any) => d.ref === subject["bom-ref"])?.dependsOn ?? [];
      for (const [name, range] of Object.entries(pkg.dependencies as Record<string, string>)) {
        assert.ok(refs.has(`${name}@${range}`), `${name}@${range} is a component`);
        assert.ok(direct.includes(`${name}@${range}`), `${pkg.name} depends on ${name}@${range}`);
      }
      for (const d of bom.dependencies) for (const on of d.dependsOn) assert.ok(refs.has(on), `${d.ref} depends on ${on}, which is listed`);
      for (const dev of Object.keys(PKG.devDependencies).filter((n) => n !== "mesh-provisioner-client"))
        assert.ok(![...refs].some((r) => r.startsWith(`${dev}@`)), `the development tool ${dev} is not in it`);
      assert.ok(!refs.has(subject["bom-ref"]), "the package is its subject, not one of its components");
    });
  }

  test("the client's SBOM is the client's alone: the NATS client and what that needs, nothing of the service", () => {
    const bom = JSON.parse(readFileSync(join(out, CLIENT_SBOM), "utf8"));
    const names = bom.components.map((c: any) => c.name).sort();
    assert.deepEqual(names, ["@nats-io/nats-core", "@nats-io/nkeys", "@nats-io/nuid", "tweetnacl"]);
    assert.ok(!bom.dependencies.some((d: any) => d.ref.startsWith("mesh-provisioner@")));
  });

  test("the chart's package holds Chart.yaml at the release's version and appVersion", () => {
    const chart = fromTarball(join(out, CHART_TGZ), "mesh-provisioner/Chart.yaml");
    assert.equal(yamlField(chart, "name"), "mesh-provisioner");
    assert.equal(yamlField(chart, "version"), VERSION);
    assert.equal(yamlField(chart, "appVersion"), VERSION);
  });

  test("RELEASE-NOTES.md is CHANGELOG.md's section for the version", () => {
    const notes = readFileSync(join(out, "RELEASE-NOTES.md"), "utf8");
    const changelog = readFileSync(join(ROOT, "CHANGELOG.md"), "utf8");
    const section = new RegExp(`^## \\[${VERSION.replace(/\./g, "\\.")}\\][^\\n]*\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, "m").exec(changelog)?.[1]?.trim();
    assert.ok(section, `CHANGELOG.md has a section for ${VERSION}`);
    assert.match(notes, new RegExp(`^# mesh-provisioner ${VERSION.replace(/\./g, "\\.")}\\b`));
    assert.ok(notes.includes(section), "the section's text is in the notes, as written");
  });

  test("sha256sum -c SHA256SUMS verifies every other file, and fails once a byte of one changes", () => {
    const sums = readFileSync(join(out, "SHA256SUMS"), "utf8");
    assert.deepEqual(
      sums
        .trim()
        .split("\n")
        .map((l) => l.replace(/^[0-9a-f]{64} {2}/, ""))
        .sort(),
      EXPECTED.filter((f) => f !== "SHA256SUMS"),
    );
    const ok = spawnSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: out, encoding: "utf8" });
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);

    const copy = join(work, "flipped");
    cpSync(out, copy, { recursive: true });
    const target = join(copy, SERVICE_TGZ);
    const bytes = readFileSync(target);
    const middle = bytes.length >> 1;
    bytes[middle] = (bytes[middle] as number) ^ 0x01;
    writeFileSync(target, bytes);
    const bad = spawnSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: copy, encoding: "utf8" });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stdout, new RegExp(`^${SERVICE_TGZ.replace(/\./g, "\\.")}: FAILED$`, "m"));
  });

  test("a second release into the same folder is refused with a one-line error, leaving it as it was", () => {
    const before = readFileSync(join(out, "SHA256SUMS"), "utf8");
    const r = release(ROOT, "--skip-build", "--out", out);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^release: .* already exists/);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.equal(readFileSync(join(out, "SHA256SUMS"), "utf8"), before);
    assert.deepEqual(readdirSync(out).sort(), EXPECTED);
  });
});

describe("npm run release refuses before making anything", () => {
  /** The files the release's checks read (.ci/run pins the helm it looks for), and its scripts, copied into a temporary tree. */
  const FILES = ["package.json", "package-lock.json", "client/package.json", "go/version.go", CHART, "CHANGELOG.md", ".ci/run"];
  let tree: string;

  before(() => {
    tree = mkdtempSync(join(tmpdir(), "mesh-provisioner-release-refusals-"));
    for (const f of FILES) {
      mkdirSync(dirname(join(tree, f)), { recursive: true });
      cpSync(join(ROOT, f), join(tree, f));
    }
    cpSync(join(ROOT, "scripts"), join(tree, "scripts"), { recursive: true });
  });
  after(() => {
    if (tree) rmSync(tree, { recursive: true, force: true });
  });

  function refused(r: SpawnSyncReturns<string>, out: string, why: RegExp): void {
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stderr.trim().split("\n").length, 1, `a one-line error: ${r.stderr}`);
    assert.match(r.stderr, why);
    assert.equal(existsSync(out), false, "no folder is made");
    assert.deepEqual(
      readdirSync(dirname(out)).filter((f) => f.includes("partial")),
      [],
      "nothing is left beside it",
    );
  }

  test("when a place that carries the version disagrees with package.json", () => {
    const file = join(tree, "client/package.json");
    const original = readFileSync(file, "utf8");
    try {
      writeFileSync(file, original.replace(`"version": "${VERSION}"`, `"version": "${VERSION}-other"`));
      const out = join(tree, "out");
      refused(
        release(tree, "--out", out),
        out,
        new RegExp(`^release: versions disagree .*client/package\\.json version is ${VERSION.replace(/\./g, "\\.")}-other`),
      );
    } finally {
      writeFileSync(file, original);
    }
  });

  test("when CHANGELOG.md has no section for the version", () => {
    const file = join(tree, "CHANGELOG.md");
    const original = readFileSync(file, "utf8");
    try {
      writeFileSync(file, original.replace(`## [${VERSION}]`, "## [99.0.0]"));
      const out = join(tree, "out");
      refused(release(tree, "--out", out), out, new RegExp(`^release: CHANGELOG\\.md has no section "## \\[${VERSION.replace(/\./g, "\\.")}\\]"`));
    } finally {
      writeFileSync(file, original);
    }
  });
});
