/**
 * `npm start`: the embedded default. Starts a private nats-server (JetStream,
 * temporary store, free loopback port) as a child, runs the service against it
 * in this process with the dashboard on a free loopback port, prints where to
 * look and how to query it, and stops both on SIGINT (Ctrl-C) or SIGTERM: the
 * service's graceful stop, then the server's, its store removed, exit 0.
 * SIGUSR2 writes the instance's own dump, as under `serve`. `npm start --
 * --demo` also puts a small sample mesh into the node buckets.
 *
 * The `start` script execs this process (`exec node …`): npm forwards SIGINT
 * and SIGTERM to its own child alone, and a shell in between would not pass
 * them on. This process also stops when the one that started it goes away
 * (npm killed with SIGKILL), and a watchdog stops the server and removes its
 * store if this process is killed (src/embedded/watchdog.ts).
 */
import { Command } from "commander";
import { startNatsServer, STOP_BOUND_MS as SERVER_STOP_MS, type RunningNatsServer } from "../embedded/nats-server.js";
import { dumpOnSigusr2, serve, stopThenExit, type Served } from "./serve.js";
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

/** How often the parent's presence is looked at. */
const PARENT_CHECK_MS = 1000;

async function main(): Promise<void> {
  const args = parseArgs(process.argv);
  let server: RunningNatsServer | undefined;
  let served: Served | undefined;
  let signalled: string | undefined;
  // Once only: a terminal's Ctrl-C reaches npm and this process both, and npm forwards it here again.
  const stop = (reason: string): void => {
    if (signalled !== undefined) return;
    signalled = reason;
    if (served !== undefined) stopThenExit(served, reason, () => server!.stop(), SERVER_STOP_MS);
  };
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => stop(sig));
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop("the process that started it exited");
  }, PARENT_CHECK_MS).unref();
  /** A signal during start-up: stop what is up so far. */
  const stoppedEarly = async (): Promise<boolean> => {
    if (signalled === undefined) return false;
    if (served !== undefined) stopThenExit(served, `${signalled} during start-up`, () => server!.stop(), SERVER_STOP_MS);
    else {
      await server?.stop();
      process.exit(0);
    }
    return true;
  };

  try {
    server = await startNatsServer({ jetstream: true, stopWithHost: true });
  } catch (err) {
    failAndExit(err);
  }
  if (await stoppedEarly()) return;
  // Every other setting comes from its MESH_PROVISIONER_ variable, as under `serve`.
  served = await serve({ server: server.url, http: "127.0.0.1:0" });
  if (await stoppedEarly()) return;
  dumpOnSigusr2(served);
  await served.provisioner.synced;
  if (signalled !== undefined) return;
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
}

await main();
