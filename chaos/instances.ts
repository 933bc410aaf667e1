/**
 * The three `serve` instances of a chaos run (I/O), each in a slot (A, B, C)
 * that outlives its processes: a slot reaches the three servers through three
 * TCP proxies of its own (so its connection can be cut alone), restarts its
 * process when a fault kills it, and is probed twice a second on /readyz to
 * record when it could not answer. A process that exits without the run
 * killing it is recorded and started again a second later, as a supervisor
 * would.
 */
import { request } from "node:http";
import { spawnService, type LogLine, type ServiceProcess } from "../test/helpers/processes.js";
import { startTcpProxy, type TcpProxy } from "../test/helpers/tcp-proxy.js";
import type { ChaosCluster } from "./cluster.js";
import type { AvailabilityChange, History, ProcessRecord } from "./history.js";

export const FLOOD_MSG = "a node is flooding its keys";
const SYNCED_MSG = "all projections synced: answering from them";
const HTTP_MSG = "serving /healthz, /readyz, /metrics and the dashboard";
const PROBE_MS = 500;

export interface SlotOptions {
  readonly ttl: string;
  /** More serve flags (limits, when the service has them). */
  readonly extraArgs?: readonly string[];
}

type State = AvailabilityChange["state"];

function getReadyz(url: string, timeoutMs: number): Promise<{ status: number; body: { connected?: boolean } } | undefined> {
  return new Promise((resolve) => {
    const req = request(`${url}/readyz`, { timeout: timeoutMs }, (res) => {
      let data = "";
      res.setEncoding("utf8").on("data", (c: string) => (data += c));
      res.on("end", () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) as { connected?: boolean } });
        } catch {
          resolve({ status: res.statusCode ?? 0, body: {} });
        }
      });
    });
    req.once("error", () => resolve(undefined));
    req.once("timeout", () => req.destroy());
    req.end();
  });
}

const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };
const KEEP_LINES = 300;

/** A process's log as short lines for the history (the first and last ones when it is long). */
export function logOf(p: ServiceProcess, history: History): string[] {
  const show = (l: LogLine): string => {
    // pino's own fields are said already, or not worth a history line.
    const { level, time: _time, pid: _pid, hostname: _hostname, name: _name, msg: _msg, ...rest } = l.fields as Record<string, unknown>;
    return `${history.fromEpoch(l.receivedAt)} ${LEVELS[Number(level)] ?? level} ${l.msg} ${JSON.stringify(rest)}`;
  };
  const lines = p.lines.length <= KEEP_LINES ? p.lines : [...p.lines.slice(0, KEEP_LINES / 3), ...p.lines.slice(-(2 * KEEP_LINES) / 3)];
  return [...lines.map(show), ...p.otherOutput.slice(-5)];
}

export class Slot {
  proc: ServiceProcess | undefined;
  record: ProcessRecord | undefined;
  httpUrl: string | undefined;
  state: State = "down";
  isCut = false;
  /** Set by the injector before it kills the process: the exit is expected. */
  private expectedBy: string | undefined;
  private scanned = 0;
  private respawnTimer: NodeJS.Timeout | undefined;
  supervise = true;
  readonly spawned: ServiceProcess[] = [];

  constructor(
    readonly name: string,
    private readonly proxies: TcpProxy[],
    private readonly cluster: ChaosCluster,
    private readonly history: History,
    private readonly opts: SlotOptions,
  ) {}

  get instance(): string | undefined {
    return this.proc?.instance;
  }

  get alive(): boolean {
    return this.proc !== undefined && this.proc.exit === undefined;
  }

  get synced(): boolean {
    return this.record?.syncedAt !== undefined && this.alive;
  }

  spawn(): ServiceProcess {
    clearTimeout(this.respawnTimer);
    const c = this.cluster.provisioner;
    const args = [
      ...["--user", c.user, "--password", c.password, "--replicas", "3", "--seat-ttl", this.opts.ttl],
      ...["--drift-delay", "100ms", "--max-wait", "2s", "--http", "127.0.0.1:0", "--log-level", "info"],
      // Checkpoints every few seconds: every instance started again (a kill, a restart of all) starts from one.
      ...["--checkpoint-every", "3s"],
      ...(this.opts.extraArgs ?? []),
    ];
    const p = spawnService({ server: this.proxies.map((x) => x.url).join(","), args, name: `${this.name}`, env: { LOG_FORMAT: "json" } });
    const rec: ProcessRecord = { slot: this.name, pid: p.pid, spawnedAt: this.history.now() };
    this.proc = p;
    this.record = rec;
    this.httpUrl = undefined;
    this.scanned = 0;
    this.expectedBy = undefined;
    this.spawned.push(p);
    this.history.processes.push(rec);
    void p.exited.then((exit) => {
      rec.exitedAt = this.history.now();
      rec.log = logOf(p, this.history);
      rec.code = exit.code;
      rec.signal = exit.signal;
      rec.instance ??= p.instance;
      if (this.proc === p && this.expectedBy !== undefined) rec.endedBy = this.expectedBy;
      if (rec.endedBy === undefined) {
        this.history.note(`${this.name}: process ${p.pid} exited on its own (code ${exit.code}, signal ${exit.signal}); last lines:\n${p.tail(8)}`);
        if (this.supervise && this.proc === p) this.respawnTimer = setTimeout(() => this.supervise && !this.alive && this.spawn(), 1000);
      }
    });
    return p;
  }

  /** SIGKILL the process; the run (fault `by`) restarts it later. */
  async kill(by: string): Promise<void> {
    const p = this.proc;
    if (!p || p.exit) return;
    this.expectedBy = by;
    if (this.record) this.record.endedBy = by;
    await p.stop("SIGKILL");
  }

  pause(): void {
    this.proc?.signal("SIGSTOP");
  }

  resume(): void {
    this.proc?.signal("SIGCONT");
  }

  cut(): void {
    this.isCut = true;
    for (const x of this.proxies) x.cut();
  }

  restore(): void {
    this.isCut = false;
    for (const x of this.proxies) x.restore();
  }

  /** Read the new log lines: instance id, HTTP address, first sync, flood reports. */
  scan(): void {
    const p = this.proc;
    if (!p) return;
    const lines: readonly LogLine[] = p.lines;
    for (; this.scanned < lines.length; this.scanned++) {
      const l = lines[this.scanned]!;
      if (l.msg === HTTP_MSG && typeof l.fields["url"] === "string") this.httpUrl = l.fields["url"];
      if (l.msg.startsWith(SYNCED_MSG) && this.record && this.record.syncedAt === undefined) this.record.syncedAt = this.history.now();
      if (l.msg.startsWith(FLOOD_MSG)) {
        this.history.flood.push({ slot: this.name, instance: p.instance, at: this.history.fromEpoch(l.receivedAt), msg: l.msg, fields: l.fields });
      }
    }
    if (this.record && p.instance) this.record.instance ??= p.instance;
  }

  /** One probe of /readyz: ready, not ready (answers from what it applied), or down. */
  async probe(): Promise<State> {
    this.scan();
    let state: State = "down";
    if (this.alive && this.httpUrl) {
      const r = await getReadyz(this.httpUrl, 400);
      if (r?.status === 200) state = "ready";
      else if (r?.status === 503 && r.body.connected === true && this.record?.syncedAt !== undefined) state = "not-ready";
    }
    if (state !== this.state) {
      this.state = state;
      this.history.availability.push({ slot: this.name, at: this.history.now(), state });
    }
    return state;
  }

  async stop(): Promise<void> {
    this.supervise = false;
    clearTimeout(this.respawnTimer);
    const p = this.proc;
    if (p && !p.exit && this.record) this.record.endedBy ??= "run end";
    await Promise.all(this.spawned.map((x) => x.stop("SIGKILL")));
    await Promise.all(this.proxies.map((x) => x.close().catch(() => undefined)));
  }
}

export class Instances {
  private probing: NodeJS.Timeout | undefined;

  private constructor(readonly slots: Slot[]) {}

  static async start(cluster: ChaosCluster, history: History, opts: SlotOptions): Promise<Instances> {
    const slots: Slot[] = [];
    for (const name of ["A", "B", "C"]) {
      const proxies = await Promise.all(cluster.servers.map((s) => startTcpProxy({ port: s.port })));
      slots.push(new Slot(name, proxies, cluster, history, opts));
    }
    return new Instances(slots);
  }

  bySlot(i: number): Slot {
    return this.slots[i]!;
  }

  byInstance(instance: string | undefined): Slot | undefined {
    return instance === undefined ? undefined : this.slots.find((s) => s.alive && s.instance === instance);
  }

  startProbing(): void {
    const tick = (): void => {
      void Promise.all(this.slots.map((s) => s.probe())).finally(() => {
        if (this.probing) this.probing = setTimeout(tick, PROBE_MS);
      });
    };
    this.probing = setTimeout(tick, 0);
  }

  stopProbing(): void {
    clearTimeout(this.probing);
    this.probing = undefined;
  }

  allReady(): boolean {
    return this.slots.every((s) => s.state === "ready");
  }

  async stop(): Promise<void> {
    this.stopProbing();
    await Promise.all(this.slots.map((s) => s.stop()));
  }
}
