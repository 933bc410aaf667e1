/**
 * The container image (deploy/container/Containerfile) run as an operator runs
 * it, against a real nats-server on loopback: a read-only root filesystem with
 * a tmpfs on /tmp only, the image's own user, entrypoint and stop signal.
 *
 * Not part of `npm test` (it needs podman, root and a built image): `.ci/run`
 * builds the image and runs this file with MESH_PROVISIONER_IMAGE naming it:
 *
 *   MESH_PROVISIONER_IMAGE=localhost/mesh-provisioner:ci node --test dist/test/container/image.js
 *
 * Skipped, saying why, only where podman cannot run at all. The container
 * shares the host's network (`--network host`) to reach the loopback server.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm, type KV } from "@nats-io/kv";
import { freePort, startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { connectTo } from "../helpers/stack.js";
import { httpGet } from "../helpers/http-get.js";
import { eventually } from "../helpers/eventually.js";
import { run } from "../helpers/cli-run.js";
import { ROOT } from "../helpers/processes.js";
import { podman, podmanUnavailable, runContainer, type Container } from "./podman.js";

const IMAGE = process.env["MESH_PROVISIONER_IMAGE"];
/** Kubernetes' default terminationGracePeriodSeconds, and `podman stop`'s -t below. */
const GRACE_S = 30;
const UID = 10001;
const SEAT_BUCKET = "mesh-provisioner_seat";
const KINDS = ["access", "bound", "collected", "config", "consumers", "contribution", "dir", "environment", "machine", "port", "seat", "secret", "shell"];
const VERSION = (JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { version: string }).version;

interface HolderValue {
  readonly instance: string;
  readonly host: string;
  readonly pid: number;
}

const unavailable = await podmanUnavailable();
if (unavailable !== undefined) {
  process.stderr.write(`\n*** SKIPPED: the container image's test: podman cannot run here: ${unavailable}\n\n`);
}

describe("the container image, run read-only against a real nats-server", { skip: unavailable && `podman cannot run here: ${unavailable}` }, () => {
  const name = `mesh-provisioner-test-${randomUUID().slice(0, 8)}`;
  const hostname = name;
  let server: RunningNatsServer;
  let nc: NatsConnection;
  let seat: KV;
  let httpPort: number;
  let container: Container;

  before(async () => {
    assert.ok(IMAGE, "MESH_PROVISIONER_IMAGE must name the image to test (.ci/run builds it: see docs/operations.md)");
    const found = await podman(["image", "exists", IMAGE]);
    assert.equal(found.code, 0, `the image ${IMAGE} does not exist: build it first (docs/operations.md, "The container image")`);
    server = await startNatsServer();
    nc = await connectTo(server);
    httpPort = await freePort();
    container = runContainer(name, [
      "--network",
      "host",
      "--hostname",
      hostname,
      "--read-only",
      "--read-only-tmpfs=false",
      "--tmpfs",
      "/tmp:rw,nosuid,nodev,size=64m",
      "--env",
      `NATS_URL=${server.url}`,
      IMAGE,
      // The image's command is `serve`; its HTTP address (0.0.0.0:8080) is moved to a free loopback port.
      "serve",
      "--http",
      `127.0.0.1:${httpPort}`,
    ]);
  });

  after(async () => {
    await podman(["rm", "--force", "--time", "0", name]);
    await nc?.close();
    await server?.stop();
  });

  test("the image declares uid 10001, node as its exec-form entrypoint, serve, port 8080, /tmp as TMPDIR and its labels", async () => {
    const r = await podman(["image", "inspect", "--format", "{{json .Config}}", IMAGE!]);
    assert.equal(r.code, 0, r.stderr);
    const config = JSON.parse(r.stdout) as {
      User: string;
      Entrypoint: string[];
      Cmd: string[];
      Env: string[];
      ExposedPorts: Record<string, unknown>;
      Labels: Record<string, string>;
      StopSignal?: string;
    };
    assert.equal(config.User, `${UID}:${UID}`);
    assert.deepEqual(config.Entrypoint, ["node", "/app/bin/mesh-provisioner"]);
    assert.deepEqual(config.Cmd, ["serve"]);
    assert.ok(config.Env.includes("MESH_PROVISIONER_HTTP=0.0.0.0:8080"), config.Env.join(" "));
    assert.ok(config.Env.includes("TMPDIR=/tmp"), config.Env.join(" "));
    assert.deepEqual(Object.keys(config.ExposedPorts), ["8080/tcp"]);
    assert.equal(config.Labels["org.opencontainers.image.version"], VERSION, "built with --build-arg VERSION from package.json");
    assert.equal(config.Labels["org.opencontainers.image.licenses"], "Apache-2.0");
    assert.equal(config.Labels["org.opencontainers.image.title"], "mesh-provisioner");
    assert.match(config.Labels["org.opencontainers.image.source"] ?? "", /^https:\/\//);
    assert.ok((config.Labels["org.opencontainers.image.description"] ?? "").length > 0);
  });

  test("the container becomes ready (/readyz 200) with only /tmp writable", async () => {
    await eventually(
      async () => {
        if (container.ended) throw new Error("the container exited before it was ready");
        const r = await httpGet(`http://127.0.0.1:${httpPort}/readyz`, {}, 2000).catch((err: Error) => ({ status: 0, body: err.message }));
        assert.equal(r.status, 200, `/readyz: ${r.body}; the container's output:\n${container.tail()}`);
      },
      { timeoutMs: 60_000, intervalMs: 200, message: "the container's /readyz" },
    );
    const healthz = await httpGet(`http://127.0.0.1:${httpPort}/healthz`);
    assert.equal(healthz.status, 200);
  });

  test("the container's first process is node itself (no shell between), running as uid and gid 10001", async () => {
    const r = await podman(["inspect", "--format", "{{.State.Pid}}", name]);
    assert.equal(r.code, 0, r.stderr);
    const hostPid = Number(r.stdout.trim());
    assert.ok(hostPid > 0, r.stdout);
    const status = readFileSync(`/proc/${hostPid}/status`, "utf8");
    const ids = (field: string): number[] => (new RegExp(`^${field}:\\s+(.*)$`, "m").exec(status)?.[1] ?? "").split(/\s+/).map(Number);
    assert.deepEqual(ids("Uid"), [UID, UID, UID, UID], "real, effective, saved and filesystem uid");
    assert.deepEqual(ids("Gid"), [UID, UID, UID, UID], "real, effective, saved and filesystem gid");
    const argv = readFileSync(`/proc/${hostPid}/cmdline`, "utf8")
      .split("\0")
      .filter((a) => a.length > 0);
    assert.deepEqual(argv.slice(0, 3), ["node", "/app/bin/mesh-provisioner", "serve"]);
    const started = container.lines.find((l) => l.msg === "starting mesh-provisioner");
    assert.equal(started?.fields["pid"], 1, "the service is the container's pid 1, which receives the stop signal");
  });

  test("it answers the verb: `query registry` from the host lists the 13 kinds, and the container holds the seat", async () => {
    seat = await new Kvm(nc).open(SEAT_BUCKET);
    const holder = await eventually(async () => {
      const e = await seat.get("holder");
      assert.equal(e?.operation, "PUT", "a holder");
      return e!.json<HolderValue>();
    });
    assert.equal(holder.host, hostname);
    assert.equal(holder.pid, 1);
    const env: NodeJS.ProcessEnv = { ...process.env, NATS_URL: server.url };
    for (const k of Object.keys(env)) if (k.startsWith("NATS_") && k !== "NATS_URL") delete env[k];
    const rows = await eventually(
      async () => {
        const r = await run(["query", "registry"], env);
        assert.equal(r.code, 0, r.stderr);
        const lines = r.stdout.split("\n");
        const header = lines.findIndex((l) => /^KIND\s+MODULE/.test(l));
        assert.ok(header >= 0, r.stdout);
        const kinds: string[] = [];
        for (const l of lines.slice(header + 1)) {
          if (l.trim() === "") break;
          kinds.push(l.split(/\s+/)[0] as string);
        }
        assert.deepEqual(kinds, KINDS);
        return kinds;
      },
      { timeoutMs: 20_000, intervalMs: 250, message: "query registry answered by the container" },
    );
    assert.equal(rows.length, 13);
  });

  test("SIGUSR2 writes the dump under /tmp while the root filesystem is read-only", async () => {
    const r = await podman(["kill", "--signal", "USR2", name]);
    assert.equal(r.code, 0, r.stderr);
    const wrote = await container.waitForLine((l) => l.msg.startsWith("SIGUSR2:"), 10_000, "the SIGUSR2 dump's log line");
    assert.equal(wrote.msg, "SIGUSR2: wrote this instance's dump", JSON.stringify(wrote.fields));
    assert.match(String(wrote.fields["path"]), /^\/tmp\/[^/]+\.json$/);
  });

  test(`SIGTERM (podman stop -t ${GRACE_S}) ends it with exit 0 within the grace period, releasing the seat`, async () => {
    const before = await seat.get("holder");
    assert.equal(before?.operation, "PUT");
    const stop = await podman(["stop", "--time", String(GRACE_S), name], (GRACE_S + 30) * 1000);
    assert.equal(stop.code, 0, stop.stderr);
    const code = await container.exited;
    assert.equal(code, 0, `the container's exit code (137: killed after the grace period); its output:\n${container.tail()}`);
    assert.ok(stop.ms < GRACE_S * 1000, `stopped in ${stop.ms} ms`);
    assert.ok(
      container.lines.some((l) => l.msg === "released the seat for a standby to take"),
      container.tail(),
    );
    assert.ok(
      container.lines.some((l) => l.msg === "stopped cleanly"),
      container.tail(),
    );
    const afterStop = await seat.get("holder");
    assert.equal(afterStop?.operation, "DEL", "the holder key is deleted for a standby to take at once");
    assert.ok(afterStop!.revision > before!.revision);
  });
});
