/**
 * /metrics of a live service (`serve --http`, spawned as an operator runs
 * it): every promised name with its type and labels, `promtool check
 * metrics` silent on it, values that say what an operator needs, and the
 * seat, the registry's drift and the bus connection as they change.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm, type KV } from "@nats-io/kv";
import { BUCKETS } from "mesh-provisioner-client/keys";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { VERSION } from "../../src/version.js";
import { connectTo } from "../helpers/stack.js";
import { eventually } from "../helpers/eventually.js";
import { httpGet } from "../helpers/http-get.js";
import { Fleet } from "../helpers/processes.js";
import { spawnServed } from "../helpers/served.js";
import { parseExposition, valueOf, type Exposition } from "../helpers/prometheus-text.js";
import { LEFT_OUT, PROCESS_METRICS, PROMISED } from "../helpers/metrics-spec.js";
import { expressions, isExported, loadDashboard, metricNamesIn } from "../helpers/grafana.js";
import { prometheusToolForTests } from "../helpers/prometheus.js";

const promtool = prometheusToolForTests("promtool");

async function scrape(base: string): Promise<Exposition & { text: string }> {
  const r = await httpGet(`${base}/metrics`);
  assert.equal(r.status, 200, r.body);
  return { text: r.body, ...parseExposition(r.body) };
}

async function ask(nc: NatsConnection, body: Record<string, unknown>): Promise<number> {
  const m = await nc.request(VERB_SUBJECT, JSON.stringify(body), { timeout: 5000 });
  return Number(m.headers?.get("Nats-Service-Error-Code") || 200);
}

describe("/metrics of a live service", () => {
  let server: RunningNatsServer;
  let client: NatsConnection;
  let fleet: Fleet;
  let base: string;
  let registry: KV;

  before(async () => {
    server = await startNatsServer();
    client = await connectTo(server);
    fleet = new Fleet({ server: server.url });
    ({ base } = await spawnServed(fleet, { name: "metrics", args: ["--checkpoint-every", "1s", "--flood-keys", "3"] }));
    const kvm = new Kvm(client);
    registry = await kvm.open(BUCKETS.registry);
    const needs = await kvm.open(BUCKETS.needs);
    await needs.put("n1.web.config.port", JSON.stringify({ default: 8080 }));
    for (let i = 0; i < 4; i++) await needs.put(`flood1.web.config.k${i}`, JSON.stringify({ default: i }));
    await needs.put("n1.web.config", "three tokens: out of shape");
    assert.equal(await ask(client, { what: "needs" }), 200);
    assert.equal(await ask(client, { what: "needs", node: "*" }), 400, "a wildcard filter is refused");
    // Some series mean something only once the holder has written a checkpoint of what was put.
    await eventually(
      async () => {
        const { samples } = await scrape(base);
        assert.ok((valueOf(samples, "mesh_provisioner_checkpoint_writes_total", { bucket: "needs", result: "ok" }) ?? 0) >= 1);
        assert.ok(Number.isFinite(valueOf(samples, "mesh_provisioner_checkpoint_age_seconds", { bucket: "needs" })));
      },
      { timeoutMs: 15_000, message: "no checkpoint of needs was written" },
    );
  });

  after(async () => {
    await fleet?.killAll();
    await client?.close().catch(() => undefined);
    await server?.stop();
  });

  test("every promised metric is there with its type and exactly its labels; the process metrics under their standard names", async () => {
    const { samples, types } = await scrape(base);
    for (const p of [...PROMISED, ...PROCESS_METRICS]) {
      assert.equal(types.get(p.name), p.type, `# TYPE of ${p.name}`);
      const series = samples.filter((s) => s.name === (p.type === "histogram" ? `${p.name}_count` : p.name));
      assert.ok(series.length > 0, `${p.name} has a sample`);
      for (const s of series) assert.deepEqual(Object.keys(s.labels).sort(), [...p.labels].sort(), `the labels of ${p.name}`);
    }
    for (const name of LEFT_OUT) assert.equal(types.has(name), false, `${name} is left out`);
    assert.deepEqual(
      [...types.keys()].filter((n) => !/^(mesh_provisioner_|process_|nodejs_)/.test(n) || n.startsWith("mesh_provisioner_process_")),
      [],
    );
  });

  test("promtool check metrics prints nothing about a live /metrics and exits 0", { skip: promtool.skip }, async () => {
    const { text } = await scrape(base);
    const r = spawnSync(promtool.bin, ["check", "metrics"], { input: text, encoding: "utf8", timeout: 30_000 });
    assert.equal(`${r.stdout}${r.stderr}`, "", "promtool's findings");
    assert.equal(r.status, 0);
  });

  test("the values say what an operator needs: ready, the build, the seat, the projections, the reconcile, the checkpoints, a flooding node", async () => {
    const { samples } = await scrape(base);
    const v = (name: string, labels: Record<string, string> = {}): number | undefined => valueOf(samples, `mesh_provisioner_${name}`, labels);
    const now = Date.now() / 1000;
    assert.equal(v("ready"), 1);
    assert.equal(v("build_info", { version: VERSION, nodejs_version: process.version }), 1);
    assert.deepEqual([v("seat_held"), v("seat_vacant_seconds"), v("seat_acquisitions_total"), v("seat_handovers_total")], [1, 0, 1, 1]);
    assert.deepEqual([v("nats_connected"), v("nats_disconnected_seconds"), v("nats_reconnects_total")], [1, 0, 0]);
    assert.equal(v("projection_entries", { what: "needs" }), 5);
    assert.equal(v("projection_out_of_shape_keys", { what: "needs" }), 1);
    assert.equal(v("projection_revision", { what: "needs" }), 6);
    assert.equal(v("projection_stream_last_sequence", { what: "needs" }), 6);
    assert.equal(v("projection_lag_messages", { what: "needs" }), 0);
    assert.ok(Math.abs(now - (v("projection_last_applied_timestamp_seconds", { what: "needs" }) ?? 0)) < 60, "needs applied an entry just now");
    assert.equal(v("projection_last_applied_timestamp_seconds", { what: "collect" }), 0, "collect never applied one");
    for (const what of ["registry", "needs"]) assert.equal(v("projection_start", { what, from: "full" }), 1, `${what} was read whole`);
    assert.equal(v("registry_writes_total", { op: "create" }), 13, "a fresh mesh's registry is written once");
    assert.equal(v("registry_drifted"), 0);
    assert.ok((v("reconcile_runs_total", { result: "ok" }) ?? 0) >= 1);
    assert.ok(now - (v("reconcile_last_success_timestamp_seconds") ?? 0) < 60);
    assert.equal(v("checkpoint_fallbacks_total", { bucket: "needs", reason: "missing" }), 1, "the first start had no checkpoint");
    assert.equal(v("checkpoint_fallbacks_total", { bucket: "needs", reason: "corrupt" }), 0, "every reason's series is there at 0");
    assert.ok(now - (v("checkpoint_last_written_timestamp_seconds", { bucket: "needs" }) ?? 0) < 60);
    assert.equal(v("checkpoint_last_written_timestamp_seconds", { bucket: "collect" }), 0, "an empty bucket has no checkpoint");
    const age = v("checkpoint_age_seconds", { bucket: "needs" }) ?? NaN;
    assert.ok(age >= 0 && age < 60, `the newest checkpoint of needs is recent (${age} s)`);
    assert.ok(Number.isNaN(v("checkpoint_age_seconds", { bucket: "collect" })), "no checkpoint of collect: NaN");
    assert.ok((v("checkpoint_size_bytes", { bucket: "needs" }) ?? 0) > 0);
    assert.ok((v("checkpoint_written_bytes_total", { bucket: "needs" }) ?? 0) >= (v("checkpoint_size_bytes", { bucket: "needs" }) ?? Infinity));
    assert.equal(v("nodes_flooding"), 1);
    assert.equal(v("node_flooding_keys", { node: "flood1" }), 4);
    assert.equal(v("verb_requests_total", { what: "needs", status: "400" }), 1);
    assert.equal(v("verb_errors_total", { status: "400" }), 1);
    assert.equal(v("verb_duration_seconds_count", { what: "needs" }), 2);
  });

  test("a registry key deleted by hand is one drift, and the holder writes it back", async () => {
    let kind: string | undefined;
    for await (const k of await registry.keys()) kind ??= k;
    assert.ok(kind !== undefined, "the registry has keys");
    await registry.delete(kind);
    await eventually(
      async () => {
        const { samples } = await scrape(base);
        assert.equal(valueOf(samples, "mesh_provisioner_registry_drift_total"), 1);
        assert.equal(valueOf(samples, "mesh_provisioner_registry_writes_total", { op: "create" }), 14, "the holder wrote it back");
        assert.equal(valueOf(samples, "mesh_provisioner_registry_drifted"), 0);
      },
      { timeoutMs: 15_000, message: "the drift was not counted and repaired" },
    );
  });

  test("every metric the Grafana dashboard queries is one the live service exports", async () => {
    const { types } = await scrape(base);
    const named = expressions(loadDashboard()).flatMap(({ where, expr }) => metricNamesIn(expr).map((name) => ({ where, name })));
    assert.ok(named.length > 40, `${named.length} metric names read from the dashboard`);
    assert.deepEqual(
      named.filter((n) => !isExported(n.name, types)).map((n) => `${n.where}: ${n.name}`),
      [],
      "names the service does not export",
    );
  });

  test("every expression of the Grafana dashboard is PromQL that promtool parses, Grafana's variables filled in", { skip: promtool.skip }, () => {
    const dir = mkdtempSync(join(tmpdir(), "mesh-dashboard-"));
    try {
      const rules = expressions(loadDashboard()).map(({ expr }, i) => ({
        record: `dashboard:expression_${i}`,
        expr: expr.replace(/\$__rate_interval|\$__interval|\$__range/g, "5m").replace(/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/g, ".*"),
      }));
      writeFileSync(join(dir, "rules.yaml"), JSON.stringify({ groups: [{ name: "dashboard", rules }] }));
      const r = spawnSync(promtool.bin, ["check", "rules", join(dir, "rules.yaml")], { encoding: "utf8", timeout: 30_000 });
      assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
      assert.match(r.stdout, new RegExp(`SUCCESS: ${rules.length} rules found`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Last: the nats-server goes away.
  test("while the nats-server is down a scrape answers at once: disconnected, not ready, lag unknown; back up, one reconnect", async () => {
    await server.kill("SIGKILL");
    const down = await eventually(
      async () => {
        const s = await scrape(base);
        assert.equal(valueOf(s.samples, "mesh_provisioner_nats_connected"), 0);
        assert.ok((valueOf(s.samples, "mesh_provisioner_nats_disconnected_seconds") ?? 0) > 0);
        return s;
      },
      { timeoutMs: 10_000, message: "the lost connection was not shown" },
    );
    assert.equal(valueOf(down.samples, "mesh_provisioner_ready"), 0);
    assert.ok(Number.isNaN(valueOf(down.samples, "mesh_provisioner_projection_lag_messages", { what: "needs" })));
    assert.ok(Number.isNaN(valueOf(down.samples, "mesh_provisioner_checkpoint_age_seconds", { bucket: "needs" })));
    const t0 = Date.now();
    await scrape(base);
    assert.ok(Date.now() - t0 < 1500, `a scrape while the bus is away took ${Date.now() - t0} ms`);
    await server.restart();
    await eventually(
      async () => {
        const { samples } = await scrape(base);
        assert.deepEqual(
          [
            valueOf(samples, "mesh_provisioner_nats_connected"),
            valueOf(samples, "mesh_provisioner_nats_disconnected_seconds"),
            valueOf(samples, "mesh_provisioner_nats_reconnects_total"),
            valueOf(samples, "mesh_provisioner_ready"),
          ],
          [1, 0, 1, 1],
        );
      },
      { timeoutMs: 20_000, message: "the connection did not come back in the metrics" },
    );
  });
});

describe("the seat in /metrics: a holder killed, a standby taking over", () => {
  const TTL_S = 4;
  let server: RunningNatsServer;
  let fleet: Fleet;

  before(async () => {
    server = await startNatsServer();
    fleet = new Fleet({ server: server.url });
  });

  after(async () => {
    await fleet?.killAll();
    await server?.stop();
  });

  test("the standby shows the seat vacant once the killed holder's write window has passed, then counts its take as a handover", async () => {
    const args = ["--seat-ttl", `${TTL_S}s`];
    const a = await spawnServed(fleet, { name: "holder", args });
    await a.proc.waitForLine((l) => l.msg.startsWith("this instance holds the seat"), 15_000, "the first instance holds the seat");
    const b = await spawnServed(fleet, { name: "standby", args });
    await b.proc.waitForLine((l) => l.msg.startsWith("the seat is held by another instance"), 15_000, "the standby sees the holder");
    const before = (await scrape(b.base)).samples;
    assert.deepEqual(
      ["seat_held", "seat_vacant_seconds", "seat_handovers_total", "seat_acquisitions_total"].map((n) => valueOf(before, `mesh_provisioner_${n}`)),
      [0, 0, 0, 0],
      "a standby beside a live holder: nothing vacant, the holder it found is no handover",
    );

    a.proc.signal("SIGKILL");
    let vacantMax = 0;
    const after = await eventually(
      async () => {
        const s = (await scrape(b.base)).samples;
        vacantMax = Math.max(vacantMax, valueOf(s, "mesh_provisioner_seat_vacant_seconds") ?? 0);
        assert.equal(valueOf(s, "mesh_provisioner_seat_held"), 1);
        return s;
      },
      { timeoutMs: 4 * TTL_S * 1000, intervalMs: 50, message: "the standby did not take the seat" },
    );
    assert.ok(vacantMax > 0, "the seat was shown vacant before the standby took it");
    assert.ok(vacantMax < TTL_S, `vacant for less than a ttl (${vacantMax} s)`);
    assert.deepEqual(
      ["seat_vacant_seconds", "seat_handovers_total", "seat_acquisitions_total"].map((n) => valueOf(after, `mesh_provisioner_${n}`)),
      [0, 1, 1],
    );
  });
});
