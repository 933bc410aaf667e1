/**
 * A permissions violation, reported as one. nats.js surfaces a subscribe or
 * publish the server refused in two ways: the request it broke fails with a
 * PermissionViolationError (the cause of a RequestError), and the
 * connection's status iterator emits it as an `error`. Either way the cause
 * is the user's grant (or an inbox prefix the grant does not cover), not a
 * missing JetStream or a server that does not answer, and the message says
 * so, naming the subject refused. Detection is by shape, so this module
 * loads no NATS code.
 */
import { COMMAND_ROLE, inboxPrefix, SERVE_ROLE } from "./inbox.js";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { Failure } from "../failure.js";

export interface Violation {
  readonly operation: "publish" | "subscribe";
  readonly subject: string;
}

const SERVER_TEXT = /Permissions Violation for (Publish|Subscription) to "([^"\s]+)"/i;

function asViolation(e: unknown): Violation | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const { name, operation, subject, message } = e as { name?: unknown; operation?: unknown; subject?: unknown; message?: unknown };
  if (name === "PermissionViolationError" && typeof subject === "string" && subject !== "") {
    return { operation: operation === "publish" ? "publish" : "subscribe", subject };
  }
  const m = typeof message === "string" ? SERVER_TEXT.exec(message) : null;
  return m ? { operation: m[1]?.toLowerCase() === "publish" ? "publish" : "subscribe", subject: m[2] ?? "" } : undefined;
}

/** The violation behind an error, looked for along its `cause` chain. */
export function violationIn(err: unknown): Violation | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 8 && e !== undefined && e !== null; depth++) {
    const v = asViolation(e);
    if (v) return v;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

let first: { violation: Violation; inboxPrefix?: string } | undefined;

/**
 * Remember the first violation a connection of this process was told of: a
 * refusal that breaks no request (a watch's delivery subject, a publish with
 * no reply) can still be why a start-up step failed or timed out later.
 */
export function noteViolation(err: unknown, inboxPrefix?: string): void {
  const violation = first === undefined ? asViolation(err) : undefined;
  if (violation) first = { violation, inboxPrefix };
}

/** Forget what noteViolation saw (tests). */
export function forgetViolations(): void {
  first = undefined;
}

/** The inbox prefix `subject` is under (`<prefix>.<unique>.<token>`, as nats.js makes them), if it looks like one. */
function inboxOf(subject: string, prefix: string | undefined): string | undefined {
  if (prefix !== undefined && subject.startsWith(`${prefix}.`)) return prefix;
  const tokens = subject.split(".");
  return /^_INBOX/.test(subject) && tokens.length >= 3 ? tokens.slice(0, -2).join(".") : undefined;
}

/** "permissions violation: the server refused … on …; " and what to do about it. */
export function describeViolation(v: Violation, prefix?: string): string {
  const head = `permissions violation: the server refused ${v.operation} on ${v.subject}`;
  const used = inboxOf(v.subject, prefix);
  if (used !== undefined) {
    return (
      `${head}; the user's grant does not cover the inbox prefix ${used}, where replies and watch deliveries arrive: ` +
      "pass the prefix it allows with --inbox-prefix (or NATS_INBOX_PREFIX), as `mesh-provisioner permissions --role …` prints it " +
      `(the defaults: serve uses the ${SERVE_ROLE}'s, ${inboxPrefix(SERVE_ROLE)}; query, dump and verify the ${COMMAND_ROLE}'s, ${inboxPrefix(COMMAND_ROLE)})`
    );
  }
  if (v.operation === "publish" && v.subject.startsWith(VERB_SUBJECT)) {
    return (
      `${head}; each grant allows the verb's subject of its own scope: a provider asks with --scope needs, ` +
      `node N with --scope node:N, the ${COMMAND_ROLE}'s and the ${SERVE_ROLE}'s users on every subject (\`mesh-provisioner permissions --role …\` prints each grant)`
    );
  }
  return (
    `${head}; the user's grant must allow it: \`mesh-provisioner permissions --role ${SERVE_ROLE}\` prints the least grant the service works under, ` +
    `\`--role ${COMMAND_ROLE}\` the one of query, dump and verify`
  );
}

/**
 * The Failure("CONNECT") to report instead of `err` when a
 * permissions violation is behind it: found along its causes, or else (with
 * `orSeen`) the first one this process was told of, with what failed after it.
 */
export function permissionsError(err: unknown, opts: { inboxPrefix?: string; orSeen?: boolean } = {}): Failure | undefined {
  const own = violationIn(err);
  const seen = own === undefined && opts.orSeen ? first : undefined;
  const v = own ?? seen?.violation;
  if (v === undefined) return undefined;
  let message = describeViolation(v, opts.inboxPrefix ?? seen?.inboxPrefix);
  if (own === undefined) message += ` (what failed then: ${err instanceof Error ? err.message : String(err)})`;
  return new Failure("CONNECT", message, { cause: err });
}
