/**
 * `npm start`: the embedded default. Starts a private nats-server (JetStream,
 * temporary store, free loopback port) as a child, runs the service against it
 * in this process with the dashboard on a free loopback port, prints where to
 * look and how to query it, and stops both on Ctrl-C. SIGUSR2 writes the
 * instance's own dump, as under `serve`. `npm start -- --demo` also puts a
 * small sample mesh into the node buckets.
 */
import { Command } from "commander";
import { startNatsServer, type RunningNatsServer } from "../embedded/nats-server.js";
import { dumpOnSigusr2, serve } from "./serve.js";
import { failAndExit } from "./fail.js";

function parseArgs(argv: readonly string[]): { demo: boolean } {
  const opts = new Command("npm start")
    .usage("[-- --demo]")
    .description("run the service on a private nats-server it starts itself, with the dashboard on a free loopback port")
    .option("--demo", "fill the private server with a small sample mesh, so every part of the dashboard has something to show")
    .showHelpAfterError()
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
    .parse(argv)
    .opts<{ demo?: boolean }>();
  return { demo: opts.demo === true };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv);
  let server: RunningNatsServer;
  try {
    server = await startNatsServer({ jetstream: true });
  } catch (err) {
    failAndExit(err);
  }
  const served = await serve({ server: server.url, http: "127.0.0.1:0", registryInterval: process.env["REGISTRY_INTERVAL"] });
  dumpOnSigusr2(served);
  await served.provisioner.synced;
  let demo: string[] = [];
  if (args.demo) {
    const { DEMO_MESH, seedDemoMesh } = await import("./demo.js");
    try {
      await seedDemoMesh(served.provisioner.nc, served.log);
    } catch (err) {
      failAndExit(err, served.log);
    }
    const nodes = new Set([DEMO_MESH.needs, DEMO_MESH.applied, DEMO_MESH.collect].flatMap((m) => Object.keys(m).map((k) => k.split(".")[0])));
    demo = [
      `The demo mesh is loaded: ${nodes.size} nodes with needs answered and unanswered, modules applied and not, two collections and a key out of shape.`,
    ];
  }
  process.stdout.write(
    [
      "",
      `mesh-provisioner is serving on a private nats-server at ${server.url} (store ${server.storeDir}).`,
      `The dashboard: ${served.http?.url}/`,
      ...demo,
      "In another terminal, ask it:",
      `  NATS_URL=${server.url} bin/mesh-provisioner query registry`,
      `  NATS_URL=${server.url} bin/mesh-provisioner query needs --json`,
      "Press Ctrl-C to stop the service and the server.",
      "",
    ].join("\n"),
  );
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => {
      void (async () => {
        await served.shutdown(sig).catch(() => undefined);
        await server.stop().catch(() => undefined);
        process.exit(0);
      })();
    });
  }
}

await main();
