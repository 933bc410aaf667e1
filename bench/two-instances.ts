/**
 * Two service instances in the verb's queue group against one: uncached
 * answers per second with 64 requests in flight (a different node each
 * request, the revision ticker running, as in the uncached throughput rows).
 *
 * The running service is measured alone first; then a second instance is
 * spawned exactly as the first (`spawnService`, the same node flags), and
 * once it logs that it is synced (and both answer `$SRV.STATS`) and after
 * one unmeasured warm-up round, the two are measured together; then the
 * second is stopped. On 2 cores the driver, nats-server and both instances
 * share the machine, so this is reported, not held to a target.
 */
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { logTime, spawnService, SYNCED_MSG } from "./children.js";
import { nodesTarget, throughput } from "./measure.js";
import { bumpRevision, startTicker } from "./revision-ticker.js";
import { IN_FLIGHT } from "./throughput-phase.js";
import { tallySince, verbTally, type VerbTally } from "./verb-tally.js";

const WARM_UP_MS = 1000;

export interface Instances {
  /** Requests per second of each round. */
  perSecond: number[];
  errors: number;
  /** The instances' requests and cache hits over the rounds. */
  verb: VerbTally;
  ticker: { puts: number; errors: number };
}

export interface TwoInstances {
  one: Instances;
  two: Instances;
  /** The second instance: spawn -> its "synced" log line, ms. */
  secondSyncMs: number;
}

export interface TwoInstancesOptions {
  readonly nc: NatsConnection;
  readonly kv: KV;
  readonly serverUrl: string;
  readonly bodies: readonly Uint8Array[];
  readonly rounds: number;
  readonly durationMs: number;
  readonly serviceFlags: readonly string[];
  readonly syncTimeoutMs: number;
  readonly log: (line: string) => void;
}

/** `rounds` measured rounds against however many instances run now. */
async function measure(o: TwoInstancesOptions, instances: number): Promise<Instances> {
  // A new revision first: the answers of the warm-up (or of an earlier phase) can no longer match.
  if (!(await bumpRevision(o.nc, o.kv, VERB_SUBJECT))) o.log("warning: could not move the revision before measuring; some answers may come from the cache");
  const before = await verbTally(o.nc, instances);
  const ticker = startTicker(o.kv);
  const out: Instances = { perSecond: [], errors: 0, verb: before, ticker: { puts: 0, errors: 0 } };
  try {
    for (let r = 0; r < o.rounds; r++) {
      const t = nodesTarget(o.bodies, Math.floor(Math.random() * o.bodies.length));
      const res = await throughput(o.nc, t, IN_FLIGHT, o.durationMs);
      out.perSecond.push(res.perSecond);
      out.errors += res.errors;
    }
  } finally {
    out.ticker = await ticker.stop();
  }
  out.verb = tallySince(before, await verbTally(o.nc, instances));
  if (out.verb.instances !== instances) o.log(`warning: ${instances} instance(s) expected, ${out.verb.instances} answered $SRV.STATS`);
  return out;
}

export async function twoInstances(o: TwoInstancesOptions): Promise<TwoInstances> {
  o.log(`two instances against one: uncached, ${IN_FLIGHT} in flight, ${o.rounds} round(s) of ${o.durationMs} ms each; one instance first`);
  const one = await measure(o, 1);
  const second = spawnService(o.serverUrl, o.serviceFlags);
  try {
    const syncedAt = await second.waitFor("stderr", (l) => logTime(l, SYNCED_MSG), o.syncTimeoutMs, `the second instance's "${SYNCED_MSG}"`);
    const secondSyncMs = syncedAt - second.spawnedAt;
    o.log(`second instance synced in ${secondSyncMs} ms; warming up, then two instances`);
    await throughput(o.nc, nodesTarget(o.bodies, 0), IN_FLIGHT, WARM_UP_MS);
    const two = await measure(o, 2);
    o.log(
      `answers/s: one instance ${one.perSecond.map((x) => x.toFixed(0)).join(", ")}; two ${two.perSecond.map((x) => x.toFixed(0)).join(", ")}` +
        ` (cache hits ${one.verb.cacheHits} / ${two.verb.cacheHits})`,
    );
    return { one, two, secondSyncMs };
  } finally {
    await second.stop();
  }
}
