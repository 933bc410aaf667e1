/**
 * Creating the buckets that are missing (I/O). An existing bucket's contents
 * are never touched. Node buckets refuse roll-up headers: with them allowed,
 * one publish carrying `Nats-Rollup: all` on a node's own key would purge every
 * node's keys. A node bucket found allowing them is updated, and that is logged.
 */
import { DiscardPolicy, RetentionPolicy, StorageType, JetStreamApiError, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import type { Logger } from "../log.js";
import { wrapError } from "../errors.js";

export interface BucketPlan {
  readonly bucket: string;
  /** Node buckets refuse roll-up headers. */
  readonly refuseRollups: boolean;
}

export type BucketOutcome = "created" | "exists" | "updated";

function kvStreamConfig(plan: BucketPlan, replicas: number): Partial<StreamConfig> & { name: string } {
  return {
    name: `KV_${plan.bucket}`,
    subjects: [`$KV.${plan.bucket}.>`],
    retention: RetentionPolicy.Limits,
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.New,
    storage: StorageType.File,
    num_replicas: replicas,
    allow_direct: true,
    allow_rollup_hdrs: !plan.refuseRollups,
    deny_delete: true,
    deny_purge: false,
  };
}

function isNotFound(err: unknown): boolean {
  return (err instanceof JetStreamApiError && err.code === 10059) || (err as Error)?.message === "stream not found";
}

export async function ensureBucket(jsm: JetStreamManager, plan: BucketPlan, replicas: number, log: Logger): Promise<BucketOutcome> {
  const name = `KV_${plan.bucket}`;
  try {
    let info;
    try {
      info = await jsm.streams.info(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await jsm.streams.add(kvStreamConfig(plan, replicas));
      log.info({ bucket: plan.bucket, replicas, refuseRollups: plan.refuseRollups }, "created the missing bucket");
      return "created";
    }
    if (plan.refuseRollups && info.config.allow_rollup_hdrs) {
      await jsm.streams.update(name, { ...info.config, allow_rollup_hdrs: false });
      log.warn(
        { bucket: plan.bucket },
        "the node bucket allowed roll-up headers (one publish could purge every node's keys); roll-ups are now refused on it",
      );
      return "updated";
    }
    return "exists";
  } catch (err) {
    throw wrapError("BUCKET", `cannot create or open the bucket ${plan.bucket}`, err);
  }
}

export async function ensureBuckets(
  jsm: JetStreamManager,
  plans: readonly BucketPlan[],
  replicas: number,
  log: Logger,
): Promise<Record<string, BucketOutcome>> {
  const out: Record<string, BucketOutcome> = {};
  for (const p of plans) out[p.bucket] = await ensureBucket(jsm, p, replicas, log);
  return out;
}
