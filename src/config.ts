/**
 * Configuration, parsed once from flags and their environment twins (the
 * table of settings in defaults.ts), validated, and frozen. Flags win over
 * the environment, the environment over the defaults. Secrets given as files
 * are read here, once. Everything invalid is a Failure("CONFIG") whose message
 * names the flag or the variable it came from, and what to write.
 */
import { readFileSync } from "node:fs";
import { parseSize } from "./size.js";
import type { BucketLimits } from "./streams/buckets.js";
import type { FloodLimits } from "./overview/flood.js";
import { parseBoundedDuration, parseDuration } from "./duration.js";
import { COMMAND_BOUNDS, COMMAND_DEFAULTS, CONNECTION_DEFAULTS, setting, type ConnectionKey, type ServeKey, type Setting } from "./defaults.js";
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
  /**
   * The JetStream domain the buckets live in (`$JS.<domain>.API`), for a
   * connection to a leaf node whose hub holds them; absent: the connection's
   * own JetStream (`$JS.API`).
   */
  readonly jsDomain?: string;
}

export interface ServeConfig {
  readonly connection: ConnectionConfig;
  readonly registryIntervalMs: number;
  readonly seatTtlMs: number;
  readonly replicas: number;
  /** Where to serve HTTP, and the flag or variable that said so (for its errors). */
  readonly http?: { host: string; port: number; from: string };
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
  /**
   * An instance at a site (`--no-seat`): it never takes the seat, never
   * creates or updates a bucket, never writes the registry, checkpoints or
   * the feed; it reads the buckets and answers the verb.
   */
  readonly noSeat: boolean;
  /** How long a projection may hear nothing from its bucket's stream before its answers say they may be stale. */
  readonly staleAfterMs: number;
}

/** Raw flag values as commander hands them over (all optional strings), named as the table of settings names them. */
export type ConnectionFlags = Partial<Record<ConnectionKey, string>>;

/** commander hands a `--no-` switch over as a boolean: false when given, its implied true otherwise. */
export type ServeFlags = ConnectionFlags & Partial<Record<Exclude<ServeKey, "seat">, string>> & { readonly seat?: boolean | string };

type Env = Readonly<Record<string, string | undefined>>;
type Flags = Readonly<Partial<Record<string, string | boolean>>>;

/** Reads a secret's file as text (I/O, passed in so a test can give its own). */
export type ReadFile = (path: string) => string;

const readUtf8: ReadFile = (path) => readFileSync(path, "utf8");

/** A setting's value and where it came from (the flag or the variable), so an error names what the operator wrote. */
interface Given {
  readonly value: string;
  readonly from: string;
}

/**
 * A setting as given: the flag, else its variable, else an older variable it
 * replaces. An empty variable is unset (an environment file's `NAME=`); a
 * flag given as "" is given, and hides the environment's value.
 */
function given(s: Setting, flags: Flags, env: Env): Given | undefined {
  const flag = flags[s.key];
  // A switch is given when commander says false (it negates what its name says); its implied true leaves the variable to decide.
  if (s.value === "" && typeof flag === "boolean") {
    if (!flag) return { value: "true", from: s.flag };
  } else if (flag !== undefined) return { value: String(flag), from: s.flag };
  for (const name of [s.env, s.fallbackEnv]) {
    const v = name === undefined ? undefined : env[name];
    if (name !== undefined && v !== undefined && v !== "") return { value: v, from: name };
  }
  return undefined;
}

/** A setting that has a default: as given, else the table's default (an error in it names the flag). */
function valued(key: ConnectionKey | ServeKey, flags: Flags, env: Env): Given {
  const s = setting(key);
  return given(s, flags, env) ?? { value: s.default ?? "", from: s.flag };
}

/** An optional text setting: undefined when not given or given empty. */
function text(key: ConnectionKey | ServeKey, flags: Flags, env: Env): Given | undefined {
  const g = given(setting(key), flags, env);
  return g === undefined || g.value === "" ? undefined : g;
}

/** A secret's file, read once: its text without the trailing newline(s) an editor or `echo` leaves. */
function readSecret(file: Given, read: ReadFile): string {
  let content: string;
  try {
    content = read(file.value);
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ");
    throw new Failure("CONFIG", `${file.from} "${file.value}" cannot be read: ${why}`, { cause: err });
  }
  const secret = content.replace(/[\r\n]+$/, "");
  if (secret === "") throw new Failure("CONFIG", `${file.from} "${file.value}" is empty: it must hold the secret`);
  return secret;
}

/**
 * A secret given as a value or as a file's path. The flags are looked at as a
 * pair before the environment's pair, so a flag of either form wins over the
 * environment; both forms at one level is refused, as the operator meant only
 * one of them. The value is never part of a message.
 */
function secret(valueKey: ConnectionKey | ServeKey, fileKey: ConnectionKey | ServeKey, flags: Flags, env: Env, read: ReadFile): Given | undefined {
  const v = setting(valueKey);
  const f = setting(fileKey);
  const byFlag = flags[v.key] !== undefined || flags[f.key] !== undefined;
  const value = byFlag ? given(v, flags, {}) : given(v, {}, env);
  const file = byFlag ? given(f, flags, {}) : given(f, {}, env);
  if (value !== undefined && file !== undefined) {
    throw new Failure("CONFIG", `both ${value.from} and ${file.from} are given: give one (better ${file.from}: a file keeps the secret off the command line)`);
  }
  if (file !== undefined) return { value: readSecret(file, read), from: file.from };
  return value === undefined || value.value === "" ? undefined : value;
}

/** A JetStream domain: one subject token, as nats-server checks its `jetstream { domain }` (no dot, wildcard or space). */
const JS_DOMAIN = /^[^\s.*>]+$/;

/**
 * The connection of a command. Without --inbox-prefix or NATS_INBOX_PREFIX the
 * inboxes are under `defaultInboxPrefix`: the prefix of the role whose grant
 * the command runs under (query, dump and verify: COMMAND_ROLE's), so the
 * grant `permissions` prints works with no extra flag. The password and
 * token files are read here, once.
 */
export function connectionConfig(
  flags: ConnectionFlags,
  env: Env = process.env,
  defaultInboxPrefix: string = inboxPrefix(COMMAND_ROLE),
  read: ReadFile = readUtf8,
): ConnectionConfig {
  const url = valued("server", flags, env);
  const servers = url.value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (servers.length === 0) servers.push(CONNECTION_DEFAULTS.server);
  for (const s of servers) {
    if (!/^(nats|tls|ws|wss):\/\/[^\s]+$|^[^\s/:]+(:\d+)?$/.test(s)) {
      throw new Failure("CONFIG", `${url.from} "${s}" is not a NATS URL: write nats://HOST:PORT (several separated by commas)`);
    }
  }
  const user = text("user", flags, env)?.value;
  const password = secret("password", "passwordFile", flags, env, read);
  if (password !== undefined && user === undefined) {
    throw new Failure("CONFIG", `a password was given without a user: ${password.from} is set; set --user or NATS_USER too`);
  }
  const inbox = text("inboxPrefix", flags, env) ?? { value: defaultInboxPrefix, from: setting("inboxPrefix").flag };
  const jsDomain = text("jsDomain", flags, env);
  const cert = text("tlscert", flags, env);
  const key = text("tlskey", flags, env);
  const cfg: ConnectionConfig = {
    servers,
    creds: text("creds", flags, env)?.value,
    nkey: text("nkey", flags, env)?.value,
    user,
    password: password?.value,
    token: secret("token", "tokenFile", flags, env, read)?.value,
    ca: text("tlsca", flags, env)?.value,
    cert: cert?.value,
    key: key?.value,
    inboxPrefix: inbox.value,
    jsDomain: jsDomain?.value,
  };
  if (!/^[^\s.*>]+(\.[^\s.*>]+)*$/.test(inbox.value)) {
    throw new Failure(
      "CONFIG",
      `${inbox.from} "${inbox.value}" must be subject tokens separated by dots, with no wildcard or space, such as ${defaultInboxPrefix}`,
    );
  }
  // A domain is one subject token of the API's prefix, `$JS.<domain>.API`, as nats-server's `jetstream { domain }` takes it.
  if (jsDomain !== undefined && !JS_DOMAIN.test(jsDomain.value)) {
    throw new Failure(
      "CONFIG",
      `${jsDomain.from} "${jsDomain.value}" must be one JetStream domain, as the hub's jetstream { domain } names it: one word with no dot, wildcard (* or >) or space, such as hub`,
    );
  }
  if ((cert === undefined) !== (key === undefined)) {
    throw new Failure("CONFIG", `a TLS client certificate needs both --tlscert (NATS_CERT) and --tlskey (NATS_KEY); only ${(cert ?? key)?.from} is given`);
  }
  return Object.freeze(cfg);
}

function positiveInt(g: Given, max: number): number {
  const n = Number(g.value);
  if (!/^\d+$/.test(g.value.trim()) || !Number.isInteger(n) || n < 1 || n > max) {
    throw new Failure("CONFIG", `${g.from} "${g.value}" must be a whole number from 1 to ${max}`);
  }
  return n;
}

function percent(g: Given): number {
  const n = Number(g.value);
  if (!/^\d+$/.test(g.value.trim()) || n > 1000) {
    throw new Failure("CONFIG", `${g.from} "${g.value}" must be a whole number of percent from 0 (V8's own heuristic) to 1000`);
  }
  return n;
}

/** A duration setting, within the table's bounds for it. */
function duration(key: ServeKey, flags: Flags, env: Env): number {
  const g = valued(key, flags, env);
  const { bounds } = setting(key);
  return bounds === undefined ? parseDuration(g.value, g.from) : parseBoundedDuration(g.value, g.from, bounds);
}

const size = (g: Given): number => parseSize(g.value, g.from);

const TRUE = ["true", "1", "yes", "on"];
const FALSE = ["false", "0", "no", "off"];

/** A switch's value: true or false as a person writes it in a variable. */
function bool(g: Given): boolean {
  const v = g.value.trim().toLowerCase();
  if (TRUE.includes(v)) return true;
  if (FALSE.includes(v)) return false;
  throw new Failure("CONFIG", `${g.from} "${g.value}" must be true or false`);
}

export function parseHostPort(text: string, flag = "--http"): { host: string; port: number } {
  const m = /^(.*):(\d+)$/.exec(text.trim());
  if (!m) throw new Failure("CONFIG", `${flag} "${text}" must be HOST:PORT, such as 127.0.0.1:8080`);
  const port = Number(m[2]);
  if (port > 65535) throw new Failure("CONFIG", `${flag} "${text}": port ${m[2]} is out of range: a port is from 1 to 65535 (0: a free port)`);
  return { host: (m[1] ?? "").replace(/^\[|\]$/g, "") || "127.0.0.1", port };
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** `serve`'s configuration: each setting from its flag, else its MESH_PROVISIONER_ variable, else the table's default. */
export function serveConfig(flags: ServeFlags, env: Env = process.env, read: ReadFile = readUtf8): ServeConfig {
  const f = flags as Flags;
  const http = text("http", f, env);
  const httpToken = secret("httpToken", "httpTokenFile", f, env, read);
  const checkpointEvery = valued("checkpointEvery", f, env);
  const logLevel = valued("logLevel", f, env);
  const maxValueBytes = valued("maxValueBytes", f, env);
  const bucketMaxBytes = valued("bucketMaxBytes", f, env);
  const cfg: ServeConfig = {
    // The service's inboxes are under the provisioner's prefix unless told otherwise.
    connection: connectionConfig(flags, env, inboxPrefix(SERVE_ROLE), read),
    registryIntervalMs: duration("registryInterval", f, env),
    seatTtlMs: duration("seatTtl", f, env),
    replicas: positiveInt(valued("replicas", f, env), 5),
    http: http === undefined ? undefined : { ...parseHostPort(http.value, http.from), from: http.from },
    httpToken: httpToken?.value,
    maxWaitMs: duration("maxWait", f, env),
    driftDelayMs: duration("driftDelay", f, env),
    logLevel: logLevel.value,
    bucketLimits: { maxValueBytes: size(maxValueBytes), nodeBucketBytes: size(bucketMaxBytes) },
    floodLimits: {
      keys: positiveInt(valued("floodKeys", f, env), Number.MAX_SAFE_INTEGER),
      bytes: size(valued("floodBytes", f, env)),
    },
    checkpointEveryMs: checkpointEvery.value.trim() === "0" ? 0 : duration("checkpointEvery", f, env),
    checkpointMaxBytes: size(valued("checkpointMaxBytes", f, env)),
    heapGrowingPercent: percent(valued("heapGrowing", f, env)),
    noSeat: bool(valued("seat", f, env)),
    staleAfterMs: duration("staleAfter", f, env),
  };
  if (!LOG_LEVELS.includes(cfg.logLevel)) {
    throw new Failure("CONFIG", `${logLevel.from} "${cfg.logLevel}" must be one of ${LOG_LEVELS.join(", ")}`);
  }
  if (cfg.bucketLimits.maxValueBytes > cfg.bucketLimits.nodeBucketBytes) {
    throw new Failure("CONFIG", `${maxValueBytes.from} is larger than ${bucketMaxBytes.from}: no value could ever be written`);
  }
  if (httpToken !== undefined && cfg.http === undefined) {
    throw new Failure(
      "CONFIG",
      `${httpToken.from} guards the dashboard, which only --http <host:port> (MESH_PROVISIONER_HTTP) serves: set --http or MESH_PROVISIONER_HTTP`,
    );
  }
  if (httpToken !== undefined && httpToken.value.length < 16) {
    throw new Failure("CONFIG", `${httpToken.from}: the token must be at least 16 characters (try: openssl rand -hex 24)`);
  }
  return Object.freeze(cfg);
}

/** `query --timeout`: a duration within its bounds; a bare number is milliseconds, as the flag took before it took units. */
export function commandTimeoutMs(text: string = COMMAND_DEFAULTS.timeout, flag = "--timeout"): number {
  return parseBoundedDuration(text, flag, COMMAND_BOUNDS.timeout, true);
}

/** `verify --attempts`: a whole number within its bounds. */
export function verifyAttempts(text: string = COMMAND_DEFAULTS.attempts, flag = "--attempts"): number {
  const { min, max } = COMMAND_BOUNDS.attempts;
  const n = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || n < min || n > max) throw new Failure("CONFIG", `${flag} "${text}" must be a whole number from ${min} to ${max}`);
  return n;
}
