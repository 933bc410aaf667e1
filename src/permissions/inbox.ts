/**
 * The roles and their inbox prefixes (pure, no imports, so the configuration
 * can default a command's prefix without loading the grants).
 *
 * Every role's grant lets it subscribe only under its own prefix, so replies
 * and watch deliveries stay in a subject space nobody else may read. A client
 * that uses NATS's default `_INBOX` under such a grant is refused its first
 * reply subscription: hence each command's default is its role's prefix.
 */

export type Role = "provisioner" | "node" | "provider";
export const ROLES: readonly Role[] = ["provisioner", "node", "provider"];

/** The inbox prefix of a role: replies and watch deliveries arrive under it. */
export function inboxPrefix(role: Role, node?: string): string {
  switch (role) {
    case "provisioner":
      return "_INBOX_mesh-provisioner";
    case "provider":
      return "_INBOX_mesh-provider";
    case "node":
      return `_INBOX_mesh-node_${node}`;
  }
}

/** `serve` runs under the provisioner's grant. */
export const SERVE_ROLE: Role = "provisioner";

/**
 * `query`, `dump` and `verify` default to the provisioner's prefix too. They
 * are the service operator's tools: `verify` reads all four buckets, which
 * only the provisioner's grant allows, and `query` and `dump` ask the verb,
 * which every grant allows; so the one grant under which all three work as
 * printed is the provisioner's. A node or a provider running `query` under its
 * own grant passes its own prefix (`permissions --role …` prints it).
 */
export const COMMAND_ROLE: Role = "provisioner";
