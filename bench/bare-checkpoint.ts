/**
 * Anchor: the least a process can do to start from the needs checkpoint.
 * `node dist/bench/bare-checkpoint.js <url>`
 *
 * Connects, reads the newest needs checkpoint from the checkpoints' object
 * store (the client's native SHA-256, as the service reads it) and unpacks
 * every byte (gunzip with the service's 1 MiB chunks), keeping nothing: no
 * decode, no store, no watch. Reports one JSON line (spawn-relative times
 * are the driver's: `doneAt` is the wall-clock moment the last byte was
 * unpacked, with the bytes read and unpacked and the process's CPU time),
 * then exits. What a start from a checkpoint cannot do without.
 */
import { createGunzip } from "node:zlib";
import { jetstream } from "@nats-io/jetstream";
import { Objm, setSha256Backend } from "@nats-io/obj";
import { CHECKPOINT_BUCKET } from "mesh-provisioner-client/keys";
import { connectBench, report } from "./common.js";

async function main(): Promise<void> {
  const url = process.argv[2];
  if (!url) throw new Error("usage: bare-checkpoint.js <nats-url>");
  const nc = await connectBench(url, "bench-bare-checkpoint");
  setSha256Backend("native");
  const os = await new Objm(jetstream(nc)).open(CHECKPOINT_BUCKET);
  const got = await os.get("needs");
  if (got === null) throw new Error("there is no needs checkpoint");
  const gz = createGunzip({ chunkSize: 1 << 20 });
  let unpacked = 0;
  const drained = (async () => {
    for await (const c of gz) unpacked += (c as Buffer).length;
  })();
  let read = 0;
  const reader = got.data.getReader();
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    read += next.value.length;
    if (!gz.write(next.value)) await new Promise((r) => gz.once("drain", r));
  }
  gz.end();
  await drained;
  const err = await got.error;
  if (err) throw err;
  const doneAt = Date.now();
  const cpu = process.cpuUsage();
  report({ what: "bare-checkpoint", doneAt, read, unpacked, cpuMs: Math.round((cpu.user + cpu.system) / 1000) });
  await nc.close();
}

main().catch((err: unknown) => {
  report({ what: "bare-checkpoint", error: (err as Error).message ?? String(err) });
  process.exit(1);
});
