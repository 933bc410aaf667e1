/**
 * What tells one stream from another, and a checkpoint that may be used from
 * one that may not (pure).
 *
 * A checkpoint names the stream it was taken from: its creation time (a
 * stream deleted and made again under the same name has another) and the
 * settings under which the server removes messages by itself (age, counts,
 * per-message TTLs, the history kept per key, roll-ups). A start uses a
 * checkpoint only when the stream is still that stream, under those
 * settings, and still holds what a replay from the checkpoint's revision + 1
 * needs; everything else about a removal (a purge) is the count check's
 * (`count-check.ts`).
 */
import type { StreamInfo } from "@nats-io/jetstream";

export interface StreamIdentity {
  /** The stream's creation time, as the server reports it. */
  readonly created: string;
  /** The settings that decide which messages the server keeps, as text (compared whole). */
  readonly retention: string;
}

/** The settings under which messages leave a stream without a consumer seeing them go. */
function retentionOf(si: StreamInfo): string {
  const c = si.config as StreamInfo["config"] & { allow_msg_ttl?: boolean; subject_delete_marker_ttl?: number };
  return JSON.stringify({
    subjects: c.subjects ?? [],
    retention: c.retention,
    discard: c.discard,
    max_age: c.max_age ?? 0,
    max_msgs: c.max_msgs ?? -1,
    max_msgs_per_subject: c.max_msgs_per_subject ?? -1,
    allow_rollup_hdrs: c.allow_rollup_hdrs ?? false,
    deny_delete: c.deny_delete ?? false,
    allow_msg_ttl: c.allow_msg_ttl ?? false,
    subject_delete_marker_ttl: c.subject_delete_marker_ttl ?? 0,
  });
}

export function streamIdentity(si: StreamInfo): StreamIdentity {
  return { created: si.created, retention: retentionOf(si) };
}

/** The identity a checkpoint recorded, or undefined when it records none. */
export function asStreamIdentity(mark: Readonly<Record<string, unknown>>): StreamIdentity | undefined {
  const { created, retention } = mark;
  return typeof created === "string" && typeof retention === "string" ? { created, retention } : undefined;
}

/** Why a checkpoint may not be used (a reason of `FALLBACK_REASONS`), or undefined when it may. */
export interface Refusal {
  readonly reason: FallbackReason;
  readonly detail: string;
}

/**
 * Why a start reads the whole bucket instead of a checkpoint: every value is
 * a label of `mesh_provisioner_checkpoint_fallbacks_total`.
 */
export const FALLBACK_REASONS = [
  "missing",
  "unreadable",
  "corrupt",
  "format-version",
  "foreign",
  "recreated",
  "settings",
  "ahead",
  "history-gone",
  "history-kept",
  "count",
] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

/**
 * Whether a checkpoint of `revision` taken from a stream of identity
 * `recorded` may seed a projection of the stream as `si` describes it now.
 */
export function refuseCheckpoint(recorded: StreamIdentity, revision: number, si: StreamInfo): Refusal | undefined {
  const now = streamIdentity(si);
  if (now.created !== recorded.created) {
    return { reason: "recreated", detail: `the stream was created at ${now.created}, the checkpoint's at ${recorded.created}: it was deleted and made again` };
  }
  if (now.retention !== recorded.retention) {
    return { reason: "settings", detail: `the stream's retention settings changed since the checkpoint (${recorded.retention} -> ${now.retention})` };
  }
  if ((si.config.max_msgs_per_subject ?? -1) !== 1) {
    return { reason: "history-kept", detail: "the bucket keeps more than one message per key, so a count cannot prove that no delete was purged" };
  }
  const { first_seq: firstSeq, last_seq: lastSeq } = si.state;
  if (revision > lastSeq) return { reason: "ahead", detail: `the checkpoint is at revision ${revision}, past the stream's last sequence ${lastSeq}` };
  if (revision < lastSeq && firstSeq > revision + 1) {
    return {
      reason: "history-gone",
      detail: `the stream starts at ${firstSeq}: the writes after the checkpoint's revision ${revision} are no longer all there to replay`,
    };
  }
  return undefined;
}
