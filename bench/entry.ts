/**
 * The one way a bench program runs: parse its flags, run its measurement,
 * clean up on every way out (a signal, a failure, the end), and exit 1 when
 * it failed or 130 when it was interrupted. Children spawned through
 * `children.ts` are killed at exit even when cleanup never gets to run.
 */
import { killAllNow } from "./children.js";

/** A flag the program refuses: logged as its message alone (it carries the usage), never with a stack. */
export class UsageError extends Error {}

export interface BenchEntry<F, S> {
  /** Writes one line to stderr under the program's name. */
  log(line: string): void;
  parseFlags(argv: string[]): F;
  main(flags: F, state: S): Promise<void>;
  /** Stops what `state` holds; must not throw, and may be called while `main` is still running. */
  cleanup(state: S): Promise<void>;
  state: S;
  /** Default SIGINT and SIGTERM. */
  signals?: readonly NodeJS.Signals[];
  /**
   * Asked first on each signal: true when the program handled it itself (the
   * soak's first Ctrl-C ends its churn early and still reports).
   */
  handleSignal?(sig: NodeJS.Signals, state: S): boolean;
  /** Don't log the failure `main` throws after a signal (it is only what was stopped under it). */
  quietAfterSignal?: boolean;
}

export async function runBench<F, S>(entry: BenchEntry<F, S>): Promise<void> {
  const { log, state } = entry;
  process.on("exit", killAllNow);
  let interrupted = false;
  for (const sig of entry.signals ?? ["SIGINT", "SIGTERM"]) {
    process.on(sig, () => {
      if (entry.handleSignal?.(sig, state)) return;
      if (interrupted) return;
      interrupted = true;
      log(`${sig}: stopping the children and the server`);
      void entry.cleanup(state).finally(() => process.exit(130));
    });
  }
  try {
    await entry.main(entry.parseFlags(process.argv.slice(2)), state);
    await entry.cleanup(state);
  } catch (err) {
    if (!(interrupted && entry.quietAfterSignal)) {
      log(`failed: ${err instanceof UsageError ? err.message : ((err as Error).stack ?? String(err))}`);
    }
    await entry.cleanup(state);
    process.exitCode = 1;
  }
}
