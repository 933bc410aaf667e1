/**
 * Checkpoints in an instance's life (I/O, the composition of this folder):
 * at start, open the checkpoints' bucket and seed each node bucket's
 * projection from its checkpoint where one may be used, then prove each seed
 * once its projection has caught up (or drop it and read the bucket whole);
 * while the instance holds the seat, write checkpoints on the schedule; at a
 * graceful stop of the holder, write those that are behind.
 */
import type { JetStreamClient, JetStreamManager, StreamInfo } from "@nats-io/jetstream";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
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
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly projections: Readonly<Record<NodeWhat, Projection>>;
  readonly isHolder: () => boolean;
  readonly replicas: number;
  readonly maxBytes: number;
  readonly everyMs: number;
  readonly log: Logger;
  readonly now?: () => number;
}

export interface Checkpoints {
  readonly tally: CheckpointTally;
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
  const objects: CheckpointObjects | undefined = await openCheckpointObjects(deps.js, { replicas: deps.replicas, maxBytes: deps.maxBytes }, log);
  const names = Object.keys(deps.projections) as NodeWhat[];
  if (objects !== undefined) {
    await Promise.all(
      names.map(async (name) => {
        const p = deps.projections[name];
        const refusal = await seedFromCheckpoint(p, name, { objects, open: openCheckpoint, streamInfo, tally, log, now }).catch((err: unknown) => {
          fellBack(name, { reason: "unreadable", detail: (err as Error).message }, { tally, log });
          return undefined;
        });
        if (refusal !== undefined || p.seededAt === undefined) return;
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
      }),
    );
  }
  const writer =
    objects === undefined
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
    startWriting: () => writer?.start(),
    stop: async (final) => writer?.stop(final),
  };
}
