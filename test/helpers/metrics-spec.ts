/**
 * The metrics the service promises (docs/operations.md#metrics): each
 * `mesh_provisioner_*` name with its type and labels, and the process
 * metrics it keeps under prom-client's standard names. Alerts and the
 * Grafana dashboard are written against these names: a rename fails the
 * tests that read this list.
 */
export interface PromisedMetric {
  readonly name: string;
  readonly type: "counter" | "gauge" | "histogram";
  readonly labels: readonly string[];
}

const m = (name: string, type: PromisedMetric["type"], ...labels: string[]): PromisedMetric => ({ name: `mesh_provisioner_${name}`, type, labels });

export const PROMISED: readonly PromisedMetric[] = [
  m("build_info", "gauge", "version", "nodejs_version"),
  m("ready", "gauge"),
  m("seat_held", "gauge"),
  m("seat_vacant_seconds", "gauge"),
  m("seat_handovers_total", "counter"),
  m("seat_acquisitions_total", "counter"),
  m("projection_entries", "gauge", "what"),
  m("projection_out_of_shape_keys", "gauge", "what"),
  m("projection_revision", "gauge", "what"),
  m("projection_stream_last_sequence", "gauge", "what"),
  m("projection_lag_messages", "gauge", "what"),
  m("projection_last_applied_timestamp_seconds", "gauge", "what"),
  m("projection_synced", "gauge", "what"),
  m("projection_heard_timestamp_seconds", "gauge", "bucket"),
  m("projection_stale", "gauge", "bucket"),
  m("projection_start", "gauge", "what", "from"),
  m("projection_first_sync_expected_entries", "gauge", "what"),
  m("projection_first_sync_received_entries", "gauge", "what"),
  m("reconcile_runs_total", "counter", "result"),
  m("reconcile_last_success_timestamp_seconds", "gauge"),
  m("registry_writes_total", "counter", "op"),
  m("registry_drift_total", "counter"),
  m("registry_drifted", "gauge"),
  m("verb_requests_total", "counter", "what", "status"),
  m("verb_errors_total", "counter", "status"),
  m("verb_duration_seconds", "histogram", "what"),
  m("checkpoint_last_written_timestamp_seconds", "gauge", "bucket"),
  m("checkpoint_age_seconds", "gauge", "bucket"),
  m("checkpoint_size_bytes", "gauge", "bucket"),
  m("checkpoint_written_bytes_total", "counter", "bucket"),
  m("checkpoint_writes_total", "counter", "bucket", "result"),
  m("checkpoint_fallbacks_total", "counter", "bucket", "reason"),
  m("watch_consumer_creations_total", "counter", "bucket", "outcome"),
  m("nats_connected", "gauge"),
  m("nats_reconnects_total", "counter"),
  m("nats_disconnected_seconds", "gauge"),
  m("nodes_flooding", "gauge"),
  m("node_flooding_keys", "gauge", "node"),
];

/** prom-client's process metrics under their standard names, as the usual Node.js dashboards query them. */
export const PROCESS_METRICS: readonly PromisedMetric[] = [
  { name: "process_cpu_seconds_total", type: "counter", labels: [] },
  { name: "process_resident_memory_bytes", type: "gauge", labels: [] },
  { name: "process_start_time_seconds", type: "gauge", labels: [] },
  { name: "nodejs_eventloop_lag_seconds", type: "gauge", labels: [] },
  { name: "nodejs_eventloop_lag_p99_seconds", type: "gauge", labels: [] },
  { name: "nodejs_heap_size_used_bytes", type: "gauge", labels: [] },
  { name: "nodejs_gc_duration_seconds", type: "histogram", labels: ["kind"] },
];

/** prom-client's default gauges whose names end in `_total` (only counters may): not exported. */
export const LEFT_OUT = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"];
