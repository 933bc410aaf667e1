/**
 * The command line's exit statuses, one table. A status is never reused for
 * another meaning once released (5 and 6 are retired: nothing ended with
 * them). docs/troubleshooting.md says what to do about each, and a test makes
 * each one happen.
 */
import { isFailure, type FailureKind } from "../failure.js";
import { ClientError } from "mesh-provisioner-client";

export const ExitCodes = {
  /** The command did its work (serve: stopped by a signal; verify: no difference). */
  OK: 0,
  /** verify found a difference, or an error outside this table. */
  FAILED: 1,
  /** A flag or environment value is not valid (E_CONFIG). */
  CONFIG: 2,
  /** The server cannot be reached, or refused the connection, a subscribe or a publish (E_CONNECT). */
  CONNECT: 3,
  /** A bucket cannot be created or opened (E_BUCKET). */
  BUCKET: 4,
  /** `npm start` cannot find or start nats-server (E_EMBEDDED_SERVER). */
  EMBEDDED_SERVER: 7,
  /** query, dump, verify: the verb did not answer or answered with a service error (E_NO_ANSWER, or the service's code). */
  VERB: 8,
} as const;

const OF_FAILURE: Partial<Record<FailureKind, number>> = {
  CONFIG: ExitCodes.CONFIG,
  CONNECT: ExitCodes.CONNECT,
  BUCKET: ExitCodes.BUCKET,
  EMBEDDED_SERVER: ExitCodes.EMBEDDED_SERVER,
};

/** The exit status for what ended a command. */
export function exitCodeOf(err: unknown): number {
  if (isFailure(err)) return OF_FAILURE[err.kind] ?? ExitCodes.FAILED;
  if (err instanceof ClientError) return ExitCodes.VERB;
  return ExitCodes.FAILED;
}
