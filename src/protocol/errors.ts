/**
 * The one catalogue of errors. Every error the service raises at its edges is a
 * ProvisionerError with a stable `code` (never renamed once released), an HTTP-like
 * `status` used for the verb's service errors, and a message a person can act on.
 */

export const ErrorCodes = {
  /** The verb's request is not JSON, names an unknown field or value, or a filter that cannot apply. */
  BAD_REQUEST: { code: "E_BAD_REQUEST", status: 400 },
  /** A request is over one of the bounds (body size, limit, minRevision wait). */
  REQUEST_TOO_LARGE: { code: "E_REQUEST_BOUND", status: 400 },
  /** The asked projections have not finished their first sync (a projection whose watch resumes keeps answering). */
  NOT_SYNCED: { code: "E_NOT_SYNCED", status: 503 },
  /** `minRevision` was not reached within the bounded wait. */
  REVISION_TIMEOUT: { code: "E_REVISION_TIMEOUT", status: 504 },
  /** The verb's subject does not reach what was asked (another node's entries on a node's subject, applied or collect on the needs' subject). */
  FORBIDDEN: { code: "E_FORBIDDEN", status: 403 },
  /** The dashboard's data was asked for without its token (--http-token). */
  UNAUTHORIZED: { code: "E_UNAUTHORIZED", status: 401 },
  /** No such HTTP path. */
  NOT_FOUND: { code: "E_NOT_FOUND", status: 404 },
  /** Something failed inside the service; the request may be retried. */
  INTERNAL: { code: "E_INTERNAL", status: 500 },
  /** A flag or environment value is not valid; the process cannot start. */
  CONFIG: { code: "E_CONFIG", status: 2 },
  /** The NATS server could not be reached or refused the connection. */
  CONNECT: { code: "E_CONNECT", status: 3 },
  /** A bucket could not be created or opened. */
  BUCKET: { code: "E_BUCKET", status: 4 },
  /** A watch on a bucket failed in a way it cannot recover from. */
  WATCH: { code: "E_WATCH", status: 5 },
  /** A registry write failed (conflict, permission, timeout). */
  REGISTRY_WRITE: { code: "E_REGISTRY_WRITE", status: 6 },
  /** The embedded nats-server could not be found or started. */
  EMBEDDED_SERVER: { code: "E_EMBEDDED_SERVER", status: 7 },
  /** The verb answered with a service error (seen by the command line's client side). */
  VERB: { code: "E_VERB", status: 8 },
} as const;

export type ErrorKind = keyof typeof ErrorCodes;

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
