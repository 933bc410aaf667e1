/**
 * The embedded nats-server helper starts real servers and clusters, keeps or removes
 * their stores as promised, and reports failures with the server's own words.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { Failure } from "../../src/failure.js";
import { eventually } from "../helpers/eventually.js";
import { findNatsServer, startNatsCluster, startNatsServer, withNatsServer } from "../helpers/nats-server.js";

test("a single server starts with JetStream, and stop() removes its store", async () => {
  const t0 = Date.now();
  const server = await startNatsServer();
  const startedMs = Date.now() - t0;
  try {
    assert.match(server.url, /^nats:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(server.port, 4222, "must never use the shared server's port");
    const nc = await connect({ servers: server.url });
    try {
      const jsm = await jetstreamManager(nc);
      const info = await jsm.getAccountInfo();
      assert.equal(info.streams, 0);
    } finally {
      await nc.close();
    }
    assert.ok(existsSync(server.storeDir), "store dir exists while running");
  } finally {
    await server.stop();
  }
  assert.equal(existsSync(server.storeDir), false, "store dir removed by stop()");
  assert.equal(existsSync(server.configFile), false, "temp dir removed by stop()");
  console.log(`single server ready in ${startedMs} ms`);
});

test("a 3-server cluster forms and accepts a stream replicated 3 times", async () => {
  const t0 = Date.now();
  const cluster = await startNatsCluster(3);
  const startedMs = Date.now() - t0;
  try {
    assert.equal(cluster.servers.length, 3);
    assert.equal(new Set(cluster.urls).size, 3);
    const nc = await connect({ servers: cluster.urls });
    try {
      const jsm = await jetstreamManager(nc);
      const si = await jsm.streams.add({ name: "R3", subjects: ["r3.>"], num_replicas: 3 });
      assert.equal(si.config.num_replicas, 3);
      // Every replica is current once the stream's group has formed.
      await eventually(async () => {
        const info = await jsm.streams.info("R3");
        assert.ok(info.cluster?.leader, "stream has a leader");
        assert.equal(info.cluster?.replicas?.length, 2);
        assert.ok(info.cluster?.replicas?.every((r) => r.current));
      });
    } finally {
      await nc.close();
    }
  } finally {
    await cluster.stop();
  }
  for (const s of cluster.servers) assert.equal(existsSync(s.storeDir), false);
  console.log(`3-server cluster with a meta leader in ${startedMs} ms`);
});

test("restart() keeps the store: a KV value survives on the same port", async () => {
  await withNatsServer(async (server) => {
    let nc = await connect({ servers: server.url });
    try {
      const kv = await new Kvm(nc).create("b");
      await kv.put("k", "survives");
    } finally {
      await nc.close();
    }
    const pidBefore = server.pid;
    const t0 = Date.now();
    await server.restart();
    console.log(`restart took ${Date.now() - t0} ms`);
    assert.notEqual(server.pid, pidBefore, "a new process serves");
    nc = await connect({ servers: server.url });
    try {
      const kv = await new Kvm(nc).open("b");
      const e = await kv.get("k");
      assert.equal(e?.operation, "PUT");
      assert.equal(e?.string(), "survives");
    } finally {
      await nc.close();
    }
  });
});

test("kill() stops the process but keeps the store, and restart() brings it back", async () => {
  await withNatsServer(async (server) => {
    let nc = await connect({ servers: server.url });
    try {
      await new Kvm(nc).create("kept");
    } finally {
      await nc.close();
    }
    await server.kill(); // SIGKILL: a crash
    assert.ok(existsSync(server.storeDir));
    await assert.rejects(connect({ servers: server.url, reconnect: false, timeout: 500 }));
    await server.restart();
    nc = await connect({ servers: server.url });
    try {
      const status = await (await new Kvm(nc).open("kept")).status();
      assert.equal(status.bucket, "kept");
    } finally {
      await nc.close();
    }
  });
});

test("a server that cannot start fails with EMBEDDED_SERVER and its own error text", async () => {
  await assert.rejects(startNatsServer({ configText: "this is { not valid" }), (err: unknown) => {
    assert.ok(err instanceof Failure);
    assert.equal(err.code, "E_EMBEDDED_SERVER");
    assert.match(err.message, /before it was ready; log tail:\n.+/s);
    return true;
  });
});

test("findNatsServer refuses a NATS_SERVER_BIN that is not executable", () => {
  const saved = process.env["NATS_SERVER_BIN"];
  try {
    process.env["NATS_SERVER_BIN"] = "/nonexistent/nats-server";
    assert.throws(findNatsServer, (err: unknown) => err instanceof Failure && /NATS_SERVER_BIN/.test(err.message));
    delete process.env["NATS_SERVER_BIN"];
    assert.match(findNatsServer(), /nats-server$/);
  } finally {
    if (saved === undefined) delete process.env["NATS_SERVER_BIN"];
    else process.env["NATS_SERVER_BIN"] = saved;
  }
});

test("the server every helper starts is the one NATS_SERVER_BIN names (.ci/run's matrix sets it per run)", async () => {
  const bin = findNatsServer();
  const wanted = process.env["NATS_SERVER_BIN"];
  if (wanted) assert.equal(bin, wanted);
  // `nats-server: v2.15.2` -> 2.15.2, the version the server announces to clients.
  const printed = execFileSync(bin, ["--version"], { encoding: "utf8", timeout: 10_000 }).trim();
  const version = /v(\d+\.\d+\.\d+\S*)/.exec(printed)?.[1];
  assert.ok(version, `${bin} --version printed ${printed}`);
  const server = await startNatsServer();
  try {
    const nc = await connect({ servers: server.url });
    try {
      assert.equal(nc.info?.version, version, `the server started announces ${nc.info?.version}, ${bin} is ${version}`);
    } finally {
      await nc.close();
    }
  } finally {
    await server.stop();
  }
  console.log(`nats-server under test: ${bin} (${version})`);
});

test("no code outside src/embedded/nats-server.ts names a nats-server binary of its own (all go through findNatsServer)", () => {
  const root = new URL("../../../", import.meta.url).pathname;
  const own = join("src", "embedded", "nats-server.ts");
  // A string literal that is a path to, or the bare name of, the server's binary (but the
  // deliberately missing one of the test above).
  const binaryLiteral = /["'`](?!\/nonexistent\/)(?:[^"'`\s]*\/)?nats-server["'`]/;
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mjs|js|sh)$/.test(entry.name) && path !== own) {
        readFileSync(join(root, path), "utf8")
          .split("\n")
          .forEach((line, i) => binaryLiteral.test(line) && offenders.push(`${path}:${i + 1}: ${line.trim()}`));
      }
    }
  };
  for (const dir of ["src", "test", "chaos", "bench", "scripts"]) if (existsSync(join(root, dir))) walk(dir);
  assert.deepEqual(offenders, []);
});
