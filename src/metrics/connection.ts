/**
 * The connection to the bus as the metrics see it, fed by the client's
 * status events (`nc.status()`): whether it is up, since when it is down,
 * and how often it came back.
 */
import type { NatsConnection, Status } from "@nats-io/nats-core";
import type { MetricsDef } from "./define.js";

/** The connection's state from its status events (pure: the events and the clock are given). */
export class ConnectionState {
  reconnects = 0;
  /** Unix milliseconds at which the connection was lost; undefined while it is up. */
  downSince: number | undefined;

  saw(type: Status["type"], at: number): void {
    if (type === "disconnect" || type === "close") this.downSince ??= at;
    else if (type === "reconnect") {
      this.reconnects++;
      this.downSince = undefined;
    }
  }
}

export type WatchedConnection = Pick<NatsConnection, "status" | "isClosed">;

export function connectionMetrics(def: MetricsDef, nc: WatchedConnection | undefined, now: () => number = Date.now): void {
  const state = new ConnectionState();
  if (nc !== undefined) {
    void (async () => {
      for await (const s of nc.status()) state.saw(s.type, now());
    })().catch(() => undefined);
  }
  const up = (): boolean => nc !== undefined && state.downSince === undefined && !nc.isClosed();
  def.gauge({
    name: "mesh_provisioner_nats_connected",
    help: "1 while the connection to NATS is up",
    collect() {
      this.set(up() ? 1 : 0);
    },
  });
  def.gauge({
    name: "mesh_provisioner_nats_disconnected_seconds",
    help: "Seconds since the connection to NATS was lost (0 while it is up)",
    collect() {
      if (nc === undefined || up()) this.set(0);
      else this.set((now() - (state.downSince ?? now())) / 1000);
    },
  });
  def.tallyCounter({ name: "mesh_provisioner_nats_reconnects_total", help: "Times the connection to NATS came back after it was lost" }, () => [
    [{}, state.reconnects],
  ]);
}
