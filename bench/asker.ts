/**
 * A steady asker: every `everyMs` it sends one request to the verb, the next
 * body each time (a different node, so every answer is built), without
 * waiting for earlier ones, and records when it was sent, how long the
 * answer took and what came back. Used around the burst of new keys to see
 * how the service answers while it takes them in.
 */
import { RequestError, TimeoutError, type NatsConnection } from "@nats-io/nats-core";
import { sleep } from "./common.js";
import { serviceErrorCode, type Target } from "./measure.js";

/** 200, the service's error code (Nats-Service-Error-Code), or why no answer came. */
export type Outcome = number | "timeout" | "noResponders" | "error";

export interface Ask {
  /** When it was sent, ms from the asker's origin. */
  at: number;
  /** Send -> answer (or -> the failure, e.g. the timeout), ms. */
  ms: number;
  outcome: Outcome;
}

export interface AskerOptions {
  readonly everyMs: number;
  readonly timeoutMs: number;
  /** performance.now() that `at` is counted from. */
  readonly origin: number;
  /** At most this many asks, whatever happens (the loop's bound). */
  readonly maxAsks: number;
}

export interface Asker {
  /** Stop sending, wait for the asks in flight (each ends by its timeout), and return them all in the order sent. */
  stop(): Promise<Ask[]>;
  /** How many asks have been sent so far. */
  readonly sent: number;
}

/** Why a request got no answer, from the error it failed with. */
export function outcomeOf(err: unknown): Outcome {
  if (err instanceof TimeoutError || (err as Error | undefined)?.cause instanceof TimeoutError) return "timeout";
  if (err instanceof RequestError && err.isNoResponders()) return "noResponders";
  return "error";
}

async function askOnce(nc: NatsConnection, t: Target, i: number, o: AskerOptions): Promise<Ask> {
  const sent = performance.now();
  let outcome: Outcome;
  try {
    const m = await nc.request(t.subjectOf(i), t.bodyOf(i), { timeout: o.timeoutMs });
    outcome = serviceErrorCode(m) ?? 200;
  } catch (err) {
    outcome = outcomeOf(err);
  }
  return { at: sent - o.origin, ms: performance.now() - sent, outcome };
}

export function startAsker(nc: NatsConnection, t: Target, o: AskerOptions): Asker {
  const asks: Promise<Ask>[] = [];
  let running = true;
  const start = performance.now();
  const loop = (async () => {
    // On a fixed schedule (start + k * everyMs), so a slow answer does not delay the next ask.
    for (let k = 0; running && k < o.maxAsks; k++) {
      const wait = start + k * o.everyMs - performance.now();
      if (wait > 0) await sleep(wait);
      if (!running) break;
      asks.push(askOnce(nc, t, k, o));
    }
  })();
  return {
    get sent() {
      return asks.length;
    },
    async stop() {
      running = false;
      await loop;
      return Promise.all(asks);
    },
  };
}
