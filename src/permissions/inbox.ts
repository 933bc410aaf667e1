/**
 * The role each command runs under by default, for its inbox prefix (pure).
 * The prefixes themselves are the protocol's (protocol/inbox.ts).
 */
import type { Role } from "mesh-provisioner-client/protocol/inbox.js";

export { inboxPrefix, ROLES, type Role } from "mesh-provisioner-client/protocol/inbox.js";

/** `serve` runs under the provisioner's grant. */
export const SERVE_ROLE: Role = "provisioner";

/**
 * `query`, `dump` and `verify` default to the provisioner's prefix too. They
 * are the service operator's tools: `verify` reads all four buckets, and
 * `dump` asks the verb for every node's entries, which only the
 * provisioner's grant allows; so the one grant under which all three work as
 * printed is the provisioner's. A node running `query` under its own grant
 * asks for its own node (`query needs --node n1`, on its own verb subject)
 * and passes its own prefix (`permissions --role …` prints it).
 */
export const COMMAND_ROLE: Role = "provisioner";
