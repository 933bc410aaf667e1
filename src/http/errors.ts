/**
 * The dashboard's own HTTP errors, beside the protocol's (a bad request, an
 * internal error), which it answers with their own status and code.
 */
import type { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";

export const HttpErrorCodes = {
  /** The dashboard's data was asked for without its token (--http-token). */
  UNAUTHORIZED: { code: "E_UNAUTHORIZED", status: 401 },
  /** No such HTTP path. */
  NOT_FOUND: { code: "E_NOT_FOUND", status: 404 },
  /** The port is bound but the service has not started yet (only /healthz answers 200 until then). */
  STARTING: { code: "E_STARTING", status: 503 },
} as const;

export class HttpError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(kind: keyof typeof HttpErrorCodes, message: string) {
    super(message);
    this.name = "HttpError";
    this.code = HttpErrorCodes[kind].code;
    this.status = HttpErrorCodes[kind].status;
  }
}

/** What an HTTP error reply says: its status, and the body's code and message. */
export type HttpFailure = HttpError | ProvisionerError;
