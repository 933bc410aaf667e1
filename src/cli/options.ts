/** Flags shared by every command that talks to the bus: the same names and environment as the nats CLI. */
import type { Command } from "commander";
import { COMMAND_ROLE, inboxPrefix, type Role } from "../permissions/inbox.js";
import { CONNECTION_DEFAULTS } from "../defaults.js";

/** `role`: whose grant the command runs under, and so whose inbox prefix it uses by default. */
export function addConnectionOptions(cmd: Command, role: Role = COMMAND_ROLE): Command {
  return cmd
    .option("-s, --server <urls>", `NATS server URLs, comma separated (env NATS_URL; default ${CONNECTION_DEFAULTS.server})`)
    .option("--creds <file>", "user credentials file (env NATS_CREDS)")
    .option("--nkey <file>", "nkey seed file (env NATS_NKEY)")
    .option("--user <user>", "user name (env NATS_USER)")
    .option("--password <password>", "password (env NATS_PASSWORD)")
    .option("--token <token>", "authentication token (env NATS_TOKEN)")
    .option("--tlsca <file>", "CA certificate to verify the server (env NATS_CA)")
    .option("--tlscert <file>", "client certificate (env NATS_CERT)")
    .option("--tlskey <file>", "client certificate's private key (env NATS_KEY)")
    .option(
      "--inbox-prefix <prefix>",
      // No commander default: it would hide NATS_INBOX_PREFIX. The configuration applies the default.
      `prefix of this client's inboxes and watch deliveries, as the user's grant allows (env NATS_INBOX_PREFIX; default ${inboxPrefix(role)}, the ${role}'s grant's)`,
    );
}
