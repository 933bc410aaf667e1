/**
 * The roles and their inbox prefixes (pure, no imports): the grants, the
 * configuration's defaults and the clients read them from here.
 *
 * Every role's grant lets it subscribe only under its own prefix, so replies
 * and watch deliveries stay in a subject space nobody else may read. A client
 * that uses NATS's default `_INBOX` under such a grant is refused its first
 * reply subscription: hence each command's default is its role's prefix.
 */

export type Role = "provisioner" | "node" | "provider" | "operator";
export const ROLES: readonly Role[] = ["provisioner", "node", "provider", "operator"];

/** The inbox prefix of a role: replies and watch deliveries arrive under it. */
export function inboxPrefix(role: Role, node?: string): string {
  switch (role) {
    case "provisioner":
      return "_INBOX_mesh-provisioner";
    case "provider":
      return "_INBOX_mesh-provider";
    case "node":
      return `_INBOX_mesh-node_${node}`;
    case "operator":
      return "_INBOX_mesh-operator";
  }
}
