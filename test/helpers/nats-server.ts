/** What tests need to run against real nats-server processes. */
import { startNatsServer, type NatsServerOptions, type RunningNatsServer } from "../../src/embedded/nats-server.js";

export {
  findNatsServer,
  freePort,
  startNatsCluster,
  startNatsServer,
  type NatsServerOptions,
  type RunningCluster,
  type RunningNatsServer,
} from "../../src/embedded/nats-server.js";

/** Run `fn` against a fresh server; the server is stopped (and its store removed) whatever happens. */
export async function withNatsServer<T>(fn: (s: RunningNatsServer) => Promise<T>, opts?: NatsServerOptions): Promise<T> {
  const server = await startNatsServer(opts);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}
