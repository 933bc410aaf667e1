/**
 * The command line run as a user runs it: `bin/mesh-provisioner` in a child
 * process, its output gathered, killed after a deadline; `killAll` ends any
 * still running when a test file ends.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

// dist/test/helpers/cli-run.js -> the repository's bin/
const BIN = fileURLToPath(new URL("../../../bin/mesh-provisioner", import.meta.url));
/** `npm start`'s script. */
export const EMBEDDED = fileURLToPath(new URL("../../src/cli/embedded.js", import.meta.url));

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<Ran>;
}

const children = new Set<ChildProcess>();

/** Start the command (`script`: the command line's bin unless another is named). */
export function start(args: string[], env: NodeJS.ProcessEnv, script = BIN): Running {
  const t0 = Date.now();
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  const exited = new Promise<Ran>((resolve) => {
    child.once("close", (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stdout: out, stderr: err, ms: Date.now() - t0 });
    });
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Run a command to its end, killing it after `ms`. */
export async function run(args: string[], env: NodeJS.ProcessEnv, ms = 15_000, script = BIN): Promise<Ran> {
  const r = start(args, env, script);
  const timer = setTimeout(() => r.child.kill("SIGKILL"), ms);
  try {
    return await r.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Kill every child still running. */
export function killAll(): void {
  for (const c of children) c.kill("SIGKILL");
}
