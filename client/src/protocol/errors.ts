/**
 * The protocol's errors: the verb's service codes, one table. Each has a
 * stable `code` (never renamed once released) and the status the verb answers
 * with (`Nats-Service-Error-Code` and the reply's `error.code`). The service
 * and the clients raise them; process exit codes are another table, owned by
 * the command line (src/cli/exit-codes.ts).
 */

export const ErrorCodes = {
  /** The verb's request is not JSON, names an unknown field or value, or a filter that cannot apply. */
  BAD_REQUEST: { code: "E_BAD_REQUEST", status: 400 },
  /** A request is over one of the bounds (body size, limit, minRevision wait). */
  REQUEST_TOO_LARGE: { code: "E_REQUEST_BOUND", status: 400 },
  /** The verb's subject does not reach what was asked (another node's entries on a node's subject, applied or collect on the needs' subject). */
  FORBIDDEN: { code: "E_FORBIDDEN", status: 403 },
  /** Something failed inside the service; the request may be retried. */
  INTERNAL: { code: "E_INTERNAL", status: 500 },
  /** The asked projections have not finished their first sync (a projection whose watch resumes keeps answering). */
  NOT_SYNCED: { code: "E_NOT_SYNCED", status: 503 },
  /** `minRevision` was not reached within the bounded wait. */
  REVISION_TIMEOUT: { code: "E_REVISION_TIMEOUT", status: 504 },
} as const;

export type ErrorKind = keyof typeof ErrorCodes;

/** The code of a service status as a reply carries it (400 is E_BAD_REQUEST, the more general of its two). */
export function codeOfStatus(status: number): string | undefined {
  return Object.values(ErrorCodes).find((e) => e.status === status)?.code;
}

export class ProvisionerError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly status: number;

  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProvisionerError";
    this.kind = kind;
    this.code = ErrorCodes[kind].code;
    this.status = ErrorCodes[kind].status;
  }

  /** The body of a verb's error reply, as the contract fixes it. */
  toReplyBody(): { error: { code: number; message: string } } {
    return { error: { code: this.status, message: this.message } };
  }
}

export function isProvisionerError(err: unknown): err is ProvisionerError {
  return err instanceof ProvisionerError;
}

/** Wrap anything thrown into a ProvisionerError of the given kind, keeping the cause. */
export function wrapError(kind: ErrorKind, message: string, cause: unknown): ProvisionerError {
  if (cause instanceof ProvisionerError) return cause;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ProvisionerError(kind, `${message}: ${detail}`, { cause });
}

export const badRequest = (message: string): ProvisionerError => new ProvisionerError("BAD_REQUEST", message);
