/**
 * Start and stop real `nats-server` processes (the binary NATS_SERVER_BIN names, else the
 * PATH's, else /usr/sbin's; tested on 2.9.10 and 2.15.3: docs/servers.md) for tests,
 * benchmarks, the chaos run and `npm start`'s embedded mode.
 *
 * Each server gets its own temporary directory (mkdtemp under os.tmpdir()) holding the
 * generated config file, the log file (the child's stdout and stderr) and the JetStream
 * store. Ports are free loopback ports picked by binding port 0. Readiness is polled,
 * never slept for. Children still alive when this process exits are killed; with
 * `stopWithHost`, a watchdog (watchdog.ts) also stops the server and removes its directory
 * when this process ends without running its exit hooks (SIGKILL, a crash).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, closeSync, constants as fsc, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createConnection, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { Failure } from "../failure.js";
import { startWatchdog, type Watchdog } from "./watchdog.js";

export interface NatsServerOptions {
  jetstream?: boolean; // default true
  jsDomain?: string; // the JetStream domain of this server (jetstream { domain }), as a hub's or a leaf's own
  configText?: string; // extra config appended to the generated config file
  debug?: boolean;
  host?: string; // client listen address, default 127.0.0.1 (monitoring and routes stay on loopback)
  maxPayload?: number;
  keepStore?: boolean; // keep the temporary directory (store, config, log) on stop()
  maxFileStore?: number; // JetStream's max_file_store in bytes (default: the server's own)
  stopWithHost?: boolean; // a watchdog stops the server and removes its directory when this process ends, however it ends
}

export interface RunningNatsServer {
  url: string; // nats://127.0.0.1:PORT
  name: string; // server_name, as JetStream reports leaders and replicas
  port: number;
  storeDir: string; // the JetStream store_dir, inside the server's temporary directory
  pid: number; // of the current process: changes after restart()
  configFile: string;
  logFile: string; // the server's stdout and stderr, appended across restarts
  /** SIGTERM, wait for exit (SIGKILL after 5 s), remove the temp dir unless keepStore. */
  stop(): Promise<void>;
  /** Send a signal (default SIGKILL), wait for exit (SIGKILL after 5 s); the store is kept. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Start again on the same ports, config and store (stopping gracefully first if running). */
  restart(): Promise<void>;
}

export interface RunningCluster {
  servers: RunningNatsServer[];
  urls: string[];
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;
const CLUSTER_TIMEOUT_MS = 30_000;
const EXIT_GRACE_MS = 5_000;
/** The longest a server's `stop()` takes: SIGTERM, SIGKILL after the grace, the wait for that, and a second to remove its store. */
export const STOP_BOUND_MS = 2 * EXIT_GRACE_MS + 1_000;
const POLL_MS = 25;

const fail = (message: string): Failure => new Failure("EMBEDDED_SERVER", message);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const exited = (c: ChildProcess): boolean => c.exitCode !== null || c.signalCode !== null;

function isExecutable(path: string): boolean {
  try {
    return accessSync(path, fsc.X_OK) === undefined;
  } catch {
    return false;
  }
}

export function findNatsServer(): string {
  const fromEnv = process.env["NATS_SERVER_BIN"];
  if (fromEnv) {
    // An explicit choice that is wrong is an error, not a reason to silently use another binary.
    if (isExecutable(fromEnv)) return fromEnv;
    throw fail(`NATS_SERVER_BIN is set to ${fromEnv}, which is not an executable file`);
  }
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (dir && isExecutable(join(dir, "nats-server"))) return join(dir, "nats-server");
  }
  if (isExecutable("/usr/sbin/nats-server")) return "/usr/sbin/nats-server";
  throw fail(`nats-server was not found (looked at NATS_SERVER_BIN, PATH and /usr/sbin/nats-server): \
install it with \`sudo apt-get install nats-server\`, or set NATS_SERVER_BIN to the binary's path`);
}

/** Bind `count` ports on 127.0.0.1 at once (so they are distinct), then release them all. */
async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const srv = createServer();
      servers.push(srv);
      await new Promise<void>((res, rej) => srv.once("error", rej).listen(0, "127.0.0.1", () => res()));
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
}

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

// ---- cleanup of live children when this process goes away --------------------------------

const live = new Set<ChildProcess>();
/** Watchdogs of live servers: disarmed before their servers are killed here. */
const watchdogs = new Set<Watchdog>();
/** Temporary directories to remove at exit (all but keepStore ones, until stop() removes them). */
const tempDirs = new Set<string>();
let hooksInstalled = false;

function killAllNow(): void {
  for (const w of watchdogs) w.disarm();
  watchdogs.clear();
  for (const child of live) child.kill("SIGKILL"); // ESRCH is swallowed by Node
  live.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", killAllNow);
  // A signal's default action skips 'exit'. If nobody else handles the signal, kill the
  // children and re-raise it; if the host has its own handler it owns shutdown (and its
  // eventual process.exit() runs the 'exit' hook above).
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = (): void => {
      if (process.listenerCount(sig) > 1) return;
      killAllNow();
      process.removeListener(sig, onSignal);
      process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

// ---- one server process ---------------------------------------------------------------------

/** Where clients reach a server listening on `host` (a wildcard address means loopback). */
const dialHost = (host: string): string => (host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host);

interface Layout {
  name: string;
  host: string;
  port: number;
  httpPort: number;
  cluster?: { name: string; port: number; routes: number[] };
}

function configFor(l: Layout, storeDir: string, opts: NatsServerOptions): string {
  const lines = [`server_name: ${JSON.stringify(l.name)}`, `listen: "${l.host}:${l.port}"`, `http: "127.0.0.1:${l.httpPort}"`];
  if (opts.maxPayload !== undefined) lines.push(`max_payload: ${opts.maxPayload}`);
  if (opts.debug) lines.push("debug: true", "trace: false");
  if (opts.jetstream !== false) {
    const max = opts.maxFileStore === undefined ? "" : `, max_file_store: ${opts.maxFileStore}`;
    const domain = opts.jsDomain === undefined ? "" : `, domain: ${JSON.stringify(opts.jsDomain)}`;
    lines.push(`jetstream { store_dir: ${JSON.stringify(storeDir)}${max}${domain} }`);
  }
  if (l.cluster) {
    const { name, port, routes } = l.cluster;
    const urls = routes.map((p) => `"nats-route://127.0.0.1:${p}"`).join(", ");
    lines.push(`cluster { name: ${JSON.stringify(name)}, listen: "127.0.0.1:${port}", routes: [${urls}] }`);
  }
  if (opts.configText) lines.push(opts.configText);
  return lines.join("\n") + "\n";
}

/** The last lines of the server's log, for error messages. */
function logTail(logFile: string, lines = 20): string {
  try {
    return readFileSync(logFile, "utf8").slice(-4096).trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

function tcpAccepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host, port }, () => (sock.destroy(), resolve(true)));
    sock.once("error", () => resolve(false));
    sock.setTimeout(1000, () => (sock.destroy(), resolve(false)));
  });
}

/** The parts of the monitoring endpoints' JSON read here (/jsz and /routez). */
interface MonitorBody {
  readonly meta_cluster?: { readonly leader?: string };
  readonly num_routes?: number;
}

/** GET a monitoring endpoint: its status and JSON body, or undefined on any failure. */
function monitor(port: number, path: string): Promise<{ status: number; body: MonitorBody | undefined } | undefined> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, timeout: 2000 }, (res) => {
      let data = "";
      res.setEncoding("utf8").on("data", (c: string) => (data += c));
      res.on("end", () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) });
        } catch {
          resolve(undefined);
        }
      });
    });
    req.once("error", () => resolve(undefined));
    req.once("timeout", () => req.destroy());
    req.end();
  });
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    child.once("exit", () => (clearTimeout(t), resolve(true)));
  });
}

/** Send `signal`, wait for exit, escalate to SIGKILL after the grace period. */
async function terminate(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (exited(child)) return;
  child.kill(signal);
  if (await waitExit(child, EXIT_GRACE_MS)) return;
  child.kill("SIGKILL");
  await waitExit(child, EXIT_GRACE_MS);
}

/** Spawn the server on a prepared layout and wait until it is ready. */
async function launch(l: Layout, opts: NatsServerOptions): Promise<RunningNatsServer> {
  const bin = findNatsServer();
  installExitHooks();
  const dir = mkdtempSync(join(tmpdir(), "nats-server-"));
  const storeDir = join(dir, "store");
  const configFile = join(dir, "nats-server.conf");
  const logFile = join(dir, "nats-server.log");
  const keep = opts.keepStore === true;
  const removeDir = (): void => {
    if (keep) return;
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  };
  if (!keep) tempDirs.add(dir);
  writeFileSync(configFile, configFor(l, storeDir, opts));
  let child: ChildProcess | undefined;

  const spawnAndWait = async (): Promise<void> => {
    const fd = openSync(logFile, "a"); // the child writes straight to the file, no pipes to drain
    try {
      // Own process group: a terminal's Ctrl-C reaches only us, so the host can drain its
      // connections before stopping the server; the exit hooks above kill it otherwise.
      child = spawn(bin, ["-c", configFile], { stdio: ["ignore", fd, fd], detached: true });
    } finally {
      closeSync(fd);
    }
    const me = child;
    live.add(me);
    me.once("exit", () => live.delete(me));
    if (opts.stopWithHost && me.pid !== undefined) {
      // Disarmed as the server's exit is seen: until then its pid is the server's own.
      const w = startWatchdog(me.pid, dir);
      watchdogs.add(w);
      me.once("exit", () => (w.disarm(), watchdogs.delete(w)));
    }
    let spawnError: Error | undefined;
    me.once("error", (e) => (spawnError = e));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    // With JetStream, healthz also says JetStream is up; without, /varz answering is enough.
    const probe = opts.jetstream === false ? "/varz" : "/healthz?js-enabled-only=true";
    while (Date.now() < deadline) {
      if (spawnError || exited(me)) {
        const how = spawnError ? spawnError.message : `exited with ${me.exitCode ?? me.signalCode}`;
        throw fail(`nats-server ${l.name} (${bin}) ${how} before it was ready; log tail:\n${logTail(logFile)}`);
      }
      const res = await monitor(l.httpPort, probe);
      if (res?.status === 200 && (await tcpAccepts(dialHost(l.host), l.port))) return;
      await sleep(POLL_MS);
    }
    await terminate(me, "SIGKILL");
    throw fail(`nats-server ${l.name} was not ready within ${READY_TIMEOUT_MS} ms; log tail:\n${logTail(logFile)}`);
  };

  try {
    await spawnAndWait();
  } catch (err) {
    removeDir();
    throw err;
  }

  return {
    url: `nats://${dialHost(l.host)}:${l.port}`,
    name: l.name,
    port: l.port,
    storeDir,
    configFile,
    logFile,
    get pid() {
      return child?.pid ?? -1;
    },
    async stop() {
      if (child) await terminate(child, "SIGTERM");
      removeDir();
    },
    async kill(signal: NodeJS.Signals = "SIGKILL") {
      if (child) await terminate(child, signal);
    },
    async restart() {
      if (child) await terminate(child, "SIGTERM");
      await spawnAndWait();
    },
  };
}

/** Retry `start` (with new ports) when a port picked as free was taken before the server bound it. */
async function retryOnPortClash<T>(attempts: number, start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= attempts || !(err instanceof Error && /address already in use/i.test(err.message))) throw err;
    }
  }
}

export async function startNatsServer(opts: NatsServerOptions = {}): Promise<RunningNatsServer> {
  return retryOnPortClash(3, async () => {
    const [port, httpPort] = (await freePorts(2)) as [number, number];
    return launch({ name: `nats-${port}`, host: opts.host ?? "127.0.0.1", port, httpPort }, opts);
  });
}

/** Resolve when every server reports the same JetStream meta leader (or, without JetStream, all routes). */
async function waitClusterFormed(httpPorts: number[], jetstream: boolean): Promise<void> {
  const size = httpPorts.length;
  const deadline = Date.now() + CLUSTER_TIMEOUT_MS;
  let last = "";
  while (Date.now() < deadline) {
    if (jetstream) {
      const views = await Promise.all(httpPorts.map((p) => monitor(p, "/jsz")));
      const leaders = views.map((v) => v?.body?.meta_cluster?.leader);
      last = `meta leaders seen: ${JSON.stringify(leaders)}`;
      if (leaders[0] && leaders.every((x) => x === leaders[0])) return;
    } else {
      const views = await Promise.all(httpPorts.map((p) => monitor(p, "/routez")));
      const routes = views.map((v) => v?.body?.num_routes);
      last = `routes seen: ${JSON.stringify(routes)}`;
      if (routes.every((n) => n === size - 1)) return;
    }
    await sleep(100);
  }
  throw fail(`the ${size}-server cluster did not form within ${CLUSTER_TIMEOUT_MS} ms (${last})`);
}

export async function startNatsCluster(size = 3, opts: NatsServerOptions = {}): Promise<RunningCluster> {
  if (!Number.isInteger(size) || size < 1) throw fail(`cluster size must be a positive integer, got ${size}`);
  return retryOnPortClash(2, async () => {
    const ports = await freePorts(size * 3); // client, monitoring and route port of each server
    const clusterName = `mesh-${ports[0]}`;
    const routePorts = Array.from({ length: size }, (_, j) => ports[j * 3 + 2]!);
    const layouts: Layout[] = routePorts.map((routePort, i) => ({
      name: `${clusterName}-n${i + 1}`,
      host: opts.host ?? "127.0.0.1",
      port: ports[i * 3]!,
      httpPort: ports[i * 3 + 1]!,
      cluster: { name: clusterName, port: routePort, routes: routePorts.filter((p) => p !== routePort) },
    }));
    const started = await Promise.allSettled(layouts.map((l) => launch(l, opts)));
    const servers = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const stop = async (): Promise<void> => void (await Promise.all(servers.map((s) => s.stop())));
    try {
      const failed = started.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed) throw failed.reason;
      await waitClusterFormed(
        layouts.map((l) => l.httpPort),
        opts.jetstream !== false,
      );
      return { servers, urls: servers.map((s) => s.url), stop };
    } catch (err) {
      await stop();
      throw err;
    }
  });
}
