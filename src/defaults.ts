/**
 * The one table of defaults (pure): every value a flag takes when it is not
 * given, written as a person writes it on the command line. Commander's
 * option definitions show and apply them (src/cli/), the configuration
 * applies them to flags a caller left out (src/config.ts), and the service
 * takes the parsed values below for options its caller left out (src/main.ts),
 * so a default is changed in this file alone.
 */
import { parseSize } from "./size.js";
import { parseDuration } from "./duration.js";
import type { BucketLimits } from "./streams/buckets.js";
import type { FloodLimits } from "./overview/flood.js";

/** The connection's defaults, for every command that talks to the bus. */
export const CONNECTION_DEFAULTS = Object.freeze({
  server: "nats://127.0.0.1:4222",
});

/** `serve`'s defaults, by flag (as ServeFlags names them). */
export const SERVE_DEFAULTS = Object.freeze({
  registryInterval: "1h",
  seatTtl: "10s",
  replicas: "1",
  maxWait: "5s",
  driftDelay: "250ms",
  /** A value's limit in the node buckets: far above a placeholder's value, far below a bucket. */
  maxValueBytes: "64KiB",
  /** Each node bucket's size: a node flooding its keys fills its own bucket, never the store the registry and the seat live in. */
  bucketMaxBytes: "1GiB",
  /** Flooding: far above what a node needs (a hundred needs of a few hundred bytes), far below a store's size. */
  floodKeys: "10000",
  floodBytes: "16MiB",
  /** The next full collection once the heap is 4x what the last one left live (see heap.ts). */
  heapGrowing: "300",
  /** How often the seat's holder writes the checkpoints that are due: short enough that a restart under steady writes catches up in seconds. */
  checkpointEvery: "5m",
  /** The checkpoints' bucket's size: room for a checkpoint of each node bucket and the one replacing it. */
  checkpointMaxBytes: "1GiB",
  logLevel: "info",
});

/** `query`'s and `verify`'s defaults. */
export const COMMAND_DEFAULTS = Object.freeze({
  /** How long `query` waits for each page (ms). */
  timeout: "10000",
  /** How many times `verify` reads and compares while writes land in between. */
  attempts: "3",
});

/** The node buckets' limits by default. */
export const DEFAULT_BUCKET_LIMITS: BucketLimits = Object.freeze({
  maxValueBytes: parseSize(SERVE_DEFAULTS.maxValueBytes),
  nodeBucketBytes: parseSize(SERVE_DEFAULTS.bucketMaxBytes),
});

/** The flood limits by default. */
export const DEFAULT_FLOOD_LIMITS: FloodLimits = Object.freeze({
  keys: Number(SERVE_DEFAULTS.floodKeys),
  bytes: parseSize(SERVE_DEFAULTS.floodBytes),
});

/** The checkpoints' schedule and bucket size by default. */
export const DEFAULT_CHECKPOINT_LIMITS = Object.freeze({
  everyMs: parseDuration(SERVE_DEFAULTS.checkpointEvery),
  maxBytes: parseSize(SERVE_DEFAULTS.checkpointMaxBytes),
});
