/**
 * Where helm is, for the release and the chart's tests alike: $HELM_BIN, else
 * the version .ci/run builds into ${XDG_CACHE_HOME:-~/.cache}/mesh-provisioner/,
 * else helm on PATH. The version is read from .ci/run, the one place it is
 * pinned, so the three never disagree.
 */
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

const CI_RUN = fileURLToPath(new URL("../../.ci/run", import.meta.url));

/** The helm version .ci/run pins (`HELM_VERSION="v3.19.0"`). */
export const HELM_VERSION = (() => {
  const pinned = /^HELM_VERSION="(v[0-9][^"]*)"/m.exec(readFileSync(CI_RUN, "utf8"));
  if (pinned === null) throw new TypeError(`${CI_RUN} pins no HELM_VERSION="v…" line`);
  return pinned[1];
})();

/** True for an executable regular file. */
export function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `{ bin }`, the helm to run, or `{ missing }`, one line saying why there is none and how to get it. */
export function findHelm(env = process.env) {
  const named = env.HELM_BIN;
  if (named) return executable(named) ? { bin: named } : { missing: `HELM_BIN=${named} is not an executable file` };
  const cached = join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "mesh-provisioner", `helm-${HELM_VERSION}`, "helm");
  if (executable(cached)) return { bin: cached };
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir && executable(join(dir, "helm"))) return { bin: join(dir, "helm") };
  }
  return {
    missing: `helm is not installed: not at HELM_BIN, ${cached} or on PATH (build it: GOBIN=${join(cached, "..")} go install helm.sh/helm/v3/cmd/helm@${HELM_VERSION}, as .ci/run does)`,
  };
}
