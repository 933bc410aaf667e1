/**
 * Configuration, parsed once from flags and the nats CLI's environment names,
 * validated, and frozen. Flags win over the environment. Everything invalid is
 * a ProvisionerError("CONFIG") whose message names the flag and what to write.
 */
import { parseSize } from "./size.js";
import type { BucketLimits } from "./streams/buckets.js";
import type { FloodLimits } from "./overview/flood.js";
import { parseDuration } from "./duration.js";
import { CONNECTION_DEFAULTS, SERVE_DEFAULTS } from "./defaults.js";
import { COMMAND_ROLE, inboxPrefix, SERVE_ROLE } from "./permissions/inbox.js";
import { Failure } from "./failure.js";

/** How to reach the bus: the same for every command that talks to it. */
export interface ConnectionConfig {
  readonly servers: readonly string[];
  readonly creds?: string;
  readonly nkey?: string;
  readonly user?: string;
  readonly password?: string;
  readonly token?: string;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  /**
   * Prefix of this process's inboxes and watch deliveries, so a grant can
   * allow replies narrowly: by default the prefix of the command's role, the
   * one `permissions --role …` prints a grant for (always set by
   * connectionConfig; NATS's `_INBOX` when absent).
   */
  readonly inboxPrefix?: string;
}

export interface ServeConfig {
  readonly connection: ConnectionConfig;
  readonly registryIntervalMs: number;
  readonly seatTtlMs: number;
  readonly replicas: number;
  readonly http?: { host: string; port: number };
  /** When set, the dashboard's data and event stream ask for it as a bearer token. */
  readonly httpToken?: string;
  /** The longest a `minRevision` request may wait before a 504. */
  readonly maxWaitMs: number;
  /** How long a drifted registry waits before it is repaired (debounce). */
  readonly driftDelayMs: number;
  readonly logLevel: string;
  /** V8's --heap-growing-percent for this process (0: V8's own heuristic). */
  readonly heapGrowingPercent: number;
  /** The limits of the buckets the service creates (and sets on the node buckets it finds). */
  readonly bucketLimits: BucketLimits;
  /** Past these, a node is named as flooding. */
  readonly floodLimits: FloodLimits;
  /** How often the seat's holder writes the checkpoints that are due (0: never), and their bucket's size. */
  readonly checkpointEveryMs: number;
  readonly checkpointMaxBytes: number;
}

/** Raw flag values as commander hands them over (all optional strings). */
export type ConnectionFlags = Partial<
  Record<"server" | "creds" | "nkey" | "user" | "password" | "token" | "tlsca" | "tlscert" | "tlskey" | "inboxPrefix", string>
>;

export type ServeFlags = ConnectionFlags &
  Partial<
    Record<
      | "registryInterval"
      | "seatTtl"
      | "replicas"
      | "http"
      | "httpToken"
      | "maxWait"
      | "driftDelay"
      | "logLevel"
      | "heapGrowing"
      | "maxValueBytes"
      | "bucketMaxBytes"
      | "floodKeys"
      | "floodBytes"
      | "checkpointEvery"
      | "checkpointMaxBytes",
      string
    >
  >;

type Env = Readonly<Record<string, string | undefined>>;

function pick(flag: string | undefined, env: Env, name: string): string | undefined {
  const v = flag ?? env[name];
  return v === undefined || v === "" ? undefined : v;
}

/**
 * The connection of a command. Without --inbox-prefix or NATS_INBOX_PREFIX the
 * inboxes are under `defaultInboxPrefix`: the prefix of the role whose grant
 * the command runs under (query, dump and verify: COMMAND_ROLE's), so the
 * grant `permissions` prints works with no extra flag.
 */
export function connectionConfig(flags: ConnectionFlags, env: Env = process.env, defaultInboxPrefix: string = inboxPrefix(COMMAND_ROLE)): ConnectionConfig {
  const url = pick(flags.server, env, "NATS_URL") ?? CONNECTION_DEFAULTS.server;
  const servers = url
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  for (const s of servers) {
    if (!/^(nats|tls|ws|wss):\/\/[^\s]+$|^[^\s/:]+(:\d+)?$/.test(s)) {
      throw new Failure("CONFIG", `--server "${s}" is not a NATS URL: write nats://HOST:PORT (several separated by commas)`);
    }
  }
  const user = pick(flags.user, env, "NATS_USER");
  const password = pick(flags.password, env, "NATS_PASSWORD");
  if (password !== undefined && user === undefined) {
    throw new Failure("CONFIG", "a password was given without a user: set --user or NATS_USER too");
  }
  const cfg: ConnectionConfig = {
    servers,
    creds: pick(flags.creds, env, "NATS_CREDS"),
    nkey: pick(flags.nkey, env, "NATS_NKEY"),
    user,
    password,
    token: pick(flags.token, env, "NATS_TOKEN"),
    ca: pick(flags.tlsca, env, "NATS_CA"),
    cert: pick(flags.tlscert, env, "NATS_CERT"),
    key: pick(flags.tlskey, env, "NATS_KEY"),
    inboxPrefix: pick(flags.inboxPrefix, env, "NATS_INBOX_PREFIX") ?? defaultInboxPrefix,
  };
  if (!/^[^\s.*>]+(\.[^\s.*>]+)*$/.test(cfg.inboxPrefix ?? "")) {
    throw new Failure(
      "CONFIG",
      `--inbox-prefix "${cfg.inboxPrefix}" must be subject tokens separated by dots, with no wildcard or space, such as ${defaultInboxPrefix}`,
    );
  }
  if ((cfg.cert === undefined) !== (cfg.key === undefined)) {
    throw new Failure("CONFIG", "a TLS client certificate needs both --tlscert (NATS_CERT) and --tlskey (NATS_KEY)");
  }
  return Object.freeze(cfg);
}

function positiveInt(text: string, flag: string, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(n) || n < 1 || n > max) {
    throw new Failure("CONFIG", `${flag} "${text}" must be a whole number from 1 to ${max}`);
  }
  return n;
}

function percent(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n > 1000) {
    throw new Failure("CONFIG", `${flag} "${text}" must be a whole number of percent from 0 (V8's own heuristic) to 1000`);
  }
  return n;
}

export function parseHostPort(text: string, flag = "--http"): { host: string; port: number } {
  const m = /^(.*):(\d+)$/.exec(text.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    throw new Failure("CONFIG", `${flag} "${text}" must be HOST:PORT, such as 127.0.0.1:8080`);
  }
  return { host: (m[1] ?? "").replace(/^\[|\]$/g, "") || "127.0.0.1", port };
}

export function serveConfig(flags: ServeFlags, env: Env = process.env): ServeConfig {
  const cfg: ServeConfig = {
    // The service's inboxes are under the provisioner's prefix unless told otherwise.
    connection: connectionConfig(flags, env, inboxPrefix(SERVE_ROLE)),
    registryIntervalMs: parseDuration(flags.registryInterval ?? SERVE_DEFAULTS.registryInterval, "--registry-interval"),
    seatTtlMs: parseDuration(flags.seatTtl ?? SERVE_DEFAULTS.seatTtl, "--seat-ttl"),
    replicas: positiveInt(flags.replicas ?? SERVE_DEFAULTS.replicas, "--replicas", 5),
    http: flags.http === undefined ? undefined : parseHostPort(flags.http),
    httpToken: pick(flags.httpToken, env, "MESH_PROVISIONER_HTTP_TOKEN"),
    maxWaitMs: parseDuration(flags.maxWait ?? SERVE_DEFAULTS.maxWait, "--max-wait"),
    driftDelayMs: parseDuration(flags.driftDelay ?? SERVE_DEFAULTS.driftDelay, "--drift-delay"),
    logLevel: flags.logLevel ?? env["LOG_LEVEL"] ?? SERVE_DEFAULTS.logLevel,
    bucketLimits: {
      maxValueBytes: parseSize(flags.maxValueBytes ?? SERVE_DEFAULTS.maxValueBytes, "--max-value-bytes"),
      nodeBucketBytes: parseSize(flags.bucketMaxBytes ?? SERVE_DEFAULTS.bucketMaxBytes, "--bucket-max-bytes"),
    },
    floodLimits: {
      keys: positiveInt(flags.floodKeys ?? SERVE_DEFAULTS.floodKeys, "--flood-keys", Number.MAX_SAFE_INTEGER),
      bytes: parseSize(flags.floodBytes ?? SERVE_DEFAULTS.floodBytes, "--flood-bytes"),
    },
    checkpointEveryMs: flags.checkpointEvery?.trim() === "0" ? 0 : parseDuration(flags.checkpointEvery ?? SERVE_DEFAULTS.checkpointEvery, "--checkpoint-every"),
    checkpointMaxBytes: parseSize(flags.checkpointMaxBytes ?? SERVE_DEFAULTS.checkpointMaxBytes, "--checkpoint-max-bytes"),
    heapGrowingPercent: percent(pick(flags.heapGrowing, env, "MESH_PROVISIONER_HEAP_GROWING") ?? SERVE_DEFAULTS.heapGrowing, "--heap-growing"),
  };
  if (!["fatal", "error", "warn", "info", "debug", "trace", "silent"].includes(cfg.logLevel)) {
    throw new Failure("CONFIG", `--log-level "${cfg.logLevel}" must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  if (cfg.bucketLimits.maxValueBytes > cfg.bucketLimits.nodeBucketBytes) {
    throw new Failure("CONFIG", "--max-value-bytes is larger than --bucket-max-bytes: no value could ever be written");
  }
  if (cfg.httpToken !== undefined && cfg.http === undefined) {
    throw new Failure("CONFIG", "--http-token (or MESH_PROVISIONER_HTTP_TOKEN) guards the dashboard, which only --http <host:port> serves: add --http");
  }
  if (cfg.httpToken !== undefined && cfg.httpToken.length < 16) {
    throw new Failure("CONFIG", "--http-token must be at least 16 characters (try: openssl rand -hex 24)");
  }
  return Object.freeze(cfg);
}
