/** The seat's metrics: whether this instance holds it, how long the mesh has had no holder, handovers and takes. */
import type { MetricsDef } from "./define.js";
import type { SourceOf } from "./source.js";

export function seatMetrics(def: MetricsDef, source: SourceOf): void {
  def.gauge({
    name: "mesh_provisioner_seat_held",
    help: "1 while this instance holds the seat (it writes the registry, the checkpoints and the feed)",
    collect() {
      const p = source();
      if (p) this.set(p.seat.isHolder ? 1 : 0);
    },
  });
  def.gauge({
    name: "mesh_provisioner_seat_vacant_seconds",
    help: "Seconds since the mesh last had a seat holder that may write, as this instance sees the seat's bucket (0 while one may)",
    collect() {
      const p = source();
      if (p) this.set(p.seat.vacantMs / 1000);
    },
  });
  def.tallyCounter({ name: "mesh_provisioner_seat_handovers_total", help: "Times this instance saw the seat go to another holder (itself included)" }, () => {
    const p = source();
    return p && [[{}, p.seat.tally.handovers]];
  });
  def.tallyCounter({ name: "mesh_provisioner_seat_acquisitions_total", help: "Times this instance took the seat" }, () => {
    const p = source();
    return p && [[{}, p.seat.tally.acquisitions]];
  });
}
