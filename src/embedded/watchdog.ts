/**
 * A watchdog that stops a child server when the process that started it ends,
 * however it ends (SIGKILL and a crash included, when no exit hook runs): a
 * `sh` whose standard input is a pipe from this process. This process alone
 * holds the pipe's write end (Node opens its pipes close-on-exec), so the
 * kernel closes it when this process ends; the watchdog's `read` then returns,
 * and it sends the server SIGTERM (SIGKILL after WATCHDOG_GRACE), waits for it
 * to exit, and removes the server's temporary directory.
 *
 * A stop by this process disarms the watchdog first (SIGKILL), so the watchdog
 * never signals a pid after the server that held it has exited. While this
 * process lives, the server is its child and its pid cannot be reused; once
 * this process is gone, the server's pid stays its own until it exits.
 *
 * Node cannot set a child's parent-death signal (prctl PR_SET_PDEATHSIG), and
 * nats-server does not read its standard input: hence a process of its own,
 * in its own process group so that a terminal's Ctrl-C does not end it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";

/** Tenths of a second the watchdog waits after SIGTERM before SIGKILL, and after that before it removes the directory. */
const GRACE_TENTHS = 50;
const GIVE_UP_TENTHS = 60;

const SCRIPT = `read -r _
kill -TERM "$1" 2>/dev/null
i=0
while kill -0 "$1" 2>/dev/null && [ "$i" -lt ${GIVE_UP_TENTHS} ]; do
  [ "$i" -eq ${GRACE_TENTHS} ] && kill -KILL "$1" 2>/dev/null
  sleep 0.1
  i=$((i + 1))
done
rm -rf "$2"
`;

export interface Watchdog {
  /** Stop watching (this process stops the server itself). */
  disarm(): void;
}

/** Watch over the server `pid`, whose temporary directory is `dir`. */
export function startWatchdog(pid: number, dir: string): Watchdog {
  const w: ChildProcess = spawn("/bin/sh", ["-c", SCRIPT, "nats-server-watchdog", String(pid), dir], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  w.on("error", () => undefined); // no sh: the exit hooks are all there is
  // Neither the watchdog nor its pipe keeps this process running.
  w.unref();
  const pipe = w.stdin as Socket | null;
  pipe?.on("error", () => undefined);
  pipe?.unref();
  return {
    disarm() {
      w.kill("SIGKILL");
    },
  };
}
