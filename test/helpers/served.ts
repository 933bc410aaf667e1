/** A service with its HTTP endpoints on a free loopback port, as the dashboard and HTTP tests start it. */
import type { Fleet, ServiceProcess, SpawnOptions } from "./processes.js";

export interface Served {
  readonly proc: ServiceProcess;
  /** http://127.0.0.1:PORT, as the service logged it. */
  readonly base: string;
}

export interface ServedOptions extends Partial<Pick<SpawnOptions, "args" | "env" | "name">> {
  /** Wait for "all projections synced" too (the default): the data is there before the test reads it. */
  readonly synced?: boolean;
}

/**
 * Spawn `serve --http 127.0.0.1:0 ARGS` in `fleet`. Port 0: the service binds
 * a free port itself and logs the URL, so there is no race for a "free" port.
 */
export async function spawnServed(fleet: Fleet, opts: ServedOptions = {}): Promise<Served> {
  const proc = fleet.spawn({ ...opts, args: ["--http", "127.0.0.1:0", ...(opts.args ?? [])] });
  const serving = await proc.waitForLine((l) => l.msg.startsWith("serving /healthz"), 15_000, "serving /healthz …");
  const base = String(serving.fields["url"]);
  if (opts.synced !== false) await proc.waitForLine((l) => l.msg.startsWith("all projections synced"), 15_000, "all projections synced");
  return { proc, base };
}
