/**
 * Bounded polling for tests: retry `fn` until it returns without throwing, instead of
 * sleeping for a fixed time and hoping.
 */
export interface EventuallyOptions {
  /** Give up after this long (default 10 000 ms). */
  timeoutMs?: number;
  /** Wait between attempts (default 25 ms). */
  intervalMs?: number;
  /** Prefix for the error thrown on timeout. */
  message?: string;
}

/** Resolve with fn's value once it succeeds; after the timeout, throw its last error. */
export async function eventually<T>(fn: () => T | Promise<T>, opts: EventuallyOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let attempts = 0;
  for (;;) {
    attempts++;
    try {
      return await fn();
    } catch (err) {
      if (Date.now() + intervalMs > deadline) {
        if (opts.message === undefined) throw err;
        const detail = err instanceof Error ? err.message : String(err);
        throw new Error(`${opts.message} (after ${attempts} attempts in ${timeoutMs} ms): ${detail}`, { cause: err });
      }
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
