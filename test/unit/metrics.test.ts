/**
 * The metrics module's names, types and labels (src/metrics/), against the
 * promised list (test/helpers/metrics-spec.ts) and the table of
 * docs/operations.md#metrics; and the two small machines it counts with.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Registry } from "prom-client";
import { createMetrics } from "../../src/metrics/metrics.js";
import { MetricsDef } from "../../src/metrics/define.js";
import { ConnectionState } from "../../src/metrics/connection.js";
import { VERSION } from "../../src/version.js";
import { LEFT_OUT, PROCESS_METRICS, PROMISED } from "../helpers/metrics-spec.js";
import { ROOT } from "../helpers/processes.js";

const byName = <T extends { name: string }>(xs: readonly T[]): Map<string, T> => new Map(xs.map((x) => [x.name, x]));

test("every promised mesh_provisioner_* metric is made with its type and labels, and no other", async () => {
  const metrics = createMetrics();
  const registered = byName(await metrics.registry.getMetricsAsJSON());
  const catalog = byName(metrics.catalog);
  for (const p of PROMISED) {
    assert.equal(String(registered.get(p.name)?.type), p.type, `${p.name} is registered as a ${p.type}`);
    assert.deepEqual(catalog.get(p.name)?.labels, p.labels, `${p.name}'s labels`);
    assert.ok((catalog.get(p.name)?.help.length ?? 0) > 10, `${p.name} has a help text`);
  }
  const own = [...registered.keys()].filter((n) => n.startsWith("mesh_provisioner_"));
  assert.deepEqual(
    own.filter((n) => !PROMISED.some((p) => p.name === n)),
    [],
    "made but not promised",
  );
  assert.deepEqual([...catalog.keys()].sort(), own.sort(), "the catalog names every metric of the service");
});

test("the process metrics keep prom-client's standard names, without the doubled prefix or the gauges that end in _total", async () => {
  const registered = byName(await createMetrics().registry.getMetricsAsJSON());
  for (const p of PROCESS_METRICS) assert.equal(String(registered.get(p.name)?.type), p.type, `${p.name} is a ${p.type}`);
  for (const name of LEFT_OUT) assert.equal(registered.has(name), false, `${name} is left out`);
  assert.deepEqual(
    [...registered.keys()].filter((n) => !/^(mesh_provisioner_|process_|nodejs_)/.test(n) || n.startsWith("mesh_provisioner_process_")),
    [],
  );
});

test("counters, and only counters, end in _total", async () => {
  for (const m of await createMetrics().registry.getMetricsAsJSON()) {
    assert.equal(m.name.endsWith("_total"), String(m.type) === "counter", `${m.name} (${String(m.type)})`);
  }
});

test("build_info is 1, labelled with the package's version and the Node.js version", async () => {
  const info = (await createMetrics().registry.getMetricsAsJSON()).find((m) => m.name === "mesh_provisioner_build_info");
  assert.deepEqual(info?.values, [{ value: 1, labels: { version: VERSION, nodejs_version: process.version } }]);
});

test("docs/operations.md's table of metrics lists exactly the metrics made, with their types and labels", () => {
  const doc = readFileSync(`${ROOT}docs/operations.md`, "utf8");
  const section = /^## Metrics\n([\s\S]*?)^## /m.exec(doc)?.[1];
  assert.ok(section !== undefined, "docs/operations.md has a ## Metrics section");
  const rows = [...section.matchAll(/^\| `(mesh_provisioner_[a-z0-9_]+)` \| (\w+) \|([^|]*)\|/gm)].map((m) => ({
    name: m[1]!,
    type: m[2]!,
    labels: [...m[3]!.matchAll(/`([a-z_]+)`/g)].map((l) => l[1]!),
  }));
  const made = createMetrics().catalog.map((c) => ({ name: c.name, type: c.type, labels: [...c.labels] }));
  const order = (xs: { name: string }[]) => [...xs].sort((a, b) => (a.name < b.name ? -1 : 1));
  assert.deepEqual(order(rows), order(made));
});

test("a counter fed by a tally appears at 0, grows by what the tally grew, and never goes down", async () => {
  const registry = new Registry();
  const def = new MetricsDef(registry);
  const tally = { a: 0, b: 0 };
  def.tallyCounter({ name: "t_events_total", help: "test events", labelNames: ["k"] }, () => [
    [{ k: "a" }, tally.a],
    [{ k: "b" }, tally.b],
  ]);
  const values = async (): Promise<Record<string, number>> => {
    const [m] = await registry.getMetricsAsJSON();
    return Object.fromEntries((m?.values ?? []).map((v) => [String(v.labels["k"]), v.value]));
  };
  assert.deepEqual(await values(), { a: 0, b: 0 });
  tally.a = 3;
  assert.deepEqual(await values(), { a: 3, b: 0 });
  assert.deepEqual(await values(), { a: 3, b: 0 }, "a scrape without news adds nothing");
  tally.a = 1; // a tally that went back (it never should): the counter holds
  tally.b = 2;
  assert.deepEqual(await values(), { a: 3, b: 2 });
  tally.a = 5;
  assert.deepEqual(await values(), { a: 5, b: 2 });
});

test("the connection's state: down from the first disconnect, up and counted at each reconnect", () => {
  const c = new ConnectionState();
  assert.equal(c.downSince, undefined);
  c.saw("disconnect", 1_000);
  c.saw("reconnecting", 2_000);
  c.saw("disconnect", 3_000);
  assert.equal(c.downSince, 1_000, "down since the first disconnect");
  c.saw("reconnect", 4_000);
  assert.deepEqual([c.downSince, c.reconnects], [undefined, 1]);
  c.saw("ping", 5_000);
  c.saw("close", 6_000);
  assert.deepEqual([c.downSince, c.reconnects], [6_000, 1]);
});
