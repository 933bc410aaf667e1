/**
 * The driver's child processes (the service and the anchors): spawn, read
 * their lines, wait for one with a deadline, stop them. Every child ever
 * spawned is remembered until it exits, so that `stopAll()` (at the end, on
 * an error, on SIGINT) leaves none behind.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join, resolve } from "node:path";

/** The project's root: dist/bench/children.js is two levels below it. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const GC_HOOK = pathToFileURL(join(ROOT, "dist", "bench", "gc-hook.js")).href;
/** The node flags every measured process gets: a gc that can be forced the same way in each. */
export const MEASURED_NODE_FLAGS = ["--expose-gc", `--import=${GC_HOOK}`];

const KEEP_LINES = 40;
const STOP_GRACE_MS = 5000;
const live = new Set<Child>();

type Stream = "stdout" | "stderr";
type Waiter = { stream: Stream; test: (line: string) => unknown; resolve: (v: unknown) => void };

export class Child {
  readonly proc: ChildProcess;
  /** Date.now() just before the spawn: the start of every "from spawn" figure. */
  readonly spawnedAt: number;
  private readonly recent: string[] = [];
  private waiters: Waiter[] = [];
  private exitInfo: string | undefined;
  /** Called with every line the child writes (e.g. to count `--trace-gc` lines). */
  onAnyLine: ((stream: Stream, line: string) => void) | undefined;

  constructor(
    readonly name: string,
    args: readonly string[],
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.spawnedAt = Date.now();
    this.proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    live.add(this);
    for (const stream of ["stdout", "stderr"] as const) {
      const rl = createInterface({ input: this.proc[stream]! });
      rl.on("line", (line) => this.onLine(stream, line));
    }
    this.proc.once("error", (err) => this.onExit(`could not start: ${err.message}`));
    this.proc.once("exit", (code, signal) => this.onExit(`exited with ${code ?? signal}`));
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  /**
   * The CPU time (user + system, ms) the child has used so far, read from
   * Linux's /proc (its clock ticks are hundredths of a second there);
   * undefined elsewhere or once it has exited.
   */
  cpuMs(): number | undefined {
    try {
      // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const f = readFileSync(`/proc/${this.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      const ticks = Number(f[11]) + Number(f[12]);
      return Number.isFinite(ticks) ? ticks * 10 : undefined;
    } catch {
      return undefined;
    }
  }

  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  private onLine(stream: Stream, line: string): void {
    this.onAnyLine?.(stream, line);
    this.recent.push(`${stream}: ${line}`);
    if (this.recent.length > KEEP_LINES) this.recent.shift();
    for (const w of [...this.waiters]) {
      if (w.stream !== stream) continue;
      let found: unknown;
      try {
        found = w.test(line);
      } catch {
        found = undefined;
      }
      if (found !== undefined && found !== false) {
        this.waiters = this.waiters.filter((x) => x !== w);
        w.resolve(found);
      }
    }
  }

  private onExit(info: string): void {
    this.exitInfo ??= info;
    live.delete(this);
    for (const w of this.waiters) w.resolve(undefined);
    this.waiters = [];
  }

  /** The child's last lines, for error messages. */
  tail(): string {
    return this.recent.join("\n");
  }

  /**
   * Wait for a line on `stream` for which `test` returns something (not
   * undefined/false), and return that. Fails on timeout or when the child exits.
   */
  async waitFor<T>(stream: Stream, test: (line: string) => T | undefined | false, timeoutMs: number, what: string): Promise<T> {
    if (this.exitInfo) throw new Error(`${this.name} ${this.exitInfo} before ${what}; last lines:\n${this.tail()}`);
    let timer: NodeJS.Timeout | undefined;
    const found = await new Promise<unknown>((res) => {
      const w: Waiter = { stream, test, resolve: res };
      this.waiters.push(w);
      timer = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        res(TIMEOUT);
      }, timeoutMs);
    });
    clearTimeout(timer);
    if (found === TIMEOUT) throw new Error(`${this.name}: no ${what} within ${timeoutMs} ms; last lines:\n${this.tail()}`);
    if (found === undefined) throw new Error(`${this.name} ${this.exitInfo ?? "ended"} before ${what}; last lines:\n${this.tail()}`);
    return found as T;
  }

  /** Wait for the first JSON line on stdout (how anchors report); an `error` field fails. */
  async result(timeoutMs: number, what = "result"): Promise<Record<string, unknown>> {
    const obj = await this.waitFor("stdout", jsonLine, timeoutMs, what);
    if (typeof obj["error"] === "string") throw new Error(`${this.name}: ${obj["error"]}`);
    return obj;
  }

  signal(sig: NodeJS.Signals): void {
    if (!this.exited) this.proc.kill(sig);
  }

  /** SIGTERM, wait for the exit, SIGKILL after a grace period. */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.proc.once("exit", () => r()));
    this.proc.kill("SIGTERM");
    const t = setTimeout(() => this.proc.kill("SIGKILL"), graceMs);
    // Both timers are cleared once the child is gone: a pending one would keep the driver alive after its last phase.
    let giveUp: NodeJS.Timeout | undefined;
    await Promise.race([gone, new Promise((r) => (giveUp = setTimeout(r, 2 * graceMs)))]);
    clearTimeout(t);
    clearTimeout(giveUp);
    live.delete(this);
  }
}

const TIMEOUT = Symbol("timeout");

export function jsonLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((c) => c.stop()));
}

/** Last resort at process exit: no child outlives the driver. */
export function killAllNow(): void {
  for (const c of live) c.proc.kill("SIGKILL");
  live.clear();
}

// ---- the processes the driver runs ------------------------------------------------------------

/** `serviceArgs`: more flags of `serve` (e.g. `--http 127.0.0.1:0` for the dashboard's bench). */
export function spawnService(url: string, extraNodeFlags: readonly string[] = [], serviceArgs: readonly string[] = []): Child {
  const args = [
    ...MEASURED_NODE_FLAGS,
    ...extraNodeFlags,
    join(ROOT, "bin", "mesh-provisioner"),
    "serve",
    "--server",
    url,
    "--log-level",
    "info",
    ...serviceArgs,
  ];
  return new Child("mesh-provisioner serve", args);
}

export function spawnAnchor(file: string, args: readonly (string | number)[], nodeFlags: readonly string[] = []): Child {
  return new Child(file, [...nodeFlags, join(ROOT, "dist", "bench", file), ...args.map(String)]);
}

/** The service's first log line (its own code runs), and the one that says it answers from synced projections. */
export const STARTING_MSG = "starting mesh-provisioner";
export const SYNCED_MSG = "all projections synced: answering from them";

/** The time (epoch ms) of the service's JSON log line whose msg is `msg`. */
export function logTime(line: string, msg: string): number | undefined {
  const obj = jsonLine(line);
  if (obj?.["msg"] !== msg) return undefined;
  const t = obj["time"];
  return typeof t === "number" ? t : typeof t === "string" ? Date.parse(t) : undefined;
}
