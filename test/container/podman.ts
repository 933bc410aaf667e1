/**
 * podman for the image's test: the command with the flags this machine needs,
 * one-shot commands gathered to their end, and a container run in the
 * foreground whose JSON log lines are collected as they arrive.
 *
 * PODMAN_GLOBAL_FLAGS and PODMAN_RUN_FLAGS (space-separated) replace the
 * defaults, which are what Debian's podman needs on a machine without
 * CAP_SYS_RESOURCE and with cgroups v1: runc with cgroupfs, lowered limits.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

const words = (text: string): string[] => text.split(/\s+/).filter((w) => w.length > 0);

export const PODMAN = process.env["PODMAN"] ?? "podman";
export const GLOBAL_FLAGS = words(process.env["PODMAN_GLOBAL_FLAGS"] ?? "--runtime runc --cgroup-manager=cgroupfs");
export const RUN_FLAGS = words(process.env["PODMAN_RUN_FLAGS"] ?? "--ulimit nofile=1024:1024 --ulimit nproc=1024:1024");

export interface Done {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Run `podman <global flags> ...args` to its end (SIGKILL after `timeoutMs`); never rejects. */
export function podman(args: readonly string[], timeoutMs = 60_000): Promise<Done> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    const child = spawn(PODMAN, [...GLOBAL_FLAGS, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.once("error", (err) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${err.message}`, ms: Date.now() - t0 });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

/** Why podman cannot run containers here (its binary is missing or `podman info` fails), or undefined when it can. */
export async function podmanUnavailable(): Promise<string | undefined> {
  const r = await podman(["info", "--format", "{{.Host.OCIRuntime.Name}}"], 30_000);
  if (r.code === 0) return undefined;
  return `\`${PODMAN} ${GLOBAL_FLAGS.join(" ")} info\` failed: ${r.stderr.trim().split("\n").slice(-3).join(" ") || `exit ${r.code}`}`;
}

export interface LogLine {
  readonly msg: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface Container {
  readonly name: string;
  readonly lines: readonly LogLine[];
  /** Output lines that are not JSON (podman's own messages, a stack trace). */
  readonly other: readonly string[];
  /** The `podman run` process has ended. */
  readonly ended: boolean;
  /** The `podman run` process's exit: the container's exit code. */
  readonly exited: Promise<number | null>;
  /** Resolve with the first line matching `pred` (already seen or to come); reject after `timeoutMs`. */
  waitForLine(pred: (l: LogLine) => boolean, timeoutMs: number, what: string): Promise<LogLine>;
  /** The last lines, for failure messages. */
  tail(n?: number): string;
}

/** `podman run --rm --name NAME <run flags> ...args` in the foreground, its output read line by line. */
export function runContainer(name: string, args: readonly string[]): Container {
  const lines: LogLine[] = [];
  const other: string[] = [];
  const waiters = new Set<() => void>();
  let done = false;
  const child: ChildProcess = spawn(PODMAN, [...GLOBAL_FLAGS, "run", "--rm", "--name", name, ...RUN_FLAGS, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const take = (text: string): void => {
    try {
      const fields = JSON.parse(text) as Record<string, unknown>;
      lines.push({ msg: String(fields["msg"] ?? ""), fields });
    } catch {
      other.push(text);
    }
    for (const w of waiters) w();
  };
  createInterface({ input: child.stdout! }).on("line", take);
  createInterface({ input: child.stderr! }).on("line", take);
  const exited = new Promise<number | null>((resolve) => {
    child.once("error", (err) => {
      other.push(err.message);
      done = true;
      for (const w of waiters) w();
      resolve(null);
    });
    child.once("close", (code) => {
      done = true;
      for (const w of waiters) w();
      resolve(code);
    });
  });
  const tail = (n = 20): string => [...other, ...lines.map((l) => JSON.stringify(l.fields))].slice(-n).join("\n");
  return {
    name,
    lines,
    other,
    exited,
    tail,
    get ended() {
      return done;
    },
    waitForLine(pred, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = lines.find(pred);
          if (found !== undefined) {
            finish();
            resolve(found);
            return true;
          }
          if (done) {
            finish();
            reject(new Error(`${what}: the container exited without it; its output:\n${tail()}`));
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`${what}: not seen within ${timeoutMs} ms; the container's output:\n${tail()}`));
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          waiters.delete(onLine);
        };
        const onLine = (): void => void check();
        if (!check()) waiters.add(onLine);
      });
    },
  };
}
