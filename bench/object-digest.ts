/**
 * What the object store's digest costs a checkpoint's read: one object of
 * the 1M needs' checkpoint's size, put once, then read whole with each of
 * @nats-io/obj's SHA-256 backends in turn ("js", its default, and "native",
 * `node:crypto`), alternating. Prints the wall time and this process's CPU of
 * each read.
 *
 *   node dist/bench/object-digest.js [MiB=22] [rounds=3]
 */
import { randomBytes } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import { Objm, setSha256Backend } from "@nats-io/obj";
import { startNatsServer } from "../src/embedded/nats-server.js";
import { connectBench } from "./common.js";

const mib = Number(process.argv[2] ?? 22);
const rounds = Number(process.argv[3] ?? 3);
const server = await startNatsServer();
try {
  const nc = await connectBench(server.url, "bench-object-digest");
  const os = await new Objm(jetstream(nc)).create("bench-object-digest", { max_bytes: (mib + 8) * 1024 * 1024 });
  // Random bytes, as gzip's output is to the store.
  await os.putBlob({ name: "checkpoint" }, randomBytes(mib * 1024 * 1024));
  for (let r = 1; r <= rounds; r++) {
    for (const backend of ["js", "native"] as const) {
      setSha256Backend(backend);
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const got = await os.get("checkpoint");
      if (got === null) throw new Error("the object is gone");
      let bytes = 0;
      for await (const chunk of got.data) bytes += chunk.length;
      const err = await got.error;
      if (err) throw err;
      const cpu = process.cpuUsage(c0);
      console.log(
        `round ${r}, ${backend}: ${bytes} B read in ${(performance.now() - t0).toFixed(0)} ms, CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`,
      );
    }
  }
  await nc.close();
} finally {
  await server.stop();
}
