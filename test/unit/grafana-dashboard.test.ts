/**
 * The Grafana dashboard (deploy/grafana/) is importable and provisionable:
 * a `datasource` variable every panel and query uses, a uid, a title, tags,
 * panels that fit the grid, the panels an on-call operator looks at, and
 * provisioning files Grafana reads. That every metric it names is exported
 * is checked against a live service (test/integration/metrics.test.ts).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { allPanels, expressions, loadDashboard, metricNamesIn } from "../helpers/grafana.js";
import { ROOT } from "../helpers/processes.js";

const dashboard = loadDashboard();
const DS = "${datasource}";

test("the dashboard has a uid, a title and tags, and a datasource variable of Prometheus data sources", () => {
  assert.equal(dashboard.uid, "mesh-provisioner");
  assert.equal(dashboard.title, "mesh-provisioner");
  assert.ok(dashboard.tags.includes("mesh-provisioner"));
  const ds = dashboard.templating.list.find((v) => v.name === "datasource");
  assert.deepEqual(ds && { type: ds.type, query: ds.query }, { type: "datasource", query: "prometheus" });
  assert.ok(
    !readFileSync(`${ROOT}deploy/grafana/mesh-provisioner.json`, "utf8").includes("${DS_"),
    "no __inputs placeholder: file provisioning would not fill it",
  );
});

test("every panel, every query and every query variable uses the datasource variable", () => {
  const panels = allPanels(dashboard).filter((p) => p.type !== "row");
  assert.ok(panels.length >= 20, `${panels.length} panels`);
  for (const p of panels) {
    assert.deepEqual(p.datasource, { type: "prometheus", uid: DS }, `panel "${p.title}"`);
    assert.ok((p.targets ?? []).length > 0, `panel "${p.title}" has queries`);
    for (const t of p.targets ?? []) assert.deepEqual(t.datasource, { type: "prometheus", uid: DS }, `a query of "${p.title}"`);
  }
  for (const v of dashboard.templating.list.filter((v) => v.type === "query")) assert.deepEqual(v.datasource, { type: "prometheus", uid: DS }, `$${v.name}`);
});

test("panels have unique ids and fit the 24-column grid without overlapping", () => {
  const panels = allPanels(dashboard);
  assert.equal(new Set(panels.map((p) => p.id)).size, panels.length);
  const cells = new Set<string>();
  for (const p of panels) {
    const g = p.gridPos;
    assert.ok(g.x >= 0 && g.w > 0 && g.x + g.w <= 24, `"${p.title}" fits in 24 columns`);
    for (let x = g.x; x < g.x + g.w; x++)
      for (let y = g.y; y < g.y + g.h; y++) {
        assert.ok(!cells.has(`${x},${y}`), `"${p.title}" overlaps another panel at ${x},${y}`);
        cells.add(`${x},${y}`);
      }
  }
});

test("the panels an operator needs are there: the seat, readiness and lag, the verb's rate, errors and percentiles, change rates, reconcile, checkpoints, the bus, the process, flooding", () => {
  const all = expressions(dashboard).map((e) => e.expr);
  const uses = (re: RegExp): boolean => all.some((e) => re.test(e));
  const wanted: Record<string, RegExp> = {
    "the seat by instance": /^mesh_provisioner_seat_held\{/,
    "seat vacancy": /mesh_provisioner_seat_vacant_seconds/,
    handovers: /increase\(mesh_provisioner_seat_handovers_total/,
    "instances ready": /sum\(mesh_provisioner_ready/,
    "lag per projection": /by \(instance, what\) \(mesh_provisioner_projection_lag_messages/,
    "verb rate by status": /sum by \(status\) \(rate\(mesh_provisioner_verb_requests_total/,
    errors: /mesh_provisioner_verb_errors_total/,
    p50: /histogram_quantile\(0\.5, sum by \(le\) \(rate\(mesh_provisioner_verb_duration_seconds_bucket/,
    p90: /histogram_quantile\(0\.9, /,
    p99: /histogram_quantile\(0\.99, /,
    "bucket change rates": /rate\(mesh_provisioner_projection_revision/,
    "reconcile writes by op": /sum by \(op\) \(increase\(mesh_provisioner_registry_writes_total/,
    drift: /mesh_provisioner_registry_drifted/,
    "checkpoint age": /mesh_provisioner_checkpoint_age_seconds/,
    "checkpoint last written": /mesh_provisioner_checkpoint_last_written_timestamp_seconds/,
    "checkpoint size": /mesh_provisioner_checkpoint_size_bytes/,
    fallbacks: /mesh_provisioner_checkpoint_fallbacks_total/,
    RSS: /process_resident_memory_bytes/,
    heap: /nodejs_heap_size_used_bytes/,
    "event-loop delay": /nodejs_eventloop_lag_p99_seconds/,
    "NATS connection": /mesh_provisioner_nats_connected/,
    reconnects: /mesh_provisioner_nats_reconnects_total/,
    "flooding nodes": /mesh_provisioner_node_flooding_keys/,
  };
  assert.deepEqual(
    Object.entries(wanted)
      .filter(([, re]) => !uses(re))
      .map(([what]) => what),
    [],
  );
});

test("the PromQL reader names the metrics of an expression, never its functions, labels, keywords, durations or Grafana's variables", () => {
  assert.deepEqual(
    metricNamesIn('histogram_quantile(0.99, sum by (le, what) (rate(mesh_provisioner_verb_duration_seconds_bucket{job=~"$job"}[$__rate_interval])))'),
    ["mesh_provisioner_verb_duration_seconds_bucket"],
  );
  assert.deepEqual(metricNamesIn('count by (version) (mesh_provisioner_build_info{nodejs_version=~"v2.*", instance=~"${instance}"})'), [
    "mesh_provisioner_build_info",
  ]);
  assert.deepEqual(metricNamesIn("time() - max(a_seconds offset 5m > 0) and on (instance) b_total * 1e3 unless c"), ["a_seconds", "b_total", "c"]);
  assert.deepEqual(metricNamesIn("sum(rate(x_total[5m])) without (pod) / ignoring(status) group_left(node) y"), ["x_total", "y"]);
  // Every expression of the dashboard names at least one metric.
  for (const { where, expr } of expressions(dashboard)) assert.ok(metricNamesIn(expr).length > 0, `${where}: ${expr}`);
});

test("the provisioning files: a file provider loading a folder, and a Prometheus data source", () => {
  const dashboards = parse(readFileSync(`${ROOT}deploy/grafana/provisioning/dashboards/mesh-provisioner.yaml`, "utf8")) as {
    apiVersion: number;
    providers: { type: string; folder: string; options: { path: string } }[];
  };
  assert.equal(dashboards.apiVersion, 1);
  assert.equal(dashboards.providers.length, 1);
  assert.deepEqual([dashboards.providers[0]?.type, dashboards.providers[0]?.folder], ["file", "mesh-provisioner"]);
  assert.match(dashboards.providers[0]?.options.path ?? "", /^\//);
  const sources = parse(readFileSync(`${ROOT}deploy/grafana/provisioning/datasources/prometheus.yaml`, "utf8")) as {
    apiVersion: number;
    datasources: { type: string; url: string }[];
  };
  assert.equal(sources.apiVersion, 1);
  assert.equal(sources.datasources[0]?.type, "prometheus");
  assert.match(sources.datasources[0]?.url ?? "", /^https?:\/\//);
});
