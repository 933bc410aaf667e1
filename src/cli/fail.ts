/** How a command ends when it cannot do its work: one clear line on stderr and a non-zero exit status. */
import { permissionsError } from "../permissions/violation.js";
import { exitCodeOf } from "./exit-codes.js";

/** The stable code of what failed (a failure's, a client's or the protocol's), or E_UNEXPECTED. */
function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === "string" && code.startsWith("E_") ? code : "E_UNEXPECTED";
}

export function failAndExit(failure: unknown, log?: { fatal: (obj: object, msg: string) => void }): never {
  // A refused subscribe or publish is why it failed, whatever step it broke: say so, naming the subject.
  const err = permissionsError(failure, { orSeen: true }) ?? failure;
  const message = err instanceof Error ? err.message : String(err);
  const code = codeOf(err);
  log?.fatal({ code, err: message }, "mesh-provisioner cannot start");
  process.stderr.write(`mesh-provisioner: ${message} [${code}]\n`);
  process.exit(exitCodeOf(err));
}
