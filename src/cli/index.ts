/** The command line: one sub-command per file, parsed with commander. */
import { Command, InvalidArgumentError } from "commander";
import { VERSION } from "../version.js";
import { addConnectionOptions, addServeOptions } from "./options.js";
import { SERVE_ROLE } from "../permissions/inbox.js";
import { COMMAND_BOUNDS, COMMAND_DEFAULTS } from "../defaults.js";
import { LIMITS } from "../schemas/request-schema.js";
// Each command's code is loaded only when that command runs: `serve` starts
// sooner without the query, dump or verify code, and the other way round.

function whole(name: string) {
  return (v: string): string => {
    if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be a whole number`);
    return v;
  };
}

/**
 * A mistake on the command line is one line, with where to read more: the
 * whole help after it would bury the line that says what is wrong.
 */
function oneLineErrors(cmd: Command, name: string): Command {
  return cmd.showHelpAfterError(false).configureOutput({
    outputError: (text, write) => write(`${text.trimEnd()} (see ${name} --help)\n`),
  });
}

export function program(): Command {
  const prog = new Command("mesh-provisioner")
    .description("The provisioning server of a NATS mesh: keeps the registry, projects the node buckets, answers mesh-provisioner.provisioning")
    .version(VERSION)
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
  oneLineErrors(prog, prog.name());

  addServeOptions(addConnectionOptions(prog.command("serve").description("run the service (until SIGTERM or SIGINT)"), SERVE_ROLE))
    .addHelpText(
      "after",
      "\nEach option can be given by its environment variable instead; an option on the command line wins over its variable.\n" +
        "Give secrets as files (--password-file, --token-file, --http-token-file, --creds, --nkey): a value on a command line is visible to every user of the host.",
    )
    .action(async (flags) => (await import("./serve.js")).serveCommand(flags));

  addConnectionOptions(
    prog
      .command("query")
      .description("ask the verb, following next to the end, and print a table (or JSON)")
      .argument("<what>", "registry, needs, applied or collect"),
  )
    .option("--node <node>", "narrow to one node")
    .option("--module <module>", "narrow to one module (needs, applied)")
    .option("--contributor <contributor>", "narrow to one contributor (collect)")
    .option("--collection <name>", "narrow to one collection, by its name (collect)")
    .option("--limit <n>", `entries per page (1 to ${LIMITS.maxLimit})`, whole("--limit"))
    .option("--min-revision <n>", "answer only once the projection reached this revision", whole("--min-revision"))
    .option(
      "--timeout <duration>",
      `how long to wait for each page, such as 2s (a bare number is milliseconds; ${COMMAND_BOUNDS.timeout.min} to ${COMMAND_BOUNDS.timeout.max})`,
      COMMAND_DEFAULTS.timeout,
    )
    .option("--json", "print the merged answer as JSON")
    .option(
      "--scope <scope>",
      "whose grant the user holds, so the verb is asked on the subject it allows: mesh (default), needs (a provider's), node:<N> (node N's)",
    )
    .action(async (what: string, flags) => (await import("./query.js")).queryCommand(what, flags));

  addConnectionOptions(prog.command("dump").description("write one JSON document of what a running instance holds"))
    .option("--out <file>", "write to this file instead of stdout")
    .action(async (flags) => (await import("./dump.js")).dumpCommand(flags));

  addConnectionOptions(prog.command("verify").description("compare a running instance's projections with the buckets (exit 1 on any difference)"))
    .option("--json", "print the differences as JSON")
    .option(
      "--attempts <n>",
      `read and compare again this many times while writes land in between (${COMMAND_BOUNDS.attempts.min} to ${COMMAND_BOUNDS.attempts.max})`,
      COMMAND_DEFAULTS.attempts,
    )
    .action(async (flags) => (await import("./verify.js")).verifyCommand(flags));

  prog
    .command("permissions")
    .description("print the least grant of a role as nats-server configuration JSON")
    .option("--role <role>", "provisioner, node, provider, operator, site (an instance at a site) or leaf (a site's leaf server's user at the hub)")
    .option(
      "--node <node>",
      "the node, for --role node; each node at the site, for --role leaf and --leaf-config (repeat it)",
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option("--js-domain <domain>", "print the JetStream API subjects as the grant's user reaches them through this domain: $JS.<domain>.API")
    .option("--example", "print an example accounts block with one user per role")
    .option("--leaf-config", "print a site's leaf server configuration: its nodes' and its instance's users, and its remote to the hub")
    .option("--hub <url>", "for --leaf-config: the hub's leaf node listener", "nats-leaf://hub.example:7422")
    .option("--site-domain <domain>", "for --leaf-config: the site's own JetStream domain (absent: the site runs no JetStream)")
    .action(async (flags) => (await import("./permissions.js")).permissionsCommand(flags));

  for (const cmd of prog.commands) oneLineErrors(cmd, `${prog.name()} ${cmd.name()}`);
  return prog;
}

await program().parseAsync(process.argv);
