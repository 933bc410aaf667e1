/**
 * A nats-server configuration built from the grants (pure): one account with
 * JetStream, one user per role. nats-server reads JSON as configuration, so
 * the output is JSON. Used by the tests and to generate the example in docs/.
 */
import { grantFor, type Role } from "./grants.js";

export interface UserSpec {
  readonly user: string;
  readonly password: string;
  readonly role: Role;
  readonly node?: string;
}

export function accountsConfig(users: readonly UserSpec[], account = "MESH"): Record<string, unknown> {
  return {
    accounts: {
      [account]: {
        jetstream: "enabled",
        users: users.map((u) => ({ user: u.user, password: u.password, permissions: grantFor(u.role, u.node) })),
      },
    },
  };
}

/** The body of a configuration file (without listen/jetstream store lines, which the deployment adds). */
export function accountsConfigText(users: readonly UserSpec[], account = "MESH"): string {
  const body = JSON.stringify(accountsConfig(users, account), null, 2);
  // nats-server takes a top-level JSON object's members without the outer braces too; keep the braces off
  // so the text can be appended to an existing configuration.
  return body.slice(1, -1).trim() + "\n";
}

export const EXAMPLE_USERS: readonly UserSpec[] = [
  { user: "mesh-provisioner", password: "change-me-provisioner", role: "provisioner" },
  { user: "node-n1", password: "change-me-n1", role: "node", node: "n1" },
  { user: "node-n2", password: "change-me-n2", role: "node", node: "n2" },
  { user: "provider", password: "change-me-provider", role: "provider" },
  { user: "operator", password: "change-me-operator", role: "operator" },
];
