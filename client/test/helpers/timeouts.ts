/**
 * Held timeouts for tests of code that retries: while a test runs, every
 * `setTimeout` is recorded with its delay instead of being armed, and the
 * test fires the ones it means to. A test then reads the exact wait a
 * retry chose, and nothing runs behind its back.
 */
import type { TestContext } from "node:test";

export interface HeldTimeout {
  readonly ms: number;
  readonly cleared: boolean;
  /** Runs the callback now (once). */
  fire(): void;
}

/** Holds every setTimeout of the test's duration (restored when the test ends); returns the list they are added to. */
export function holdTimeouts(t: TestContext): HeldTimeout[] {
  const held: (HeldTimeout & { cleared: boolean })[] = [];
  t.mock.method(globalThis, "setTimeout", (fn: () => void, ms = 0) => {
    let done = false;
    const h = {
      ms,
      cleared: false,
      fire: () => {
        if (done || h.cleared) return;
        done = true;
        fn();
      },
      unref: () => h,
      ref: () => h,
    };
    held.push(h);
    return h;
  });
  const realClear = globalThis.clearTimeout;
  t.mock.method(globalThis, "clearTimeout", (h: unknown) => {
    const mine = held.find((x) => x === h);
    if (mine !== undefined) mine.cleared = true;
    else realClear(h as Parameters<typeof clearTimeout>[0]);
  });
  return held;
}

/** Lets promise chains and I/O callbacks run (setImmediate is not held). */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}
