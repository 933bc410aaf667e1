/**
 * `mesh-provisioner serve`: run the service in this process until SIGTERM or
 * SIGINT, then stop gracefully (src/stop.ts: not ready at once, the verb
 * drained beside the seat's handover, the watches stopped, the connection
 * drained, the HTTP server closed last) and exit 0; 1 if the stop failed or
 * overran its bound.
 */
import { serveConfig, type ServeFlags } from "../config.js";
import { connectBus } from "../connect.js";
import { createLogger, type Logger } from "../log.js";
import { startProvisioner, type Provisioner } from "../main.js";
import { jetStreamAccess } from "../streams/jetstream-access.js";
import { formatDuration } from "../duration.js";
import { failAndExit } from "./fail.js";
import type { HttpHandle } from "../http/server.js";
import { writeOwnDump } from "../dump/document.js";
import { setHeapGrowing } from "../heap.js";
import { STOP_LIMITS, stopBound, TIMED_OUT, within } from "../stop.js";

export interface Served {
  readonly provisioner: Provisioner;
  readonly log: Logger;
  readonly http?: HttpHandle;
  /** The longest `shutdown` may take (src/stop.ts); `stopThenExit` exits 1 past it. */
  readonly stopBoundMs: number;
  /** Stop everything and close the connection (what the signals do), each step within its limit. */
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
        ...(cfg.noSeat ? { noSeat: true } : {}),
        staleAfter: formatDuration(cfg.staleAfterMs),
        heapGrowingPercent: cfg.heapGrowingPercent,
        ...(cfg.connection.jsDomain !== undefined ? { jsDomain: cfg.connection.jsDomain } : {}),
        pid: process.pid,
      },
      "starting mesh-provisioner",
    );
    // The HTTP port is taken before joining the mesh: a port in use fails the start before the connection, the seat or the first sync.
    const listening = cfg.http ? await (await import("../http/listen.js")).listenHttp(cfg.http.host, cfg.http.port, cfg.http.from) : undefined;
    const nc = await connectBus(cfg.connection, "mesh-provisioner", log);
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === "disconnect") log?.warn({ server: s.server }, "lost the connection to NATS; reconnecting");
        else if (s.type === "reconnect") log?.info({ server: s.server }, "reconnected to NATS");
      }
    })().catch(() => undefined);
    // Metrics and the HTTP server are loaded only when --http asks for them.
    const metrics = listening ? (await import("../metrics/metrics.js")).createMetrics({ nc }) : undefined;
    const provisioner = await startProvisioner(
      nc,
      {
        registryIntervalMs: cfg.registryIntervalMs,
        seatTtlMs: cfg.seatTtlMs,
        driftDelayMs: cfg.driftDelayMs,
        maxWaitMs: cfg.maxWaitMs,
        replicas: cfg.replicas,
        inboxPrefix: cfg.connection.inboxPrefix,
        jetstream: jetStreamAccess(nc, { domain: cfg.connection.jsDomain, inboxPrefix: cfg.connection.inboxPrefix }),
        bucketLimits: cfg.bucketLimits,
        floodLimits: cfg.floodLimits,
        checkpointEveryMs: cfg.checkpointEveryMs,
        checkpointMaxBytes: cfg.checkpointMaxBytes,
        noSeat: cfg.noSeat,
        staleAfterMs: cfg.staleAfterMs,
        observe: metrics?.observe,
      },
      log,
    );
    metrics?.bind(provisioner, provisioner.jsm, provisioner.jetstream.objm());
    const http =
      listening && metrics ? (await import("../http/server.js")).startHttp({ listening, token: cfg.httpToken, provisioner, metrics, log }) : undefined;
    const l = log;
    const bound = stopBound(cfg.maxWaitMs);
    let done: Promise<void> | undefined;
    // The HTTP server closes last: /healthz and /readyz (503, stopping) answer through the whole stop.
    const shutdown = (reason: string): Promise<void> =>
      (done ??= (async () => {
        const since = performance.now();
        l.info({ reason, boundMs: bound.totalMs }, "stopping: not ready; the verb answers what it received while the seat is handed over");
        await provisioner.stop();
        if (
          (await within(
            nc.drain().catch(() => undefined),
            STOP_LIMITS.drainMs,
          )) === TIMED_OUT
        ) {
          l.warn({ waitedMs: STOP_LIMITS.drainMs }, "the connection did not drain in time; closing it");
          await nc.close().catch(() => undefined);
        }
        await http?.close(STOP_LIMITS.httpMs);
        l.info({ tookMs: Math.round(performance.now() - since) }, "stopped cleanly");
      })());
    return { provisioner, log, http, stopBoundMs: bound.totalMs, shutdown };
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
  // A second signal (a supervisor's, then its process group's) changes nothing: the stop under way goes on.
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.on(sig, () => {
      if (signalled !== undefined) return;
      signalled = sig;
      if (served !== undefined) stopThenExit(served, sig);
    });
  }
  // Before start-up too: a reload (SIGHUP) while the service starts must not end it.
  reconnectOnSighup(() => served);
  served = await serve(flags);
  const s = served;
  if (signalled !== undefined) {
    stopThenExit(s, `${signalled} during start-up`);
    return;
  }
  dumpOnSigusr2(s);
}

/**
 * Stop `s`, then run `after` (npm start stops its nats-server there), then
 * exit: 0 once everything stopped, 1 if a step failed or the whole overran
 * `s.stopBoundMs` plus `afterMs` (logged either way).
 */
export function stopThenExit(s: Served, reason: string, after?: () => Promise<void>, afterMs = 0): void {
  const boundMs = s.stopBoundMs + afterMs;
  const overrun = setTimeout(() => {
    s.log.error({ reason, boundMs }, "the stop overran its bound: exiting now; a standby takes the seat after the lease time if it was not released");
    process.exit(1);
  }, boundMs);
  s.shutdown(reason)
    .then(() => after?.())
    .then(
      () => process.exit(0),
      (err: unknown) => {
        clearTimeout(overrun);
        s.log.error({ err }, "the stop did not finish cleanly");
        process.exit(1);
      },
    );
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

/**
 * SIGHUP reconnects to NATS now, so that credentials replaced on disk (the
 * `--creds` or `--nkey` file, the TLS files: all read at each connect) are
 * used without waiting for the next reconnect; the service keeps running and
 * its subscriptions are made again on the new connection. Installed before
 * start-up: a SIGHUP while the service is still starting does nothing, as the
 * connection being made reads the files as they are then.
 */
export function reconnectOnSighup(current: () => Served | undefined): void {
  process.on("SIGHUP", () => {
    const s = current();
    if (s === undefined) return;
    const nc = s.provisioner.nc;
    if (nc.isClosed() || nc.isDraining()) return;
    s.log.info({ server: nc.getServer() }, 'SIGHUP: reconnecting to NATS to use the credentials files as they are now (a "reconnected to NATS" line follows)');
    nc.reconnect().catch((err: unknown) => s.log.warn({ err: (err as Error).message }, "SIGHUP: the reconnect could not start"));
  });
}
