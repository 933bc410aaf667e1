/**
 * `mesh-provisioner permissions --role <role> [--node N …] [--js-domain D]`: print the least grant as nats-server
 * configuration JSON; `--example` an accounts block with one user per role; `--leaf-config` a site's leaf server's.
 */
import { GRANT_ROLES, grantFor, inboxPrefix, type GrantRole } from "../permissions/grants.js";
import { SERVE_ROLE } from "../permissions/inbox.js";
import { accountsConfigText, EXAMPLE_USERS, siteLeafExampleText } from "../permissions/server-config.js";
import { JS_DOMAIN } from "../config.js";
import { failAndExit } from "./fail.js";
import { Failure } from "../failure.js";

export interface PermissionsFlags {
  role?: string;
  node?: string[];
  jsDomain?: string;
  example?: boolean;
  leafConfig?: boolean;
  hub?: string;
  siteDomain?: string;
}

function domainFlag(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && !JS_DOMAIN.test(value)) {
    throw new Failure("CONFIG", `${flag} "${value}" must be one JetStream domain: one word with no dot, wildcard (* or >) or space, such as hub`);
  }
  return value;
}

/** The inbox prefix the grant's user connects with, for the line on stderr. */
function connectHint(role: GrantRole, node: string | undefined): string {
  switch (role) {
    case "leaf":
      return "# the hub's user for a site's leaf server: put it in the hub's accounts and the site's leafnodes remote (see --leaf-config)\n";
    case "site":
      return `# run serve --no-seat under this user (serve's default prefix, ${inboxPrefix(SERVE_ROLE)}, is allowed)\n`;
    default:
      return `# connect this user with --inbox-prefix ${inboxPrefix(role, node)} (or NATS_INBOX_PREFIX)\n`;
  }
}

function leafConfig(flags: PermissionsFlags, nodes: string[]): string {
  const jsDomain = domainFlag("--js-domain", flags.jsDomain);
  if (jsDomain === undefined) throw new Failure("CONFIG", "--leaf-config needs --js-domain D, the hub's JetStream domain the site reaches its buckets through");
  if (nodes.length === 0) throw new Failure("CONFIG", "--leaf-config needs --node N for each node at the site (repeat it)");
  for (const n of nodes) grantFor("node", n); // each node's name checked, with the flag's message
  return siteLeafExampleText({ nodes, jsDomain, hubUrl: flags.hub, siteDomain: domainFlag("--site-domain", flags.siteDomain) });
}

export function permissionsCommand(flags: PermissionsFlags): void {
  try {
    const nodes = flags.node ?? [];
    if (flags.example) {
      process.stdout.write(accountsConfigText(EXAMPLE_USERS));
      return;
    }
    if (flags.leafConfig) {
      process.stdout.write(leafConfig(flags, nodes));
      return;
    }
    if (flags.role === undefined || !(GRANT_ROLES as readonly string[]).includes(flags.role)) {
      throw new Failure("CONFIG", `--role must be one of ${GRANT_ROLES.join(", ")}`);
    }
    const role = flags.role as GrantRole;
    if (role !== "node" && role !== "leaf" && nodes.length > 0) throw new Failure("CONFIG", "--node applies to --role node and --role leaf only");
    if (role === "node" && nodes.length > 1) throw new Failure("CONFIG", "--role node takes one --node");
    const grant = grantFor(role, nodes[0], { jsDomain: domainFlag("--js-domain", flags.jsDomain), nodes });
    process.stdout.write(`${JSON.stringify(grant, null, 2)}\n`);
    process.stderr.write(connectHint(role, nodes[0]));
  } catch (err) {
    failAndExit(err);
  }
}
