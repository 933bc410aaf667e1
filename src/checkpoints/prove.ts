/**
 * The proof that a projection started from a checkpoint holds what a full
 * read would (I/O: the stream's state; the comparison is `compareCounts`).
 *
 * The bucket keeps one message per key, so its stream holds exactly one
 * message for each key that has an entry, an out-of-shape value or a delete
 * marker. A replay from the checkpoint's revision + 1 shows every message
 * written since, but not a message removed unseen (a purge, `purgeDeletes`,
 * an operator's `nats stream purge`): a key deleted after the checkpoint
 * whose marker was then purged would stay in the projection. Such a key is
 * one the projection holds and the stream does not, so once the projection
 * has applied everything up to the stream's last sequence L, the keys it
 * holds (`heldKeys`, counted at L) equal the stream's message count at L
 * exactly when nothing was removed unseen. The count at L comes from the
 * projection's tally, since it may have gone past L by the time the
 * stream's state is read.
 */
import type { StreamInfo } from "@nats-io/jetstream";
import type { Projection } from "../projections/projection.js";
import type { Refusal } from "./stream-identity.js";

/** Reads of the stream's state tried before a count that stays short is taken as a doubt. */
const ATTEMPTS = 5;
/** How long a read waits for the projection to apply up to the stream's last sequence. */
const CATCH_UP_MS = 10_000;

export type CountVerdict = "equal" | "more" | "fewer";

/**
 * `more`: the projection holds a key the stream has no message for (a
 * removal it did not see; never from writes racing the count). `fewer`: a
 * key written just before L and overwritten after it before the projection
 * read it, which a later count settles.
 */
export function compareCounts(held: number, messages: number): CountVerdict {
  return held === messages ? "equal" : held > messages ? "more" : "fewer";
}

export interface ProveDeps {
  readonly streamInfo: () => Promise<StreamInfo>;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Undefined when the projection's seed is proven, else why it is not. Rejects only when the stream cannot be read. */
export async function proveSeed(p: Projection, deps: ProveDeps): Promise<Refusal | undefined> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let last = "";
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const si = await deps.streamInfo();
    const { last_seq: lastSeq, messages } = si.state;
    if ((si.config.max_msgs_per_subject ?? -1) !== 1) {
      return { reason: "history-kept", detail: "the bucket now keeps more than one message per key" };
    }
    await p.waitForRevision(lastSeq, CATCH_UP_MS).catch(() => undefined);
    const held = p.countAt(lastSeq);
    if (held === undefined) {
      last = `the projection did not reach the stream's last sequence ${lastSeq} in ${CATCH_UP_MS} ms`;
    } else {
      const verdict = compareCounts(held, messages);
      if (verdict === "equal") return undefined;
      last = `at revision ${lastSeq} the projection holds ${held} keys and the stream ${messages} messages`;
      if (verdict === "more") return { reason: "count", detail: `${last}: a key was removed from the stream unseen (a purge since the checkpoint)` };
    }
    await sleep(100 * attempt);
  }
  return { reason: "count", detail: `${last}, after ${ATTEMPTS} counts` };
}
