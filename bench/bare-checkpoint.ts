/**
 * Anchor: the least a process can do to start from the needs checkpoint.
 * `node dist/bench/bare-checkpoint.js <url>`
 *
 * Connects, reads the newest needs checkpoint and unpacks every byte with
 * the service's own code (`openCheckpointObjects`, `unpacked`: the object
 * store's chunks, their digest, gunzip as they arrive), keeping nothing: no
 * decode, no store, no watch. Reports one JSON line (spawn-relative times
 * are the driver's: `doneAt` is the wall-clock moment the last byte was
 * unpacked, with the bytes read and unpacked and the process's CPU time),
 * then exits. What a start from a checkpoint cannot do without.
 */
import { jetStreamAccess } from "../src/streams/jetstream-access.js";
import { openCheckpointObjects } from "../src/checkpoints/objects.js";
import { unpacked } from "../src/checkpoints/loader.js";
import { createLogger } from "../src/log.js";
import { DEFAULT_CHECKPOINT_LIMITS } from "../src/defaults.js";
import { connectBench, report } from "./common.js";

async function main(): Promise<void> {
  const url = process.argv[2];
  if (!url) throw new Error("usage: bare-checkpoint.js <nats-url>");
  const nc = await connectBench(url, "bench-bare-checkpoint");
  const objects = await openCheckpointObjects(
    jetStreamAccess(nc).objm(),
    { replicas: 1, maxBytes: DEFAULT_CHECKPOINT_LIMITS.maxBytes },
    createLogger({ level: "warn" }),
  );
  const stored = await objects?.read("needs");
  if (stored === undefined) throw new Error("there is no needs checkpoint");
  let unpackedBytes = 0;
  for await (const c of unpacked(stored.chunks, new AbortController().signal)) unpackedBytes += c.length;
  const doneAt = Date.now();
  const cpu = process.cpuUsage();
  report({ what: "bare-checkpoint", doneAt, read: stored.size, unpacked: unpackedBytes, cpuMs: Math.round((cpu.user + cpu.system) / 1000) });
  await nc.close();
}

main().catch((err: unknown) => {
  report({ what: "bare-checkpoint", error: (err as Error).message ?? String(err) });
  process.exit(1);
});
