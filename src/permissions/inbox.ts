/**
 * The role each command runs under by default, for its inbox prefix (pure).
 * The prefixes themselves are the protocol's (protocol/inbox.ts).
 */
import type { Role } from "mesh-provisioner-client/protocol/inbox.js";

export { inboxPrefix, ROLES, type Role } from "mesh-provisioner-client/protocol/inbox.js";

/** `serve` runs under the provisioner's grant. */
export const SERVE_ROLE: Role = "provisioner";

/**
 * `query`, `dump` and `verify` default to the operator's prefix. They are the
 * service operator's tools, and the operator's grant reads everything they
 * read (every verb subject, the buckets for `verify`) and writes nothing, so
 * they need not borrow the service's credentials, which may write the
 * registry. A node running `query` under its own grant asks for its own node
 * (`query needs --scope node:n1`, on its own verb subject) and passes its own
 * prefix (`permissions --role …` prints it).
 */
export const COMMAND_ROLE: Role = "operator";
