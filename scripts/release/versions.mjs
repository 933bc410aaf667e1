/**
 * Every place of the repository that carries the release's version, in one
 * table: the root package.json's `version` is the one the others follow (the
 * service reads it at run time), and each other place is read and written
 * here, by scripts/set-version.mjs and checked by scripts/release.mjs.
 *
 * A place is a file and a field in it. JSON files are parsed and written
 * back with two spaces and a final newline, as npm writes them, so that only
 * the version's own lines change. The Go constant and the chart's fields are
 * replaced where they stand, keeping the rest of the file as it is.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The client package's name: the root's devDependency on it follows the version too. */
export const CLIENT = "mesh-provisioner-client";
/** The chart's folder, relative to the repository. */
export const CHART_DIR = "deploy/helm/mesh-provisioner";
/** SemVer 2.0 (what npm and helm both accept): MAJOR.MINOR.PATCH, an optional pre-release and build. */
export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/** The Go constant's line in go/version.go. */
const GO_CONST = /^(const Version = )(")([^"\n]*)"$/m;
/** A top-level field of Chart.yaml, its value quoted or not: `version: 0.1.0`, `appVersion: "0.1.0"`. */
const chartField = (field) => new RegExp(`^(${field}:[ \\t]*)(["']?)([^"'\\s#]*)\\2`, "m");

/** A JSON place: `path` is the chain of keys to the field. */
function jsonPlace(file, path) {
  const label = `${file} ${path.map((k) => (k === "" ? '""' : k)).join(".")}`;
  return {
    file,
    label,
    read: (text) => {
      let v = JSON.parse(text);
      for (const k of path) v = v?.[k];
      return typeof v === "string" ? v : undefined;
    },
    write: (text, version) => {
      const doc = JSON.parse(text);
      let o = doc;
      for (const k of path.slice(0, -1)) o = o?.[k];
      const last = path[path.length - 1];
      if (typeof o?.[last] !== "string") return undefined;
      o[last] = version;
      return `${JSON.stringify(doc, null, 2)}\n`;
    },
  };
}

/** A place found by a regular expression whose groups are what precedes the value, its quote, and the value. */
function patternPlace(file, label, pattern) {
  return {
    file,
    label,
    read: (text) => pattern.exec(text)?.[3],
    write: (text, version) => {
      const m = pattern.exec(text);
      if (!m) return undefined;
      return `${text.slice(0, m.index)}${m[1]}${m[2]}${version}${m[2]}${text.slice(m.index + m[0].length)}`;
    },
  };
}

/** The places that follow package.json's version, in the order they are written. */
export const PLACES = [
  jsonPlace("package.json", ["devDependencies", CLIENT]),
  jsonPlace("client/package.json", ["version"]),
  jsonPlace("package-lock.json", ["version"]),
  jsonPlace("package-lock.json", ["packages", "", "version"]),
  jsonPlace("package-lock.json", ["packages", "", "devDependencies", CLIENT]),
  jsonPlace("package-lock.json", ["packages", "client", "version"]),
  patternPlace("go/version.go", "go/version.go const Version", GO_CONST),
  patternPlace(`${CHART_DIR}/Chart.yaml`, `${CHART_DIR}/Chart.yaml version`, chartField("version")),
  patternPlace(`${CHART_DIR}/Chart.yaml`, `${CHART_DIR}/Chart.yaml appVersion`, chartField("appVersion")),
];

/** The one version: the root package.json's `version`. */
export function sourceVersion(root) {
  return JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
}

/** Each place with the version it holds (undefined: the file or the field is missing). */
export function readPlaces(root) {
  return PLACES.map((p) => {
    const path = join(root, p.file);
    return { label: p.label, version: existsSync(path) ? p.read(readFileSync(path, "utf8")) : undefined };
  });
}

/** The places that do not hold `version`, each as a phrase ("client/package.json version is 0.1.0"). */
export function disagreements(root, version = sourceVersion(root)) {
  return readPlaces(root)
    .filter((p) => p.version !== version)
    .map((p) => (p.version === undefined ? `${p.label} is missing` : `${p.label} is ${p.version}`));
}

/**
 * Writes `version` to package.json and every place; returns the phrases of
 * the places it could not write (a missing file or field), having written
 * nothing when there is any.
 */
export function setVersion(root, version) {
  const texts = new Map();
  const text = (file) => {
    if (!texts.has(file)) {
      const path = join(root, file);
      texts.set(file, existsSync(path) ? readFileSync(path, "utf8") : undefined);
    }
    return texts.get(file);
  };
  const missing = [];
  const pkg = JSON.parse(text("package.json"));
  pkg.version = version;
  texts.set("package.json", `${JSON.stringify(pkg, null, 2)}\n`);
  for (const p of PLACES) {
    const before = text(p.file);
    const after = before === undefined ? undefined : p.write(before, version);
    if (after === undefined) missing.push(`${p.label} is missing`);
    else texts.set(p.file, after);
  }
  if (missing.length > 0) return missing;
  for (const [file, t] of texts) writeFileSync(join(root, file), t);
  return [];
}
