/**
 * Why the service or a command could not do its work (not the verb's
 * errors, which are the protocol's: src/protocol/errors.ts). Each failure has
 * a stable `code`, never renamed once released; the command line turns the
 * ones that end a process into its exit status (src/cli/exit-codes.ts).
 */

export const FailureCodes = {
  /** A flag or environment value is not valid. */
  CONFIG: "E_CONFIG",
  /** The NATS server could not be reached, or refused the connection, a subscribe or a publish. */
  CONNECT: "E_CONNECT",
  /** A bucket could not be created or opened. */
  BUCKET: "E_BUCKET",
  /** A step of a bucket's watch failed; the watch is started again from the revision it applied. */
  WATCH: "E_WATCH",
  /** A registry write failed (conflict, permission, timeout); the next reconcile tries again. */
  REGISTRY_WRITE: "E_REGISTRY_WRITE",
  /** The embedded nats-server could not be found or started. */
  EMBEDDED_SERVER: "E_EMBEDDED_SERVER",
} as const;

export type FailureKind = keyof typeof FailureCodes;

export class Failure extends Error {
  readonly kind: FailureKind;
  readonly code: string;

  constructor(kind: FailureKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "Failure";
    this.kind = kind;
    this.code = FailureCodes[kind];
  }
}

export function isFailure(err: unknown): err is Failure {
  return err instanceof Failure;
}

/** Wrap anything thrown into a Failure of the given kind, keeping the cause (a Failure already is one). */
export function wrapFailure(kind: FailureKind, message: string, cause: unknown): Failure {
  if (cause instanceof Failure) return cause;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new Failure(kind, `${message}: ${detail}`, { cause });
}
