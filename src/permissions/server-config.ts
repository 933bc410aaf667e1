/**
 * A nats-server configuration built from the grants (pure): one account with
 * JetStream, one user per role; and a site's leaf server's, whose local users
 * reach the hub's buckets through its JetStream domain. nats-server reads
 * JSON as configuration, so the output is JSON. Used by the tests and to
 * generate the examples in docs/.
 */
import { grantFor, type GrantRole } from "./grants.js";

export interface UserSpec {
  readonly user: string;
  readonly password: string;
  readonly role: GrantRole;
  readonly node?: string;
  /** For `leaf`: the nodes at the site. */
  readonly nodes?: readonly string[];
  /** The JetStream domain this user reaches the buckets through (`permissions --js-domain`). */
  readonly jsDomain?: string;
}

function userEntry(u: UserSpec): Record<string, unknown> {
  return { user: u.user, password: u.password, permissions: grantFor(u.role, u.node, { jsDomain: u.jsDomain, nodes: u.nodes }) };
}

export function accountsConfig(users: readonly UserSpec[], account = "MESH", jetstream = true): Record<string, unknown> {
  return { accounts: { [account]: { ...(jetstream ? { jetstream: "enabled" } : {}), users: users.map(userEntry) } } };
}

/** A configuration's members without the outer braces (nats-server takes them so), to append to an existing file. */
function members(config: Record<string, unknown>): string {
  return JSON.stringify(config, null, 2).slice(1, -1).trim() + "\n";
}

/** The body of a configuration file (without listen/jetstream store lines, which the deployment adds). */
export function accountsConfigText(users: readonly UserSpec[], account = "MESH"): string {
  return members(accountsConfig(users, account));
}

export interface SiteLeafSpec {
  /** The hub's leaf node listener, `nats-leaf://host:7422`. */
  readonly hubUrl: string;
  /** The hub's user for this site's link (role `leaf`), as its URL's user info. */
  readonly remote: { readonly user: string; readonly password: string };
  /** The site's local users: its nodes and its instance, with the hub's domain. */
  readonly users: readonly UserSpec[];
  /** The site's own JetStream domain; absent: the site's leaf server runs no JetStream. */
  readonly siteDomain?: string;
  readonly account?: string;
}

/**
 * The leaf server of a site: its local users (each node's grant and the
 * site instance's, reaching the hub's buckets through the hub's domain), and
 * its remote to the hub, authenticated as the hub's `leaf` user for the site.
 * A site with JetStream of its own gets its own domain, so that `$JS.API` at
 * the site is the site's and the hub's is reached as `$JS.<hub>.API`.
 */
export function siteLeafConfig(spec: SiteLeafSpec): Record<string, unknown> {
  const account = spec.account ?? "MESH";
  const url = new URL(spec.hubUrl);
  url.username = encodeURIComponent(spec.remote.user);
  url.password = encodeURIComponent(spec.remote.password);
  return {
    ...(spec.siteDomain === undefined ? {} : { jetstream: { domain: spec.siteDomain } }),
    leafnodes: { remotes: [{ url: url.toString(), account }] },
    ...accountsConfig(spec.users, account, spec.siteDomain !== undefined),
  };
}

export function siteLeafConfigText(spec: SiteLeafSpec): string {
  return members(siteLeafConfig(spec));
}

export interface SiteExample {
  /** The nodes at the site. */
  readonly nodes: readonly string[];
  /** The hub's JetStream domain. */
  readonly jsDomain: string;
  /** The hub's leaf node listener; default `nats-leaf://hub.example:7422`. */
  readonly hubUrl?: string;
  /** The site's own JetStream domain, if it runs JetStream. */
  readonly siteDomain?: string;
}

/** `permissions --leaf-config`: a site's leaf server's configuration with example passwords, and what the hub needs for it. */
export function siteLeafExampleText(site: SiteExample): string {
  const remote = { user: "leaf-site", password: "change-me-leaf-site" };
  const users = siteUsers(site.nodes, site.jsDomain);
  const text = siteLeafConfigText({ hubUrl: site.hubUrl ?? "nats-leaf://hub.example:7422", remote, users, siteDomain: site.siteDomain });
  const args = [...site.nodes.map((n) => `--node ${n}`), `--js-domain ${site.jsDomain}`].join(" ");
  return (
    "# A site's leaf server: its nodes' and its instance's users, and its remote to the hub.\n" +
    `# On the hub, user ${remote.user} has the grant of: mesh-provisioner permissions --role leaf ${args}\n` +
    `# Add this server's listen${site.siteDomain === undefined ? "" : " and its jetstream store_dir"}; change every password.\n` +
    text
  );
}

/** docs/site-leaf.example.conf: a site with nodes n1 and n2 and JetStream of its own, whose buckets are the hub's (domain hub). */
export const EXAMPLE_SITE: SiteExample = { nodes: ["n1", "n2"], jsDomain: "hub", siteDomain: "site-a" };

/** The users of a site's leaf server for `nodes`, reaching the hub's buckets through `hubDomain` (example passwords). */
export function siteUsers(nodes: readonly string[], hubDomain: string): UserSpec[] {
  return [
    ...nodes.map((n): UserSpec => ({ user: `node-${n}`, password: `change-me-${n}`, role: "node", node: n, jsDomain: hubDomain })),
    { user: "mesh-provisioner-site", password: "change-me-site", role: "site", jsDomain: hubDomain },
  ];
}

export const EXAMPLE_USERS: readonly UserSpec[] = [
  { user: "mesh-provisioner", password: "change-me-provisioner", role: "provisioner" },
  { user: "node-n1", password: "change-me-n1", role: "node", node: "n1" },
  { user: "node-n2", password: "change-me-n2", role: "node", node: "n2" },
  { user: "provider", password: "change-me-provider", role: "provider" },
  { user: "operator", password: "change-me-operator", role: "operator" },
  { user: "mesh-provisioner-site", password: "change-me-site", role: "site" },
  // The hub's user for the leaf server of the site in docs/site-leaf.example.conf (a hub in JetStream domain hub).
  { user: "leaf-site", password: "change-me-leaf-site", role: "leaf", nodes: ["n1", "n2"], jsDomain: "hub" },
];
