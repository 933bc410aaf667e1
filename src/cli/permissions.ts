/** `mesh-provisioner permissions --role provisioner|node|provider|operator [--node N]`: print the least grant as nats-server configuration JSON. */
import { grantFor, inboxPrefix, ROLES, type Role } from "../permissions/grants.js";
import { accountsConfigText, EXAMPLE_USERS } from "../permissions/server-config.js";
import { failAndExit } from "./fail.js";
import { Failure } from "../failure.js";

export function permissionsCommand(flags: { role?: string; node?: string; example?: boolean }): void {
  try {
    if (flags.example) {
      process.stdout.write(accountsConfigText(EXAMPLE_USERS));
      return;
    }
    if (flags.role === undefined || !(ROLES as readonly string[]).includes(flags.role)) {
      throw new Failure("CONFIG", `--role must be one of ${ROLES.join(", ")}`);
    }
    const role = flags.role as Role;
    if (role !== "node" && flags.node !== undefined) {
      throw new Failure("CONFIG", "--node applies to --role node only");
    }
    const grant = grantFor(role, flags.node);
    process.stdout.write(`${JSON.stringify(grant, null, 2)}\n`);
    process.stderr.write(`# connect this user with --inbox-prefix ${inboxPrefix(role, flags.node)} (or NATS_INBOX_PREFIX)\n`);
  } catch (err) {
    failAndExit(err);
  }
}
