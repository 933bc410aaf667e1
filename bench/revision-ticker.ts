/**
 * Keeps the needs bucket's revision moving while answers must be built:
 * one put every few milliseconds, one at a time, on a key of its own
 * (`tick.m0.config.k0`, a node no request asks for).
 *
 * Why: the service caches an answer by request and revision (up to its
 * cache's bound). Cycling over the nodes alone builds every answer only while
 * there are more nodes than the cache holds and one instance answers them
 * all; with two instances in a queue group, or fewer nodes, a node comes back
 * to the same instance while its answer is still kept. A new revision between
 * two asks of the same node makes the earlier answer unusable, as a write in
 * production would. The cost, ~100 small puts a second, is paid by both
 * sides of a comparison alike (it runs through both).
 */
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { sleep, valueOf } from "./common.js";
import { jsonBody, serviceErrorCode } from "./measure.js";

export const TICK_KEY = "tick.m0.config.k0";
const TICK_MS = 10;
/** No ticker runs longer than this, whatever its caller does. */
const MAX_LIFE_MS = 10 * 60 * 1000;

export interface Ticker {
  /** Stop and wait for the last put; how many puts were made and how many failed. */
  stop(): Promise<{ puts: number; errors: number }>;
}

export function startTicker(kv: KV): Ticker {
  let running = true;
  let puts = 0;
  let errors = 0;
  const until = Date.now() + MAX_LIFE_MS;
  const loop = (async () => {
    while (running && Date.now() < until) {
      try {
        await kv.put(TICK_KEY, valueOf(0, puts + 1));
        puts++;
      } catch {
        errors++;
      }
      await sleep(TICK_MS);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { puts, errors };
    },
  };
}

/**
 * One put on the tick key, then wait until the service answers at that
 * revision: after this no answer cached earlier can be served. Never throws;
 * false when the put or the wait failed.
 */
export async function bumpRevision(nc: NatsConnection, kv: KV, verbSubject: string): Promise<boolean> {
  try {
    const revision = await kv.put(TICK_KEY, valueOf(0, Date.now()));
    const m = await nc.request(verbSubject, jsonBody({ what: "needs", node: "tick", minRevision: revision }), { timeout: 10_000 });
    return serviceErrorCode(m) === undefined;
  } catch {
    return false;
  }
}
