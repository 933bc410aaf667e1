/**
 * The role each command runs under by default, for its inbox prefix (pure).
 * The clients' prefixes themselves are the protocol's (protocol/inbox.ts).
 */
import { inboxPrefix as clientInboxPrefix, ROLES, type Role } from "mesh-provisioner-client/protocol/inbox.js";
import { Failure } from "../failure.js";

export { ROLES, type Role } from "mesh-provisioner-client/protocol/inbox.js";

/** The roles `permissions` prints a grant for: the clients' roles, an instance at a site, and a site's leaf server's link. */
export type GrantRole = Role | "site" | "leaf";
export const GRANT_ROLES: readonly GrantRole[] = [...ROLES, "site", "leaf"];

/** `serve` runs under the provisioner's grant. */
export const SERVE_ROLE: Role = "provisioner";

/**
 * `query`, `dump` and `verify` default to the operator's prefix. They are the
 * service operator's tools, and the operator's grant reads everything they
 * read (every verb subject, the buckets for `verify`) and writes nothing, so
 * they need not borrow the service's credentials, which may write the
 * registry; the provisioner's and the site's grants allow this prefix too,
 * so they run under those with no flag as well. A node running `query` under
 * its own grant asks for its own node (`query needs --scope node:n1`, on its
 * own verb subject) and passes its own prefix (`permissions --role …` prints
 * it).
 */
export const COMMAND_ROLE: Role = "operator";

/**
 * The inbox prefix of a role's user. An instance at a site is `serve`, and
 * uses serve's prefix (so `serve --no-seat` needs no flag); a leaf server's
 * link is no client and has none.
 */
export function inboxPrefix(role: GrantRole, node?: string): string {
  if (role === "site") return clientInboxPrefix(SERVE_ROLE);
  if (role === "leaf") throw new Failure("CONFIG", "a leaf server's user at the hub connects no client, so it has no inbox prefix");
  return clientInboxPrefix(role, node);
}
