/** How a command ends when it cannot do its work: one clear line on stderr and a non-zero exit status. */
import { isProvisionerError } from "../protocol/errors.js";
import { permissionsError } from "../permissions/violation.js";

export function exitCodeOf(err: unknown): number {
  return isProvisionerError(err) && err.status > 1 && err.status < 100 ? err.status : 1;
}

export function failAndExit(failure: unknown, log?: { fatal: (obj: object, msg: string) => void }): never {
  // A refused subscribe or publish is why it failed, whatever step it broke: say so, naming the subject.
  const err = permissionsError(failure, { orSeen: true }) ?? failure;
  const message = err instanceof Error ? err.message : String(err);
  const code = isProvisionerError(err) ? err.code : "E_UNEXPECTED";
  log?.fatal({ code, err: message }, "mesh-provisioner cannot start");
  process.stderr.write(`mesh-provisioner: ${message} [${code}]\n`);
  process.exit(exitCodeOf(err));
}
