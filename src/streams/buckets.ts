/**
 * Creating the buckets that are missing (I/O). An existing bucket's contents
 * are never touched. Node buckets refuse roll-up headers: with them allowed,
 * one publish carrying `Nats-Rollup: all` on a node's own key would purge every
 * node's keys. A node bucket found allowing them is updated, and that is logged.
 */
import { DiscardPolicy, RetentionPolicy, StorageType, JetStreamApiError, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import type { Logger } from "../log.js";
import { violationIn } from "../permissions/violation.js";
import { streamName } from "mesh-provisioner-client/keys";
import { wrapFailure } from "../failure.js";
import { Backoff, BACKOFF } from "mesh-provisioner-client/backoff";

export interface BucketPlan {
  readonly bucket: string;
  /** Node buckets refuse roll-up headers, and take the node limits (BucketLimits). */
  readonly refuseRollups: boolean;
}

/**
 * The limits of the node buckets, so that a node flooding its keys fills its
 * own bucket (whose writes then fail with "maximum bytes exceeded") and never
 * the store the registry and the seat live in.
 */
export interface BucketLimits {
  /** The largest value (message: value and headers) a node may write. */
  readonly maxValueBytes: number;
  /** Each node bucket's size. */
  readonly nodeBucketBytes: number;
}

/** The service's own buckets (registry, seat) hold a few kinds and one record: fixed, small limits. */
export const OWN_BUCKET_LIMITS = { maxValueBytes: 64 * 1024, bucketBytes: 16 * 1024 * 1024 } as const;

function limitsOf(plan: BucketPlan, limits: BucketLimits): { max_bytes: number; max_msg_size: number } {
  return plan.refuseRollups
    ? { max_bytes: limits.nodeBucketBytes, max_msg_size: limits.maxValueBytes }
    : { max_bytes: OWN_BUCKET_LIMITS.bucketBytes, max_msg_size: OWN_BUCKET_LIMITS.maxValueBytes };
}

/** `left`: the bucket should be changed, but the grant refused the update (logged with the command that does it). */
export type BucketOutcome = "created" | "exists" | "updated" | "left";

/** The nats CLI command that makes a stream's settings what the service would set (for an operator to run). */
export function editCommand(stream: string, update: Partial<StreamConfig>): string {
  const flags: string[] = [];
  if (update.max_bytes !== undefined) flags.push(`--max-bytes=${update.max_bytes}`);
  if (update.max_msg_size !== undefined) flags.push(`--max-msg-size=${update.max_msg_size}`);
  if (update.allow_rollup_hdrs === false) flags.push("--no-allow-rollup");
  return `nats stream edit ${stream} ${flags.join(" ")} --force`;
}

/** What a refused update leaves as it was, field by field: the value the bucket has and the one the service sets. */
function describeUpdate(config: StreamConfig, update: Partial<StreamConfig>): string {
  const shown = (n: number | undefined): string => (n === undefined || n < 0 ? "unlimited" : `${n} bytes`);
  const parts: string[] = [];
  if (update.max_bytes !== undefined) parts.push(`max_bytes ${shown(config.max_bytes)}, where the service sets ${shown(update.max_bytes)}`);
  if (update.max_msg_size !== undefined) parts.push(`max_msg_size ${shown(config.max_msg_size)}, where the service sets ${shown(update.max_msg_size)}`);
  if (update.allow_rollup_hdrs === false) parts.push("roll-up headers allowed, so one publish on a node's own key can purge every node's keys");
  return parts.join("; ");
}

function kvStreamConfig(plan: BucketPlan, replicas: number, limits: BucketLimits): Partial<StreamConfig> & { name: string } {
  return {
    ...limitsOf(plan, limits),
    name: streamName(plan.bucket),
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

/**
 * The limits to set on an existing bucket: raised or set where they are
 * lower or missing; never lowered (that would drop keys already written: an
 * operator who means it edits the stream), which is logged instead.
 */
function limitUpdates(plan: BucketPlan, config: StreamConfig, limits: BucketLimits, log: Logger): Partial<StreamConfig> {
  const want = limitsOf(plan, limits);
  const out: Partial<StreamConfig> = {};
  for (const field of ["max_bytes", "max_msg_size"] as const) {
    const have = config[field] ?? -1;
    if (have === want[field]) continue;
    if (have === -1 || have < want[field]) out[field] = want[field];
    else
      log.warn(
        { bucket: plan.bucket, field, have, want: want[field] },
        "the bucket's limit is higher than asked; it is not lowered, which could drop keys (edit the stream to lower it)",
      );
  }
  return out;
}

export async function ensureBucket(jsm: JetStreamManager, plan: BucketPlan, replicas: number, log: Logger, limits: BucketLimits): Promise<BucketOutcome> {
  const name = streamName(plan.bucket);
  try {
    let info;
    try {
      info = await jsm.streams.info(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const config = kvStreamConfig(plan, replicas, limits);
      await jsm.streams.add(config);
      log.info(
        { bucket: plan.bucket, replicas, refuseRollups: plan.refuseRollups, maxBytes: config.max_bytes, maxValueBytes: config.max_msg_size },
        "created the missing bucket",
      );
      return "created";
    }
    const update: Partial<StreamConfig> = limitUpdates(plan, info.config, limits, log);
    if (plan.refuseRollups && info.config.allow_rollup_hdrs) {
      update.allow_rollup_hdrs = false;
      log.warn({ bucket: plan.bucket }, "the node bucket allowed roll-up headers (one publish could purge every node's keys); roll-ups are now refused on it");
    }
    if (Object.keys(update).length === 0) return "exists";
    try {
      await jsm.streams.update(name, { ...info.config, ...update });
    } catch (err) {
      if (violationIn(err) === undefined) throw err;
      log.warn(
        { bucket: plan.bucket, left: update, command: editCommand(name, update) },
        `the grant does not let the service change the bucket's settings, so it is left as it was (${describeUpdate(info.config, update)}) and the service goes on; an operator changes it with: ${editCommand(name, update)}`,
      );
      return "left";
    }
    if (update.max_bytes !== undefined || update.max_msg_size !== undefined) {
      log.info({ bucket: plan.bucket, maxBytes: update.max_bytes, maxValueBytes: update.max_msg_size }, "set the bucket's limits");
    }
    return "updated";
  } catch (err) {
    if (/insufficient (storage )?resources/i.test(String((err as Error)?.message))) {
      const want = limitsOf(plan, limits).max_bytes;
      throw wrapFailure(
        "BUCKET",
        `cannot create or open the bucket ${plan.bucket}: its size limit (${want} bytes${plan.refuseRollups ? ", --bucket-max-bytes" : ""}) does not fit in what is left of JetStream's store on the server; give JetStream a larger store (max_file_store) or lower --bucket-max-bytes`,
        err,
      );
    }
    throw wrapFailure("BUCKET", `cannot create or open the bucket ${plan.bucket}`, err);
  }
}

export async function ensureBuckets(
  jsm: JetStreamManager,
  plans: readonly BucketPlan[],
  replicas: number,
  log: Logger,
  limits: BucketLimits,
): Promise<Record<string, BucketOutcome>> {
  // Each bucket is its own stream: asked at once, a start waits for one round trip rather than one a bucket.
  const outcomes = await Promise.all(plans.map((p) => ensureBucket(jsm, p, replicas, log, limits)));
  return Object.fromEntries(plans.map((p, i) => [p.bucket, outcomes[i] as BucketOutcome]));
}

/**
 * Wait until every bucket exists, creating and changing none (an instance that
 * does not hold the seat at a site, `serve --no-seat`: the seat's holder makes
 * them). The buckets still missing are logged once, and again only when that
 * list changes; a failure other than "not found" (a grant that refuses the
 * stream's info, a JetStream that does not answer) is thrown for the caller's
 * retry. Tries are spaced by the start-up retry policy.
 */
export async function waitForBuckets(
  jsm: JetStreamManager,
  plans: readonly BucketPlan[],
  log: Logger,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<void> {
  const backoff = new Backoff(BACKOFF.startup);
  let said = "";
  for (;;) {
    const missing: string[] = [];
    for (const plan of plans) {
      try {
        await jsm.streams.info(streamName(plan.bucket));
      } catch (err) {
        if (!isNotFound(err)) throw err;
        missing.push(plan.bucket);
      }
    }
    if (missing.length === 0) {
      if (said !== "") log.info({ buckets: plans.map((p) => p.bucket) }, "the buckets exist now: reading them");
      return;
    }
    if (missing.join() !== said) {
      said = missing.join();
      log.warn(
        { missing },
        "waiting for the buckets to be created: this instance runs with --no-seat and creates none; the seat's holder (an instance without --no-seat, at the hub) creates them at its start",
      );
    }
    await sleep(backoff.next());
  }
}
