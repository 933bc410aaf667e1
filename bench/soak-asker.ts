/**
 * The soak's steady asks of the verb: `rate` a second on a fixed schedule,
 * without waiting for earlier answers, counted and never kept (a soak asks
 * for hours; keeping each ask would grow the driver, not the service).
 *
 * The asks alternate between two kinds the bench already asks:
 *  - a few nodes each asking its own needs, again and again, as a node does
 *    (`{"what":"needs","node":"n42"}`; cached until the writer touches that node);
 *  - every node's needs in turn (the uncached answers of the throughput phase).
 *
 * Invariants: at most `maxOutstanding` asks in flight (a due ask beyond that
 * is skipped and counted, so an asker that cannot keep up says so); at most
 * `maxAsks` sent; every ask ends by its timeout.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { outcomeOf } from "./asker.js";
import { PROBE_NODE, sleep } from "./common.js";
import { jsonBody, needsBodies, serviceErrorCode } from "./measure.js";

const TICK_MS = 20;

export interface AskCounts {
  sent: number;
  answered: number;
  /** Asks that got no answer or a service error, by why ("timeout", "noResponders", "error", or the error code). */
  failedBy: Record<string, number>;
  failed: number;
  skipped: number;
}

export interface SoakAsker {
  readonly counts: Readonly<AskCounts>;
  /** The nodes that ask their own needs. */
  readonly ownNodes: readonly string[];
  /** Stop sending; wait (bounded by the timeout) for the asks in flight. */
  stop(): Promise<AskCounts>;
}

/** `count` nodes spread over n0 … n<nodes-1>, the bench's probe node and n42 among them when they exist. */
export function ownNodes(nodes: number, count: number): string[] {
  const picked = new Set<string>([PROBE_NODE, "n42"].filter((n) => Number(n.slice(1)) < nodes));
  for (let k = 0; picked.size < Math.min(count, nodes) && k < count * 2; k++) picked.add(`n${Math.floor((k * nodes) / count)}`);
  return [...picked];
}

export function startSoakAsker(
  nc: NatsConnection,
  o: { rate: number; nodes: number; ownCount: number; timeoutMs: number; maxOutstanding: number; maxAsks: number },
): SoakAsker {
  const own = ownNodes(o.nodes, o.ownCount);
  const ownBodies = own.map((node) => jsonBody({ what: "needs", node }));
  const everyBodies = needsBodies(o.nodes);
  const counts: AskCounts = { sent: 0, answered: 0, failedBy: {}, failed: 0, skipped: 0 };
  const pending = new Set<Promise<void>>();
  const fail = (why: string): void => {
    counts.failed++;
    counts.failedBy[why] = (counts.failedBy[why] ?? 0) + 1;
  };
  const askOnce = async (k: number): Promise<void> => {
    const body = k % 2 === 0 ? ownBodies[(k / 2) % ownBodies.length]! : everyBodies[((k - 1) / 2) % everyBodies.length]!;
    try {
      const m = await nc.request(VERB_SUBJECT, body, { timeout: o.timeoutMs });
      const code = serviceErrorCode(m);
      if (code === undefined) counts.answered++;
      else fail(String(code));
    } catch (err) {
      fail(String(outcomeOf(err)));
    }
  };
  let running = true;
  const t0 = performance.now();
  const loop = (async (): Promise<void> => {
    let k = 0;
    while (running && k + counts.skipped < o.maxAsks) {
      const due = Math.min(o.maxAsks, Math.floor(((performance.now() - t0) * o.rate) / 1000)) - k - counts.skipped;
      for (let d = 0; d < due; d++) {
        if (pending.size >= o.maxOutstanding) {
          counts.skipped++;
          continue;
        }
        counts.sent++;
        const p = askOnce(k++).finally(() => pending.delete(p));
        pending.add(p);
      }
      await sleep(TICK_MS);
    }
  })();
  return {
    counts,
    ownNodes: own,
    async stop() {
      running = false;
      await loop;
      await Promise.race([Promise.all(pending), sleep(o.timeoutMs + 1000)]);
      return { ...counts, failedBy: { ...counts.failedBy } };
    },
  };
}
