/** The command line: one sub-command per file, parsed with commander. */
import { Command, InvalidArgumentError } from "commander";
import { VERSION } from "../version.js";
import { addConnectionOptions } from "./options.js";
import { SERVE_ROLE } from "../permissions/inbox.js";
import { COMMAND_DEFAULTS, SERVE_DEFAULTS } from "../defaults.js";
// Each command's code is loaded only when that command runs: `serve` starts
// sooner without the query, dump or verify code, and the other way round.

function whole(name: string) {
  return (v: string): string => {
    if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be a whole number`);
    return v;
  };
}

export function program(): Command {
  const prog = new Command("mesh-provisioner")
    .description("The provisioning server of a NATS mesh: keeps the registry, projects the node buckets, answers mesh-provisioner.provisioning")
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));

  addConnectionOptions(prog.command("serve").description("run the service (until SIGTERM or SIGINT)"), SERVE_ROLE)
    .option("--registry-interval <duration>", "how often the registry is reconciled, such as 30s or 1h", SERVE_DEFAULTS.registryInterval)
    .option("--seat-ttl <duration>", "the seat's lease time", SERVE_DEFAULTS.seatTtl)
    .option("--replicas <n>", "replicas of the buckets it creates", whole("--replicas"), SERVE_DEFAULTS.replicas)
    .option("--max-wait <duration>", "longest wait of a minRevision request before 504", SERVE_DEFAULTS.maxWait)
    .option("--drift-delay <duration>", "how soon a drifted registry is repaired", SERVE_DEFAULTS.driftDelay)
    .option("--http <host:port>", "serve the dashboard, /healthz, /readyz and /metrics there")
    .option("--http-token <token>", "the dashboard's data and events need this bearer token (env MESH_PROVISIONER_HTTP_TOKEN)")
    .option("--max-value-bytes <size>", "the largest value a node may write in the node buckets it creates, such as 64KiB", SERVE_DEFAULTS.maxValueBytes)
    .option("--bucket-max-bytes <size>", "each node bucket's size: a node flooding its keys fills its own bucket, not the store", SERVE_DEFAULTS.bucketMaxBytes)
    .option("--flood-keys <n>", "a node with more keys than this across the node buckets is named as flooding", SERVE_DEFAULTS.floodKeys)
    .option("--flood-bytes <size>", "a node with more bytes than this across the node buckets is named as flooding", SERVE_DEFAULTS.floodBytes)
    .option(
      "--checkpoint-every <duration>",
      "how often the seat's holder writes the checkpoints that are due; 0: never (not at a graceful stop either)",
      SERVE_DEFAULTS.checkpointEvery,
    )
    .option("--checkpoint-max-bytes <size>", "the checkpoints' bucket's size limit", SERVE_DEFAULTS.checkpointMaxBytes)
    .option("--log-level <level>", "fatal, error, warn, info, debug or trace (env LOG_LEVEL)")
    .option(
      "--heap-growing <percent>",
      "how far the JS heap grows between full collections, in percent of what the last left live; 0: V8's own (env MESH_PROVISIONER_HEAP_GROWING)",
      SERVE_DEFAULTS.heapGrowing,
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
    .option("--limit <n>", "entries per page", whole("--limit"))
    .option("--min-revision <n>", "answer only once the projection reached this revision", whole("--min-revision"))
    .option("--timeout <ms>", "how long to wait for each page", whole("--timeout"), COMMAND_DEFAULTS.timeout)
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
    .option("--attempts <n>", "read and compare again this many times while writes land in between", whole("--attempts"), COMMAND_DEFAULTS.attempts)
    .action(async (flags) => (await import("./verify.js")).verifyCommand(flags));

  prog
    .command("permissions")
    .description("print the least grant of a role as nats-server configuration JSON")
    .option("--role <role>", "provisioner, node, provider or operator")
    .option("--node <node>", "the node, for --role node")
    .option("--example", "print an example accounts block with one user per role")
    .action(async (flags) => (await import("./permissions.js")).permissionsCommand(flags));

  return prog;
}

await program().parseAsync(process.argv);
