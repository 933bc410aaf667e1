/**
 * While the projections make their first sync, a line now and then that
 * says how far each has come, for a person watching the log of an instance
 * starting over a large bucket. It stops once every projection is synced.
 */
import type { Logger } from "../log.js";
import type { Projection } from "./projection.js";

/** The default time between two progress lines. */
export const PROGRESS_EVERY_MS = 5_000;

export interface ProgressOf {
  readonly expected: number;
  readonly received: number;
  readonly done: boolean;
  /** A checkpoint is loading; `received` counts the newer writes held meanwhile. */
  readonly loadingCheckpoint?: boolean;
}

/** "needs 420,000 of 1,000,000 (42%); applied synced; …" (pure). */
export function progressText(progress: Readonly<Record<string, ProgressOf>>): string {
  return Object.entries(progress)
    .map(([what, p]) => {
      if (p.done) return `${what} synced`;
      if (p.loadingCheckpoint === true) return `${what} loading its checkpoint (${p.received.toLocaleString("en")} newer writes held)`;
      if (p.expected === 0) return `${what} waiting for its consumer`;
      const pct = Math.min(100, Math.floor((100 * p.received) / p.expected));
      return `${what} ${p.received.toLocaleString("en")} of ${p.expected.toLocaleString("en")} (${pct}%)`;
    })
    .join("; ");
}

export function startSyncProgress(projections: Readonly<Record<string, Projection>>, log: Logger, everyMs = PROGRESS_EVERY_MS): { stop(): void } {
  if (everyMs <= 0) return { stop() {} };
  const since = Date.now();
  const timer = setInterval(() => {
    const progress = Object.fromEntries(Object.entries(projections).map(([w, p]) => [w, p.syncProgress]));
    if (Object.values(progress).every((p) => p.done)) {
      clearInterval(timer);
      return;
    }
    log.info({ progress, elapsedMs: Date.now() - since }, `first sync: ${progressText(progress)}`);
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
