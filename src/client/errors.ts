/** The error a client gets when the verb answers with a service error (its code: 400, 503, 504 or 500). */
import { ProvisionerError } from "../protocol/errors.js";

export class VerbError extends ProvisionerError {
  constructor(
    /** The service's error code: 400 (bad request), 503 (not synced yet), 504 (minRevision not reached in time), 500. */
    readonly serviceCode: number,
    message: string,
  ) {
    super("VERB", `${message} (${serviceCode})`);
  }

  /** A 503 or 504: asking again later may succeed. */
  get retryable(): boolean {
    return this.serviceCode === 503 || this.serviceCode === 504 || this.serviceCode === 500;
  }
}
