/**
 * `npm start`: the embedded default. Starts a private nats-server (JetStream,
 * temporary store, free loopback port) as a child, runs the service against it
 * in this process, prints how to query it, and stops both on Ctrl-C.
 */
import { startNatsServer, type RunningNatsServer } from "../embedded/nats-server.js";
import { serve } from "./serve.js";
import { failAndExit } from "./fail.js";

async function main(): Promise<void> {
  let server: RunningNatsServer;
  try {
    server = await startNatsServer({ jetstream: true });
  } catch (err) {
    failAndExit(err);
  }
  const served = await serve({ server: server.url, registryInterval: process.env["REGISTRY_INTERVAL"] });
  await served.provisioner.synced;
  process.stdout.write(
    [
      "",
      `mesh-provisioner is serving on a private nats-server at ${server.url} (store ${server.storeDir}).`,
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
