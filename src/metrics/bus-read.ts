/**
 * Reads from the bus made while a scrape waits (I/O): each is bounded, so a
 * scrape never waits on the bus for long, and a value it could not read is
 * NaN (unknown), never a stale number.
 */
import { TIMED_OUT, within } from "../within.js";

/** The longest a scrape waits for one read from the bus. */
export const BUS_WAIT_MS = 1000;

/** What `read` resolves to, or undefined when it fails or takes longer than `ms`. */
export async function bounded<T>(read: () => Promise<T>, ms = BUS_WAIT_MS): Promise<T | undefined> {
  const answer = await within(
    read().catch(() => undefined),
    ms,
    { keepAlive: false },
  );
  return answer === TIMED_OUT ? undefined : answer;
}

/** `read`, made once for the collects of one scrape: a call while a read is in flight shares its answer. */
export function shared<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () =>
    (inFlight ??= read().finally(() => {
      inFlight = undefined;
    }));
}
