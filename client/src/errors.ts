/**
 * The errors the client raises of its own, each with a stable `code`:
 * `VerbError` when the verb answers with a service error, `NoAnswerError`
 * when no instance answers. A key helper refuses a token with the protocol's
 * `ProvisionerError` (E_BAD_REQUEST), as the verb would.
 */
import { codeOfStatus } from "./protocol/errors.js";
import type { Staleness } from "./protocol/staleness.js";

export abstract class ClientError extends Error {
  abstract readonly code: string;
}

/**
 * The verb answered with a service error: `serviceCode` is its status (400,
 * 403, 500, 503 or 504), `code` the protocol's code for it, and `stale` the
 * staleness the error's body carried (the asked projection had heard nothing
 * from its stream for longer than `--stale-after`: a 504 from a site cut off
 * from its hub says since when, and the revision it holds).
 */
export class VerbError extends ClientError {
  readonly code: string;
  readonly stale?: Staleness;

  constructor(
    readonly serviceCode: number,
    message: string,
    stale?: Staleness,
  ) {
    super(`${message} (${serviceCode})`);
    this.name = "VerbError";
    this.code = codeOfStatus(serviceCode) ?? "E_SERVICE";
    if (stale !== undefined) this.stale = stale;
  }

  /** A 503, 504 or 500: asking again later may succeed. */
  get retryable(): boolean {
    return this.serviceCode === 503 || this.serviceCode === 504 || this.serviceCode === 500;
  }
}

/** No instance answered on `subject` within the timeout (none running, none this user may ask, or all too slow). */
export class NoAnswerError extends ClientError {
  readonly code = "E_NO_ANSWER";

  constructor(
    readonly subject: string,
    cause: unknown,
  ) {
    super(
      `no answer from ${subject} (is mesh-provisioner serve running, and may this user ask it?): ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = "NoAnswerError";
  }
}
