/**
 * Makes a release: one folder holding everything an operator checks.
 *
 *   npm run release [-- --out DIR] [-- --skip-build]
 *
 * In release/<version>/ (or DIR), for the version of the root package.json:
 *
 *   mesh-provisioner-<v>.tgz               the service's npm package (npm pack)
 *   mesh-provisioner-<v>.cdx.json          its SBOM (npm sbom, CycloneDX, runtime dependencies)
 *   mesh-provisioner-client-<v>.tgz        the client's npm package (npm pack -w)
 *   mesh-provisioner-client-<v>.cdx.json   its SBOM
 *   mesh-provisioner-chart-<v>.tgz         the Helm chart's package (helm package)
 *   RELEASE-NOTES.md                       CHANGELOG.md's section for the version
 *   SHA256SUMS                             the sums of all of the above (sha256sum -c SHA256SUMS)
 *
 * It refuses, with a one-line error and exit 1 before making anything, when a
 * place that carries the version disagrees with package.json, when
 * CHANGELOG.md has no section for the version, when helm cannot be found, or
 * when the folder already exists. The folder is made beside its destination
 * and renamed into place once complete, so a failed run leaves none.
 *
 * It builds first (npm run build); --skip-build packs what dist/ and
 * client/dist/ already hold. helm is $HELM_BIN, else the one .ci/run builds
 * into ${XDG_CACHE_HOME:-~/.cache}/mesh-provisioner/, else helm on PATH.
 * The chart's package is renamed from helm's <chart>-<version>.tgz, which is
 * the npm package's name too; helm reads a chart package by its content.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { releaseNotes, sectionOf } from "./release/changelog.mjs";
import { findHelm } from "./release/helm.mjs";
import { sbomFor } from "./release/sbom.mjs";
import { CHART_DIR, CLIENT, disagreements, sourceVersion } from "./release/versions.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Stops with a one-line error. */
function refuse(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

/** Runs a command in the repository; its output is returned, or shown with a one-line error when it fails. */
function run(what, cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ""}${r.stderr ?? ""}`);
    refuse(`${what} failed (${cmd} ${args.join(" ")}${r.error ? `: ${r.error.message}` : `, exit ${r.status ?? r.signal}`})`);
  }
  return r.stdout;
}

let options;
try {
  options = parseArgs({ options: { out: { type: "string" }, "skip-build": { type: "boolean", default: false } } }).values;
} catch (err) {
  refuse(`${err.message}; usage: npm run release [-- --out DIR] [-- --skip-build]`);
}

// ---- every check before anything is made --------------------------------------------------------
const version = sourceVersion(root);
const NAME = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).name;
const disagree = disagreements(root, version);
if (disagree.length > 0) refuse(`versions disagree with package.json's ${version}: ${disagree.join("; ")} (node scripts/set-version.mjs ${version})`);

const changelogPath = join(root, "CHANGELOG.md");
const section = existsSync(changelogPath) ? sectionOf(readFileSync(changelogPath, "utf8"), version) : undefined;
if (section === undefined || section.body === "") refuse(`CHANGELOG.md has no section "## [${version}]" with its changes`);

const found = findHelm();
if (found.missing !== undefined) refuse(found.missing);
const helm = found.bin;

const out = resolve(options.out ?? join(root, "release", version));
if (existsSync(out)) refuse(`${out} already exists: remove it, or pass --out DIR`);
if (options["skip-build"]) {
  for (const f of ["dist/bundle/index.js", "client/dist/src/index.js"])
    if (!existsSync(join(root, f))) refuse(`--skip-build, yet ${f} is not built (npm run build)`);
}

// ---- the folder, made aside and renamed into place -------------------------------------------------
mkdirSync(dirname(out), { recursive: true });
const stage = mkdtempSync(join(dirname(out), `.${basename(out)}.partial-`));
process.on("exit", (code) => code !== 0 && rmSync(stage, { recursive: true, force: true }));

if (!options["skip-build"]) {
  console.error("release: npm run build");
  run("the build", "npm", ["run", "build"]);
}

/** npm pack of the root (no workspace) or of a workspace; returns the tarball's name. */
function pack(workspace) {
  const ws = workspace ? ["-w", workspace] : [];
  const [packed] = JSON.parse(run(`npm pack ${workspace ?? NAME}`, "npm", ["pack", ...ws, "--ignore-scripts", "--json", "--pack-destination", stage]));
  return packed.filename;
}

/** npm sbom (CycloneDX) of the locked runtime tree of the root or a workspace, with the package as its subject. */
function sbom(name, workspace, type) {
  const ws = workspace ? ["-w", workspace] : [];
  const printed = run(`npm sbom ${name}`, "npm", ["sbom", ...ws, "--sbom-format", "cyclonedx", "--sbom-type", type, "--omit", "dev", "--package-lock-only"]);
  const bom = sbomFor(JSON.parse(printed), { name, version, type });
  if (bom === undefined) refuse(`npm sbom printed no component ${name}@${version}`);
  const file = `${name}-${version}.cdx.json`;
  writeFileSync(join(stage, file), `${JSON.stringify(bom, null, 2)}\n`);
  return file;
}

console.error(`release: ${NAME} ${version} into ${out}`);
pack();
pack(CLIENT);
sbom(NAME, undefined, "application");
sbom(CLIENT, CLIENT, "library");

const chartOut = mkdtempSync(join(stage, ".chart-"));
run("helm package", helm, ["package", join(root, CHART_DIR), "-d", chartOut]);
const [chartPackage] = readdirSync(chartOut);
if (chartPackage === undefined) refuse("helm package wrote no package");
renameSync(join(chartOut, chartPackage), join(stage, `${NAME}-chart-${version}.tgz`));
rmSync(chartOut, { recursive: true });

writeFileSync(join(stage, "RELEASE-NOTES.md"), releaseNotes({ name: NAME, version, date: section.date, body: section.body }));

const files = readdirSync(stage).sort();
const sums = files.map((f) => `${createHash("sha256").update(readFileSync(join(stage, f))).digest("hex")}  ${f}\n`).join("");
writeFileSync(join(stage, "SHA256SUMS"), sums);

chmodSync(stage, 0o755); // mkdtemp's folder is the owner's only; a release folder is for everyone to read
renameSync(stage, out);
for (const f of [...files, "SHA256SUMS"]) console.error(`release:   ${f} (${statSync(join(out, f)).size} bytes)`);
console.log(out);

// The commit it was made from, for whoever keeps the folder (not part of it).
try {
  const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  console.error(`release: made from commit ${head}${dirty ? " with uncommitted changes" : ""}`);
} catch {
  // Not a git checkout: nothing to say.
}
