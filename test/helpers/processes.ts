/**
 * `mesh-provisioner serve` as child processes for tests: spawn `node
 * bin/mesh-provisioner serve …`, collect the JSON log lines it writes to stderr
 * (pino, one object a line), wait on them with bounded timeouts, and signal the
 * child (SIGKILL, SIGTERM, SIGSTOP, SIGCONT). Children still alive when the
 * test process exits are killed; tests should still `await fleet.killAll()` in
 * after().
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The repository root, from dist/test/helpers/ (compiled) or test/helpers/ (source). */
export const ROOT = fileURLToPath(new URL(import.meta.url.includes("/dist/") ? "../../../" : "../../", import.meta.url));
export const BIN = `${ROOT}bin/mesh-provisioner`;

export interface LogLine {
  /** Date.now() in the test process when the line arrived. */
  readonly receivedAt: number;
  /** The line's own `time` field (pino isoTime) in epoch ms, or NaN. */
  readonly time: number;
  readonly msg: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Date.now() when the exit was seen. */
  readonly at: number;
}

export interface ServiceProcess {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Every JSON log line so far, in arrival order. */
  readonly lines: readonly LogLine[];
  /** Lines of stdout/stderr that were not JSON. */
  readonly otherOutput: readonly string[];
  /** The instance id this process's seat logs (field `instance` of component "seat"), once seen. */
  readonly instance: string | undefined;
  /** Resolves when the child has exited. */
  readonly exited: Promise<Exit>;
  readonly exit: Exit | undefined;
  /** Resolve with the first line (already received or future) matching `pred`; reject after `timeoutMs`. */
  waitForLine(pred: (l: LogLine) => boolean, timeoutMs: number, what: string, from?: number): Promise<LogLine>;
  /** Send a signal (no-op once exited). */
  signal(sig: NodeJS.Signals): void;
  /** Send `sig` and wait for the exit; SIGKILL after `graceMs`. */
  stop(sig?: NodeJS.Signals, graceMs?: number): Promise<Exit>;
  /** The last lines, for failure messages. */
  tail(n?: number): string;
}

const live = new Set<ChildProcess>();
let hookInstalled = false;
function installExitHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  process.on("exit", () => {
    for (const c of live) {
      c.kill("SIGCONT");
      c.kill("SIGKILL");
    }
  });
}

export interface SpawnOptions {
  /** The NATS URL passed as --server. */
  readonly server: string;
  /** More arguments after `serve --server URL`. */
  readonly args?: readonly string[];
  /** A label for messages. */
  readonly name?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export function spawnService(opts: SpawnOptions): ServiceProcess {
  installExitHook();
  const env = { ...process.env, ...opts.env };
  // The flags decide; make sure no ambient NATS_* setting changes the connection.
  for (const k of Object.keys(env)) if (k.startsWith("NATS_") && opts.env?.[k] === undefined) delete env[k];
  const child = spawn(process.execPath, [BIN, "serve", "--server", opts.server, ...(opts.args ?? [])], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) throw new Error(`could not spawn ${BIN}`);
  live.add(child);
  const name = opts.name ?? `serve-${child.pid}`;
  const lines: LogLine[] = [];
  const otherOutput: string[] = [];
  const waiters = new Set<{ pred: (l: LogLine) => boolean; from: number; resolve: (l: LogLine) => void }>();
  let instance: string | undefined;
  let exit: Exit | undefined;

  const onText = (text: string): void => {
    let fields: Record<string, unknown>;
    try {
      const v: unknown = JSON.parse(text);
      if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("not an object");
      fields = v as Record<string, unknown>;
    } catch {
      otherOutput.push(text);
      return;
    }
    const line: LogLine = {
      receivedAt: Date.now(),
      time: typeof fields["time"] === "string" ? Date.parse(fields["time"]) : NaN,
      msg: typeof fields["msg"] === "string" ? fields["msg"] : "",
      fields,
    };
    if (instance === undefined && fields["component"] === "seat" && typeof fields["instance"] === "string") instance = fields["instance"];
    lines.push(line);
    const index = lines.length - 1;
    for (const w of waiters) {
      if (index >= w.from && w.pred(line)) {
        waiters.delete(w);
        w.resolve(line);
      }
    }
  };
  createInterface({ input: child.stderr! }).on("line", onText);
  createInterface({ input: child.stdout! }).on("line", (l) => otherOutput.push(l));

  const exited = new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => {
      live.delete(child);
      exit = { code, signal, at: Date.now() };
      resolve(exit);
    });
  });

  const tail = (n = 15): string => [...lines.slice(-n).map((l) => JSON.stringify(l.fields)), ...otherOutput.slice(-5)].join("\n");

  const proc: ServiceProcess = {
    name,
    pid: child.pid,
    child,
    lines,
    otherOutput,
    get instance() {
      return instance;
    },
    exited,
    get exit() {
      return exit;
    },
    waitForLine(pred, timeoutMs, what, from = 0) {
      const found = lines.slice(from).find(pred);
      if (found) return Promise.resolve(found);
      return new Promise<LogLine>((resolve, reject) => {
        const w = {
          pred,
          from,
          resolve: (l: LogLine) => {
            clearTimeout(timer);
            resolve(l);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          const how = exit ? ` (it exited: code ${exit.code}, signal ${exit.signal})` : "";
          reject(new Error(`${name}: no log line "${what}" within ${timeoutMs} ms${how}; last lines:\n${tail()}`));
        }, timeoutMs);
        waiters.add(w);
      });
    },
    signal(sig) {
      if (exit === undefined) child.kill(sig);
    },
    async stop(sig = "SIGKILL", graceMs = 5000) {
      if (exit) return exit;
      child.kill(sig);
      if (sig !== "SIGKILL") child.kill("SIGCONT"); // a stopped process handles no signal but SIGKILL
      const t = setTimeout(() => child.kill("SIGKILL"), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(t);
      }
    },
    tail,
  };
  return proc;
}

/** The children of one test: spawn them, and kill every one of them at the end, whatever happened. */
export class Fleet {
  readonly all: ServiceProcess[] = [];

  constructor(private readonly defaults: Omit<SpawnOptions, "name">) {}

  spawn(more: Partial<SpawnOptions> = {}): ServiceProcess {
    const p = spawnService({ ...this.defaults, ...more, name: more.name ?? `p${this.all.length + 1}` });
    this.all.push(p);
    return p;
  }

  byPid(pid: number): ServiceProcess | undefined {
    return this.all.find((p) => p.pid === pid);
  }

  byInstance(instance: string): ServiceProcess | undefined {
    return this.all.find((p) => p.instance === instance);
  }

  /** SIGKILL every child still running (stopped ones too) and wait for their exits. */
  async killAll(): Promise<void> {
    await Promise.all(this.all.map((p) => p.stop("SIGKILL")));
  }
}
