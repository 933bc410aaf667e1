/**
 * The chart's two containers run as their pods would run them, without a
 * cluster: the rendered args and environment, each Secret's files written at
 * the paths its mount names (the kubelet's part), the command line of this
 * checkout in place of the image, against a real nats-server that accepts
 * the chart's nkey alone, under the grant `permissions --role provisioner`
 * prints (so the test pod's ask works with the service's least grant). Rendered by the real helm; skipped without it,
 * except in CI (CI=true).
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CHART, helmForTests, parseObjects, withValues, type K8sObject } from "../helpers/helm.js";
import { checkEveryObject, NAMESPACE, only, RELEASE, testPod } from "./chart-checks.js";
import { freePort, startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { tempDir, userNkey } from "../helpers/credential-material.js";
import { killAll, run, start } from "../helpers/cli-run.js";
import { eventually } from "../helpers/eventually.js";
import { httpGet } from "../helpers/http-get.js";
import { ExitCodes } from "../../src/cli/exit-codes.js";
import { grantFor } from "../../src/permissions/grants.js";

const { bin, skip } = helmForTests();

/**
 * A pod's container as a process would get it: its args, and its environment
 * alone (and PATH) with every path under a Secret's mount moved to where the
 * Secret's files were written under `root`.
 */
function asProcess(spec: any, objects: K8sObject[], root: string): { args: string[]; env: NodeJS.ProcessEnv } {
  const c = spec.containers[0];
  const volumes = new Map<string, any>(spec.volumes.map((v: any) => [v.name, v]));
  const moved = new Map<string, string>();
  for (const m of c.volumeMounts) {
    const secretVolume = volumes.get(m.name).secret;
    if (!secretVolume) continue;
    const secret = only(
      objects.filter((o) => o.kind === "Secret" && o.metadata.name === secretVolume.secretName),
      "Secret",
    );
    const dir = join(root, m.mountPath);
    mkdirSync(dir, { recursive: true });
    for (const item of secretVolume.items) writeFileSync(join(dir, item.path), Buffer.from(secret.data[item.key], "base64"), { mode: 0o440 });
    moved.set(`${m.mountPath}/`, `${dir}/`);
  }
  const env: NodeJS.ProcessEnv = { PATH: process.env["PATH"] };
  for (const e of c.env) {
    const from = [...moved.keys()].find((p) => e.value.startsWith(p));
    env[e.name] = from === undefined ? e.value : moved.get(from)! + e.value.slice(from.length);
  }
  return { args: c.args, env };
}

describe("the chart's pods, run as processes against a real nats-server", { skip }, () => {
  const dir = tempDir("mesh-provisioner-chart-run-");
  let server: RunningNatsServer | undefined;
  after(async () => {
    killAll();
    await server?.stop();
    dir.remove();
  });

  test("the service gets ready on the chart's port, the test pod's command answers, and it fails once no instance answers", async () => {
    const nkey = userNkey(dir.dir);
    const user = { nkey: nkey.publicKey, permissions: grantFor("provisioner") };
    server = await startNatsServer({ configText: `authorization { users: [${JSON.stringify(user)}] }` });
    const port = await freePort();
    const values = { nats: { url: server.url, auth: { type: "nkey", content: readFileSync(nkey.seedFile, "utf8") } }, http: { port } };
    const r = withValues(bin, ["template", RELEASE, CHART, "--namespace", NAMESPACE], values);
    assert.equal(r.status, 0, r.stderr);
    const objects = parseObjects(r.stdout);
    checkEveryObject(objects);
    const podSpec = only(objects, "Deployment").spec.template.spec;

    const service = asProcess(podSpec, objects, join(dir.dir, "service"));
    const served = start(service.args, service.env);
    await eventually(
      async () => {
        assert.equal(served.child.exitCode, null, `the service exited:\n${served.stderr()}`);
        assert.equal((await httpGet(`http://127.0.0.1:${port}/readyz`, {}, 2000)).status, 200);
      },
      { timeoutMs: 30_000, intervalMs: 100, message: "the startup and readiness probes' /readyz on the chart's port" },
    );
    assert.equal((await httpGet(`http://127.0.0.1:${port}/healthz`)).status, 200, "the liveness probe's /healthz");

    const asker = asProcess(testPod(objects).spec, objects, join(dir.dir, "test"));
    const asked = await run(asker.args, asker.env, 30_000);
    assert.equal(asked.code, 0, `the test pod's command:\n${asked.stderr}`);
    assert.match(asked.stdout, /\bconfig\b/, "the registry as the verb answers it");
    assert.match(asked.stdout, /\bsecret\b/);

    // As the kubelet stops a pod: SIGTERM, then SIGKILL after the grace.
    const graceMs = podSpec.terminationGracePeriodSeconds * 1000;
    const t0 = Date.now();
    served.child.kill("SIGTERM");
    const timer = setTimeout(() => served.child.kill("SIGKILL"), graceMs);
    const stopped = await served.exited;
    clearTimeout(timer);
    assert.equal(stopped.code, 0, `the service's exit on SIGTERM (${Date.now() - t0} ms):\n${served.stderr()}`);
    assert.ok(Date.now() - t0 < graceMs, "stopped within terminationGracePeriodSeconds");

    const unanswered = await run(asker.args, asker.env, 30_000);
    assert.equal(unanswered.code, ExitCodes.VERB, `helm test fails when no instance answers the verb:\n${unanswered.stderr}`);
  });
});
