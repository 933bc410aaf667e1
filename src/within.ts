/**
 * A wait with a bound (pure, but for its timer): a promise, or TIMED_OUT once
 * the time ran out first. The graceful stop bounds each step with it, and a
 * scrape each read from the bus.
 */

/** What `within` resolves with when the wait ran out first. */
export const TIMED_OUT = Symbol("timed out");

/**
 * `p`, or TIMED_OUT once `ms` have passed first (`p` goes on; its rejection is
 * then ignored). `keepAlive: false` lets the process exit while only this
 * timer is left, for a wait no one must see the end of.
 */
export function within<T>(p: Promise<T>, ms: number, opts: { keepAlive?: boolean } = {}): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const out = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
    if (opts.keepAlive === false) timer.unref();
  });
  p.catch(() => undefined);
  return Promise.race([p, out]).finally(() => clearTimeout(timer));
}
