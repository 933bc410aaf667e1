/**
 * Checkpoints in an instance's life (I/O, the composition of this folder):
 * at start, open the checkpoints' bucket and seed each node bucket's
 * projection from its checkpoint where one may be used (its watch starting
 * from the checkpoint's revision + 1 while the rest of it loads), then prove
 * each seed once its projection has caught up (or drop it and read the
 * bucket whole);
 * while the instance holds the seat, write checkpoints on the schedule; at a
 * graceful stop of the holder, write those that are behind.
 */
import type { JetStreamManager, StreamInfo } from "@nats-io/jetstream";
import type { Objm } from "@nats-io/obj";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
import type { Subscription } from "rxjs";
import type { Logger } from "../log.js";
import type { Projection } from "../projections/projection.js";
import { encodeStore } from "../projections/store/checkpoint/encode.js";
import { openCheckpoint } from "../projections/store/checkpoint/decode.js";
import { fellBack, seedFromCheckpoint } from "./loader.js";
import { openCheckpointObjects, type CheckpointObjects } from "./objects.js";
import { proveSeed } from "./prove.js";
import { CheckpointTally } from "./tally.js";
import { CheckpointWriter } from "./writer.js";

export type NodeWhat = "needs" | "applied" | "collect";

export interface CheckpointDeps {
  /** The object stores' manager of the JetStream the buckets are in. */
  readonly objm: Objm;
  readonly jsm: JetStreamManager;
  readonly projections: Readonly<Record<NodeWhat, Projection>>;
  readonly isHolder: () => boolean;
  readonly replicas: number;
  readonly maxBytes: number;
  readonly everyMs: number;
  /** False: the checkpoints' bucket is only opened, never created, and no checkpoint is ever written (`serve --no-seat`). */
  readonly writes?: boolean;
  readonly log: Logger;
  readonly now?: () => number;
}

export interface Checkpoints {
  readonly tally: CheckpointTally;
  /** Settles once every checkpoint has loaded or been refused (the watches may have started before). */
  readonly loaded: Promise<void>;
  /** Start the holder's schedule (once the instance is up). */
  startWriting(): void;
  /** Stop the schedule; `final`: write the checkpoints that are behind first (the holder's graceful stop). */
  stop(final: boolean): Promise<void>;
}

export async function startCheckpoints(deps: CheckpointDeps): Promise<Checkpoints> {
  const { log } = deps;
  const now = deps.now ?? Date.now;
  const tally = new CheckpointTally();
  const streamInfo = (name: string): Promise<StreamInfo> => deps.jsm.streams.info(streamName(BUCKETS[name as NodeWhat]));
  const objects: CheckpointObjects | undefined = await openCheckpointObjects(
    deps.objm,
    { replicas: deps.replicas, maxBytes: deps.maxBytes, create: deps.writes !== false },
    log,
  );
  const names = Object.keys(deps.projections) as NodeWhat[];
  let loaded = Promise.resolve();
  if (objects !== undefined) {
    // Each projection's seed is proven once its watch has caught up; the subscription is made before the watch starts.
    const prove = (name: NodeWhat, p: Projection): Subscription => {
      const sub = p.caughtUp$.subscribe(() => {
        sub.unsubscribe();
        void proveSeed(p, { streamInfo: () => streamInfo(name) })
          .catch((err: unknown) => ({
            reason: "unreadable" as const,
            detail: `the stream's state could not be read to prove the checkpoint: ${(err as Error).message}`,
          }))
          .then((doubt) => {
            if (doubt === undefined) {
              tally.proven(name);
              p.confirmSeed();
              return;
            }
            fellBack(name, doubt, { tally, log });
            p.dropSeed(`the checkpoint was not proven (${doubt.reason})`);
          });
      });
      return sub;
    };
    // Resolved once every projection has begun from its checkpoint's header or will read its bucket whole: the
    // watches start then, and the checkpoints go on loading while their consumers are made and the writes since arrive.
    const loads: Promise<void>[] = [];
    await Promise.all(
      names.map(
        (name) =>
          new Promise<void>((begun) => {
            const p = deps.projections[name];
            const proving = prove(name, p);
            const load = seedFromCheckpoint(p, name, { objects, open: openCheckpoint, streamInfo, tally, log, now }, begun)
              .then(() => undefined)
              .catch((err: unknown) => {
                p.dropSeed("the checkpoint could not be loaded");
                fellBack(name, { reason: "unreadable", detail: (err as Error).message }, { tally, log });
              })
              .finally(() => {
                if (p.seededAt === undefined) proving.unsubscribe();
                begun();
              });
            loads.push(load);
          }),
      ),
    );
    loaded = Promise.all(loads).then(() => undefined);
  }
  const writer =
    objects === undefined || deps.writes === false
      ? undefined
      : new CheckpointWriter({
          objects,
          projections: deps.projections,
          isHolder: deps.isHolder,
          streamInfo,
          encode: encodeStore,
          now,
          log,
          tally,
          everyMs: deps.everyMs,
        });
  return {
    tally,
    loaded,
    startWriting: () => writer?.start(),
    stop: async (final) => writer?.stop(final),
  };
}
