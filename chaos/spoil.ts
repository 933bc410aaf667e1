/**
 * Ways to spoil the needs' checkpoint under a running mesh (I/O), for the
 * chaos run's `spoil-checkpoint` fault: flip a byte in it, cut its end, put
 * back an older copy (stale), or purge the delete markers of the needs bucket
 * (keys deleted since the checkpoint then leave no trace a replay can see).
 * Each says what it did; a spoil with nothing to act on says so.
 */
import { Objm } from "@nats-io/obj";
import { Kvm } from "@nats-io/kv";
import { jetstream } from "@nats-io/jetstream";
import { CHECKPOINT_BUCKET, BUCKETS, streamName } from "mesh-provisioner-client/keys";
import type { Observer } from "./observe.js";

export type Spoil = "corrupt" | "truncate" | "stale" | "purge-delete-markers";

export async function spoilCheckpoint(observer: Observer, how: Spoil, stale: Uint8Array | undefined): Promise<Record<string, unknown>> {
  const os = await new Objm(jetstream(observer.nc)).open(CHECKPOINT_BUCKET);
  const now = await os.getBlob("needs").catch(() => null);
  if (now === null) return { skipped: "no needs checkpoint yet" };
  const copy = Uint8Array.from(now);
  switch (how) {
    case "corrupt": {
      const bad = Uint8Array.from(now);
      const at = Math.floor(bad.length / 2);
      bad[at] = (bad[at] as number) ^ 0x55;
      await os.putBlob({ name: "needs" }, bad);
      return { corrupt: at, bytes: now.length, copy };
    }
    case "truncate":
      await os.putBlob({ name: "needs" }, now.subarray(0, Math.floor(now.length * 0.8)));
      return { truncated: now.length, copy };
    case "stale":
      if (stale === undefined) return { skipped: "no older copy kept yet", copy };
      await os.putBlob({ name: "needs" }, stale);
      return { staleBytes: stale.length };
    case "purge-delete-markers": {
      const kv = await new Kvm(jetstream(observer.nc)).open(BUCKETS.needs);
      let purged = 0;
      for await (const e of await kv.history()) {
        if (e.operation === "PUT" || purged >= 50) continue;
        await observer.jsm.streams.purge(streamName(BUCKETS.needs), { filter: `$KV.${BUCKETS.needs}.${e.key}` });
        purged++;
      }
      return { purgedMarkers: purged, copy };
    }
  }
}
