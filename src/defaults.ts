/**
 * The one table of settings (pure): every flag with its environment twin, the
 * value it takes when neither is given (written as a person writes it on the
 * command line), and its help. Commander's option definitions are made from
 * it (src/cli/), the configuration reads flags, then the environment, then
 * these defaults (src/config.ts), `serve --help`, README's configuration table
 * and deploy/systemd/mesh-provisioner.env list it (tests hold them to it), and
 * the service takes the parsed defaults below for options its caller left out
 * (src/main.ts); so a setting is changed in this file alone.
 */
import { parseSize } from "./size.js";
import { parseDuration, type DurationBounds } from "./duration.js";
import type { BucketLimits } from "./streams/buckets.js";
import type { FloodLimits } from "./overview/flood.js";

/** One flag and its environment twin. */
export interface Setting {
  /** The long flag, such as `--seat-ttl`. */
  readonly flag: string;
  /** A one-letter alias, such as `-s`. */
  readonly short?: string;
  /** What the value is, as help shows it, such as `<duration>`; "" for a switch, which takes none (its variable takes true or false). */
  readonly value: string;
  /** Its name among the flags commander hands over: the flag in camel case, as commander makes it. */
  readonly key: string;
  /** The environment variable read when the flag is not given. */
  readonly env: string;
  /** An older variable, read when neither the flag nor `env` is given. */
  readonly fallbackEnv?: string;
  /** The value when none is given; absent: the setting is off (or, for --inbox-prefix, the command's role decides). */
  readonly default?: string;
  /** The least and the most a duration may be, written as durations: what the code that uses it assumes. */
  readonly bounds?: DurationBounds;
  readonly help: string;
}

/** A value on a command line is visible to every user of the host (`ps`, /proc): said in the help of each secret's value flag. */
const ON_THE_COMMAND_LINE = "a value here is visible to every user of this host: prefer";

/**
 * How to reach the bus, for every command that talks to it: the nats CLI's
 * flags and environment names, and a file flag for each secret.
 */
export const CONNECTION_SETTINGS = [
  {
    flag: "--server",
    short: "-s",
    value: "<urls>",
    key: "server",
    env: "NATS_URL",
    default: "nats://127.0.0.1:4222",
    help: "NATS server URLs, comma separated",
  },
  { flag: "--creds", value: "<file>", key: "creds", env: "NATS_CREDS", help: "user credentials file (.creds: JWT and nkey seed)" },
  { flag: "--nkey", value: "<file>", key: "nkey", env: "NATS_NKEY", help: "nkey seed file" },
  { flag: "--user", value: "<user>", key: "user", env: "NATS_USER", help: "user name" },
  { flag: "--password", value: "<password>", key: "password", env: "NATS_PASSWORD", help: `password; ${ON_THE_COMMAND_LINE} --password-file` },
  {
    flag: "--password-file",
    value: "<file>",
    key: "passwordFile",
    env: "NATS_PASSWORD_FILE",
    help: "file holding the password (a trailing newline is ignored)",
  },
  { flag: "--token", value: "<token>", key: "token", env: "NATS_TOKEN", help: `authentication token; ${ON_THE_COMMAND_LINE} --token-file` },
  {
    flag: "--token-file",
    value: "<file>",
    key: "tokenFile",
    env: "NATS_TOKEN_FILE",
    help: "file holding the authentication token (a trailing newline is ignored)",
  },
  { flag: "--tlsca", value: "<file>", key: "tlsca", env: "NATS_CA", help: "CA certificate to verify the server" },
  { flag: "--tlscert", value: "<file>", key: "tlscert", env: "NATS_CERT", help: "client certificate" },
  { flag: "--tlskey", value: "<file>", key: "tlskey", env: "NATS_KEY", help: "client certificate's private key" },
  {
    flag: "--inbox-prefix",
    value: "<prefix>",
    key: "inboxPrefix",
    env: "NATS_INBOX_PREFIX",
    help: "prefix of this client's inboxes and watch deliveries, as the user's grant allows",
  },
  {
    flag: "--js-domain",
    value: "<domain>",
    key: "jsDomain",
    env: "NATS_JS_DOMAIN",
    help: "JetStream domain of the buckets, as the hub's jetstream { domain } names it, for a connection to a leaf node (query and dump ask the verb, which needs none)",
  },
] as const satisfies readonly Setting[];

/** `serve`'s own settings; each environment twin is MESH_PROVISIONER_ and the flag upper-cased, dashes to underscores. */
export const SERVE_SETTINGS = [
  {
    flag: "--registry-interval",
    value: "<duration>",
    key: "registryInterval",
    env: "MESH_PROVISIONER_REGISTRY_INTERVAL",
    default: "1h",
    // A reconcile reads and compares the whole registry: not a busy loop. Past a day, Node's timers overflow (24.8 days) long before it matters.
    bounds: { min: "1s", max: "24h" },
    help: "how often the registry is reconciled, such as 30s or 1h",
  },
  {
    flag: "--seat-ttl",
    value: "<duration>",
    key: "seatTtl",
    env: "MESH_PROVISIONER_SEAT_TTL",
    default: "10s",
    // Renewed four times a ttl, each a JetStream round trip: below a second a pause loses the seat. A crash's takeover waits one ttl: minutes at most.
    bounds: { min: "1s", max: "5m" },
    help: "the seat's lease time",
  },
  {
    // commander names the value of a `--no-` switch by what it negates: false when given; its implied true counts as not given.
    flag: "--no-seat",
    value: "",
    key: "seat",
    env: "MESH_PROVISIONER_NO_SEAT",
    default: "false",
    help: "never take the seat: an instance at a site, which never creates or writes a bucket, reads them (through --js-domain) and answers the verb",
  },
  { flag: "--replicas", value: "<n>", key: "replicas", env: "MESH_PROVISIONER_REPLICAS", default: "1", help: "replicas of the buckets it creates (1 to 5)" },
  {
    flag: "--max-wait",
    value: "<duration>",
    key: "maxWait",
    env: "MESH_PROVISIONER_MAX_WAIT",
    default: "5s",
    // A graceful stop waits this long for the requests in flight (src/stop.ts): past 30s it outlasts a supervisor's grace period (the chart's is 45s).
    bounds: { min: "1ms", max: "30s" },
    help: "longest wait of a minRevision request before 504",
  },
  {
    flag: "--stale-after",
    value: "<duration>",
    key: "staleAfter",
    env: "MESH_PROVISIONER_STALE_AFTER",
    default: "5s",
    // A watch hears from its stream at least every second while it can reach it (the stall check): below a second a
    // busy moment would say stale; past an hour a cut-off site answers an hour without saying so.
    bounds: { min: "1s", max: "1h" },
    help: "a projection that has heard nothing from its bucket's stream for longer than this says its answers may be stale",
  },
  {
    flag: "--drift-delay",
    value: "<duration>",
    key: "driftDelay",
    env: "MESH_PROVISIONER_DRIFT_DELAY",
    default: "250ms",
    // A debounce: it waits out a burst of writes to the registry, which never lasts minutes; the interval repairs what it misses.
    bounds: { min: "1ms", max: "1m" },
    help: "how soon a drifted registry is repaired",
  },
  {
    flag: "--http",
    value: "<host:port>",
    key: "http",
    env: "MESH_PROVISIONER_HTTP",
    help: "serve the dashboard, /healthz, /readyz and /metrics there (port 0: a free port, logged)",
  },
  {
    flag: "--http-token",
    value: "<token>",
    key: "httpToken",
    env: "MESH_PROVISIONER_HTTP_TOKEN",
    help: `the dashboard's data and events need this bearer token (16 characters at least); ${ON_THE_COMMAND_LINE} --http-token-file`,
  },
  {
    flag: "--http-token-file",
    value: "<file>",
    key: "httpTokenFile",
    env: "MESH_PROVISIONER_HTTP_TOKEN_FILE",
    help: "file holding the dashboard's bearer token (a trailing newline is ignored)",
  },
  {
    flag: "--max-value-bytes",
    value: "<size>",
    key: "maxValueBytes",
    env: "MESH_PROVISIONER_MAX_VALUE_BYTES",
    // Far above a placeholder's value, far below a bucket.
    default: "64KiB",
    help: "the largest value a node may write in the node buckets it creates, such as 64KiB",
  },
  {
    flag: "--bucket-max-bytes",
    value: "<size>",
    key: "bucketMaxBytes",
    env: "MESH_PROVISIONER_BUCKET_MAX_BYTES",
    // A node flooding its keys fills its own bucket, never the store the registry and the seat live in.
    default: "1GiB",
    help: "each node bucket's size: a node flooding its keys fills its own bucket, not the store",
  },
  {
    flag: "--flood-keys",
    value: "<n>",
    key: "floodKeys",
    env: "MESH_PROVISIONER_FLOOD_KEYS",
    // Far above what a node needs (a hundred needs of a few hundred bytes), far below a store's size.
    default: "10000",
    help: "a node with more keys than this across the node buckets is named as flooding",
  },
  {
    flag: "--flood-bytes",
    value: "<size>",
    key: "floodBytes",
    env: "MESH_PROVISIONER_FLOOD_BYTES",
    default: "16MiB",
    help: "a node with more bytes than this across the node buckets is named as flooding",
  },
  {
    flag: "--checkpoint-every",
    value: "<duration>",
    key: "checkpointEvery",
    env: "MESH_PROVISIONER_CHECKPOINT_EVERY",
    // Short enough that a restart under steady writes catches up in seconds.
    default: "5m",
    // Writing one is a pass over a whole projection: not a busy loop; past a day a restart replays a day of writes.
    bounds: { min: "1s", max: "24h" },
    help: "how often the seat's holder writes the checkpoints that are due; 0: never (not at a graceful stop either)",
  },
  {
    flag: "--checkpoint-max-bytes",
    value: "<size>",
    key: "checkpointMaxBytes",
    env: "MESH_PROVISIONER_CHECKPOINT_MAX_BYTES",
    // Room for a checkpoint of each node bucket and the one replacing it.
    default: "1GiB",
    help: "the checkpoints' bucket's size limit",
  },
  {
    flag: "--log-level",
    value: "<level>",
    key: "logLevel",
    env: "MESH_PROVISIONER_LOG_LEVEL",
    fallbackEnv: "LOG_LEVEL",
    default: "info",
    help: "fatal, error, warn, info, debug, trace or silent",
  },
  {
    flag: "--heap-growing",
    value: "<percent>",
    key: "heapGrowing",
    env: "MESH_PROVISIONER_HEAP_GROWING",
    // The next full collection once the heap is 4x what the last one left live (see heap.ts).
    default: "300",
    help: "how far the JS heap grows between full collections, in percent of what the last left live; 0: V8's own",
  },
] as const satisfies readonly Setting[];

export type ConnectionKey = (typeof CONNECTION_SETTINGS)[number]["key"];
export type ServeKey = (typeof SERVE_SETTINGS)[number]["key"];

/** Every setting `serve` takes: the connection's, then its own. */
export const ALL_SERVE_SETTINGS: readonly Setting[] = [...CONNECTION_SETTINGS, ...SERVE_SETTINGS];

/** A setting by its key (the table is checked whole by the tests, so a key here always exists). */
export function setting(key: ConnectionKey | ServeKey): Setting {
  return ALL_SERVE_SETTINGS.find((s) => s.key === key) as Setting;
}

type Defaulted<T extends readonly Setting[]> = { readonly [S in T[number] as S extends { default: string } ? S["key"] : never]: string };

function defaultsOf<T extends readonly Setting[]>(settings: T): Defaulted<T> {
  return Object.freeze(Object.fromEntries(settings.flatMap((s) => (s.default === undefined ? [] : [[s.key, s.default]])))) as Defaulted<T>;
}

/** The connection's defaults, for every command that talks to the bus. */
export const CONNECTION_DEFAULTS = defaultsOf(CONNECTION_SETTINGS);

/** `serve`'s defaults, by flag key. */
export const SERVE_DEFAULTS = defaultsOf(SERVE_SETTINGS);

/** `query`'s and `verify`'s defaults. */
export const COMMAND_DEFAULTS = Object.freeze({
  /** How long `query` waits for each page: a duration, or a bare number of milliseconds. */
  timeout: "10s",
  /** How many times `verify` reads and compares while writes land in between. */
  attempts: "3",
});

/** `query`'s and `verify`'s bounds: a value outside them is refused before connecting. */
export const COMMAND_BOUNDS = Object.freeze({
  // A bare number is milliseconds: below 100 no answer can come back, and `--timeout 5` meant seconds.
  timeout: Object.freeze({ min: "100ms", max: "10m" }) satisfies DurationBounds,
  attempts: Object.freeze({ min: 1, max: 100 }),
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

/** How long a projection may hear nothing from its stream before its answers say they may be stale, by default. */
export const DEFAULT_STALE_AFTER_MS = parseDuration(SERVE_DEFAULTS.staleAfter);
