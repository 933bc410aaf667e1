/** The reconcile's metrics: runs by result, the last success, registry writes by operation, and drift. */
import type { MetricsDef } from "./define.js";
import type { SourceOf } from "./source.js";

export function reconcileMetrics(def: MetricsDef, source: SourceOf): void {
  def.tallyCounter(
    {
      name: "mesh_provisioner_reconcile_runs_total",
      help: "Reconciles of the registry, by result: ok, error (a write failed), skipped (this instance does not hold the seat)",
      labelNames: ["result"],
    },
    () => {
      const r = source()?.reconciler.results;
      return r && (["ok", "error", "skipped"] as const).map((result) => [{ result }, r[result]] as const);
    },
  );
  def.gauge({
    name: "mesh_provisioner_reconcile_last_success_timestamp_seconds",
    help: "Unix time at which this instance last finished a reconcile with no failed write (0: never)",
    collect() {
      const p = source();
      if (p) this.set(p.reconciler.lastSuccessAt / 1000);
    },
  });
  def.tallyCounter({ name: "mesh_provisioner_registry_writes_total", help: "Registry writes made by this instance, by operation", labelNames: ["op"] }, () => {
    const w = source()?.reconciler.writes;
    return (
      w && [
        [{ op: "create" }, w["created"] ?? 0],
        [{ op: "update" }, w["updated"] ?? 0],
        [{ op: "delete" }, w["deleted"] ?? 0],
      ]
    );
  });
  def.tallyCounter(
    {
      name: "mesh_provisioner_registry_drift_total",
      help: "Times this instance saw the registry bucket start to differ from the compiled table after it had equalled it",
    },
    () => {
      const p = source();
      return p && [[{}, p.reconciler.drift.drifts]];
    },
  );
  def.gauge({
    name: "mesh_provisioner_registry_drifted",
    help: "1 while the registry projection differs from the compiled table (the seat's holder repairs it)",
    collect() {
      const p = source();
      if (p) this.set(p.reconciler.drift.drifted ? 1 : 0);
    },
  });
}
