/**
 * `mesh-provisioner serve`: run the service in this process until SIGTERM or
 * SIGINT, then stop answering, finish the write in flight, drain the
 * connection and exit 0.
 */
import { serveConfig, type ServeFlags } from "../config.js";
import { connectBus } from "../connect.js";
import { createLogger, type Logger } from "../log.js";
import { startProvisioner, type Provisioner } from "../main.js";
import { formatDuration } from "../duration.js";
import { failAndExit } from "./fail.js";
import type { HttpHandle } from "../http/server.js";
import { writeOwnDump } from "../dump/document.js";
import { setHeapGrowing } from "../heap.js";

export interface Served {
  readonly provisioner: Provisioner;
  readonly log: Logger;
  readonly http?: HttpHandle;
  /** Stop everything and close the connection (what the signals do). */
  shutdown(reason: string): Promise<void>;
}

export async function serve(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): Promise<Served> {
  let log: Logger | undefined;
  try {
    const cfg = serveConfig(flags, env);
    log = createLogger({ level: cfg.logLevel });
    setHeapGrowing(cfg.heapGrowingPercent);
    log.info(
      {
        servers: cfg.connection.servers,
        registryInterval: formatDuration(cfg.registryIntervalMs),
        seatTtl: formatDuration(cfg.seatTtlMs),
        replicas: cfg.replicas,
        heapGrowingPercent: cfg.heapGrowingPercent,
        pid: process.pid,
      },
      "starting mesh-provisioner",
    );
    const nc = await connectBus(cfg.connection, "mesh-provisioner");
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === "disconnect") log?.warn({ server: s.server }, "lost the connection to NATS; reconnecting");
        else if (s.type === "reconnect") log?.info({ server: s.server }, "reconnected to NATS");
      }
    })().catch(() => undefined);
    // Metrics and the HTTP server are loaded only when --http asks for them.
    const metrics = cfg.http ? (await import("../metrics/metrics.js")).createMetrics({ nc }) : undefined;
    const provisioner = await startProvisioner(
      nc,
      {
        registryIntervalMs: cfg.registryIntervalMs,
        seatTtlMs: cfg.seatTtlMs,
        driftDelayMs: cfg.driftDelayMs,
        maxWaitMs: cfg.maxWaitMs,
        replicas: cfg.replicas,
        inboxPrefix: cfg.connection.inboxPrefix,
        bucketLimits: cfg.bucketLimits,
        floodLimits: cfg.floodLimits,
        checkpointEveryMs: cfg.checkpointEveryMs,
        checkpointMaxBytes: cfg.checkpointMaxBytes,
        observe: metrics?.observe,
      },
      log,
    );
    metrics?.bind(provisioner, provisioner.jsm);
    const http =
      cfg.http && metrics ? await (await import("../http/server.js")).startHttp({ ...cfg.http, token: cfg.httpToken, provisioner, metrics, log }) : undefined;
    const l = log;
    let done: Promise<void> | undefined;
    const shutdown = (reason: string): Promise<void> =>
      (done ??= (async () => {
        l.info({ reason }, "stopping: no new requests, finishing the write in flight");
        await http?.close();
        await provisioner.stop();
        await nc.drain().catch(() => undefined);
        l.info("stopped cleanly");
      })());
    return { provisioner, log, http, shutdown };
  } catch (err) {
    failAndExit(err, log);
  }
}

/**
 * The command itself: serve, and exit 0 on SIGTERM/SIGINT once stopped. The
 * signal handlers are in place before start-up begins: a signal that arrives
 * while the service is still starting stops it cleanly as soon as it is up.
 */
export async function serveCommand(flags: ServeFlags): Promise<void> {
  let served: Served | undefined;
  let signalled: string | undefined;
  const stop = (s: Served, reason: string): void => {
    s.shutdown(reason).then(
      () => process.exit(0),
      (err: unknown) => {
        s.log.error({ err }, "the stop did not finish cleanly");
        process.exit(1);
      },
    );
  };
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.on(sig, () => {
      if (signalled !== undefined) return;
      signalled = sig;
      if (served !== undefined) stop(served, sig);
    });
  }
  served = await serve(flags);
  const s = served;
  if (signalled !== undefined) {
    stop(s, `${signalled} during start-up`);
    return;
  }
  dumpOnSigusr2(s);
}

/**
 * SIGUSR2 writes this instance's own dump to the temporary directory and logs
 * its path; the process keeps running. `serve` and `npm start` both install it
 * once the service is up (before that, SIGUSR2 has Node's default: it ends the
 * process).
 */
export function dumpOnSigusr2(s: Served): void {
  process.on("SIGUSR2", () => {
    writeOwnDump(s.provisioner).then(
      (path) => s.log.info({ path }, "SIGUSR2: wrote this instance's dump"),
      (err: unknown) => s.log.error({ err: (err as Error).message }, "SIGUSR2: the dump could not be written"),
    );
  });
}
