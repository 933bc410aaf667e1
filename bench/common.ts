/**
 * What the benchmark's driver and its anchor processes share: the data layout
 * (keys and values), the subjects, a bounded connection, small statistics and
 * reading a process's memory from /proc.
 */
import { readFileSync } from "node:fs";
import { connect } from "@nats-io/transport-node";
import type { ConnectionOptions, NatsConnection } from "@nats-io/nats-core";
import { streamName } from "mesh-provisioner-client/keys";

export const NEEDS_BUCKET = "mesh-provisioner_needs";
export const NEEDS_STREAM = streamName(NEEDS_BUCKET);
export const ECHO_SUBJECT = "bench.echo";
/** The bare put -> visible anchor answers here. */
export const VISIBLE_SUBJECT = "bench.visible";
/** Keys per node: 10 modules x 10 names. */
export const KEYS_PER_NODE = 100;
/** The node whose needs the latency and client-way measurements ask for. */
export const PROBE_NODE = "n17";
/** The signal on which the preloaded gc hook runs a full gc (SIGUSR2 is the service's dump). */
export const GC_SIGNAL: NodeJS.Signals = "SIGWINCH";

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Key i of the data set: `n<node>.m<module>.config.k<name>`, 100 keys per node. */
export function keyOf(i: number): string {
  const node = Math.floor(i / KEYS_PER_NODE);
  const within = i % KEYS_PER_NODE;
  return `n${node}.m${Math.floor(within / 10)}.config.k${within % 10}`;
}

export const nodeCount = (keys: number): number => Math.ceil(keys / KEYS_PER_NODE);

/** A JSON value of about 100 bytes; `salt` changes it (for updates). */
export function valueOf(i: number, salt = 0): string {
  const tag = ((i * 2654435761 + salt * 40503) >>> 0).toString(16).padStart(8, "0");
  return JSON.stringify({
    default: `value-${i}-${tag}`,
    port: 1024 + (i % 60000),
    owner: `team-${i % 97}`,
    note: "set by the bench",
    rev: salt,
  });
}

/**
 * JetStream API calls of the anchors wait this long: creating a watch's
 * consumer on a 1M-key stream takes nats-server 2.9 seconds, more on a busy
 * machine, past the client's default 5 s (a 1M run once failed with the bare
 * watch+reply's "timeout").
 */
export const ANCHOR_JS_TIMEOUT_MS = 60_000;

/** A connection for measuring: no endless reconnects, a short ping so a dead link shows. */
export function connectBench(url: string, name: string, extra: Omit<ConnectionOptions, "servers" | "name"> = {}): Promise<NatsConnection> {
  return connect({ servers: url, name, maxReconnectAttempts: 3, pingInterval: 5000, timeout: 5000, ...extra });
}

/** Write one result line on stdout (how anchor processes report). */
export function report(obj: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

// ---- statistics --------------------------------------------------------------------------

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p90: percentile(values, 90),
    p99: percentile(values, 99),
    max: values.length ? Math.max(...values) : Number.NaN,
  };
}

export const round = (x: number, digits = 3): number => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x);

// ---- memory ----------------------------------------------------------------------------

export interface ProcMemory {
  /** Resident set size now, bytes. */
  rss: number;
  /** Peak resident set size, bytes. */
  hwm: number;
  /** Of `rss`: anonymous memory (heaps, malloc) and pages of mapped files (the binary and its libraries), bytes. */
  anon: number;
  file: number;
}

/** VmRSS and VmHWM of a process from /proc/<pid>/status (Linux), or undefined. */
export function procMemory(pid: number): ProcMemory | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? Number.NaN) * 1024;
    return { rss: kb("VmRSS"), hwm: kb("VmHWM"), anon: kb("RssAnon"), file: kb("RssFile") };
  } catch {
    return undefined;
  }
}

export const mib = (bytes: number): number => round(bytes / (1024 * 1024), 1);
