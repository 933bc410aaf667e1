/**
 * Sets the one version of a release: the root package.json's `version`, and
 * from it every place that follows it (scripts/release/versions.mjs lists
 * them: the client's package.json, the root's devDependency on the client,
 * package-lock.json, the Go module's `Version`, the chart's `version` and
 * `appVersion`).
 *
 *   node scripts/set-version.mjs 0.2.0
 *
 * Writes nothing unless every place can be written. Exits 2 on a version
 * that is not SemVer 2.0, 1 when a place is missing, 0 when all agree.
 */
import { fileURLToPath } from "node:url";
import { SEMVER, disagreements, setVersion } from "./release/versions.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const version = process.argv[2];

if (process.argv.length !== 3 || !SEMVER.test(version ?? "")) {
  console.error(`set-version: give one SemVer version (such as 0.2.0), not ${JSON.stringify(process.argv.slice(2).join(" "))}`);
  process.exit(2);
}
const missing = setVersion(root, version);
if (missing.length > 0) {
  console.error(`set-version: nothing written: ${missing.join("; ")}`);
  process.exit(1);
}
const left = disagreements(root, version);
if (left.length > 0) {
  console.error(`set-version: written, yet ${left.join("; ")}`);
  process.exit(1);
}
console.log(`set-version: ${version} in package.json and every place that follows it`);
