/** How a command ends when it cannot do its work: one clear line on stderr and a non-zero exit status. */
import { isProvisionerError } from "../errors.js";

export function exitCodeOf(err: unknown): number {
  return isProvisionerError(err) && err.status > 1 && err.status < 100 ? err.status : 1;
}

export function failAndExit(err: unknown, log?: { fatal: (obj: object, msg: string) => void }): never {
  const message = err instanceof Error ? err.message : String(err);
  const code = isProvisionerError(err) ? err.code : "E_UNEXPECTED";
  log?.fatal({ code, err: message }, "mesh-provisioner cannot start");
  process.stderr.write(`mesh-provisioner: ${message} [${code}]\n`);
  process.exit(exitCodeOf(err));
}
