/**
 * Which consumer a watch asks the server for, and how long it waits for it
 * (pure).
 *
 * - A first snapshot (or a rebuild after the history to resume from is
 *   gone) of a bucket that keeps one message per key delivers *all* the
 *   stream's messages: each is its key's last write, so that is the same set
 *   of entries as "last per subject", and the server creates it without
 *   working out the last message of every subject. A bucket that keeps more
 *   history per key asks for "last per subject".
 * - A resume starts at the sequence after the last one applied.
 * - Creating a consumer makes the server read the stream's state first, so
 *   the wait is sized to the messages the consumer covers. On a single
 *   server, a creation that still times out is asked again under the same
 *   name and configuration, which the server answers with the consumer it
 *   made (never a second one). Not in a cluster: there a creation lost in a
 *   leader election can leave an assignment that never answers, so the
 *   retry asks for a new consumer and the lost one is deleted.
 * - A consumer filtered on a subject makes the server count the messages of
 *   every subject that matches it before it answers (seconds at a million
 *   keys on 2.9, serialised with every other creation on the stream). A
 *   bucket's stream holds the bucket's subjects alone, so a watch asks for no
 *   filter there: the same messages, and an answer at once.
 */
import { nanos } from "@nats-io/nats-core";
import { AckPolicy, DeliverPolicy, type ConsumerConfig } from "@nats-io/jetstream";

export interface StreamState {
  readonly messages: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** The stream's `max_msgs_per_subject`: 1 for a history-1 bucket, -1 or 0 for no limit. */
  readonly perKey: number;
}

export type WatchStart =
  | { readonly kind: "snapshot"; readonly deliver: typeof DeliverPolicy.All | typeof DeliverPolicy.LastPerSubject; readonly rebuild: boolean }
  | { readonly kind: "resume"; readonly startSeq: number };

/** How a watch that has applied up to `from` (0: nothing) goes on over a stream in `state`. */
export function planStart(from: number, state: StreamState): WatchStart {
  const historyGone = from > 0 && from < state.lastSeq && state.firstSeq > from + 1;
  if (from > 0 && !historyGone) return { kind: "resume", startSeq: from + 1 };
  return { kind: "snapshot", deliver: state.perKey === 1 ? DeliverPolicy.All : DeliverPolicy.LastPerSubject, rebuild: historyGone };
}

/** The filter a watch of the keys under `keyPrefix` (`$KV.<bucket>.`) asks for on a stream that stores `streamSubjects`. */
export function watchFilter(keyPrefix: string, streamSubjects: readonly string[] | undefined): string {
  const all = `${keyPrefix}>`;
  return streamSubjects?.length === 1 && streamSubjects[0] === all ? ">" : all;
}

/** The consumer options of a start: where its deliveries begin. */
export function consumerOptions(start: WatchStart): { deliver_policy: DeliverPolicy; opt_start_seq?: number } {
  return start.kind === "resume" ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start.startSeq } : { deliver_policy: start.deliver };
}

/** How long the server keeps a watch's consumer once nobody reads it (its reader is gone: a new one is made). */
export const WATCH_INACTIVE_MS = 5 * 60_000;
/** The consumer's idle heartbeat: the server sends one whenever it has had nothing to deliver for this long. */
export const WATCH_HEARTBEAT_MS = 30_000;

export interface WatchConsumerNames {
  /** The consumer's name. */
  readonly name: string;
  /** Where the server pushes its messages. */
  readonly deliverSubject: string;
  /** Its filter (`watchFilter`). */
  readonly filter: string;
}

/**
 * The whole configuration of a watch's consumer, as the JetStream API takes
 * it: an ordered push consumer's (no acks, one delivery each, flow control
 * and idle heartbeats, one replica), with its state in the server's memory:
 * a file-backed consumer would cost the server a store update per delivery,
 * and a lost consumer is made again from the applied revision anyway.
 */
export function watchConsumerConfig(start: WatchStart, names: WatchConsumerNames): Partial<ConsumerConfig> {
  return {
    name: names.name,
    deliver_subject: names.deliverSubject,
    filter_subject: names.filter,
    ack_policy: AckPolicy.None,
    max_deliver: 1,
    flow_control: true,
    idle_heartbeat: nanos(WATCH_HEARTBEAT_MS),
    inactive_threshold: nanos(WATCH_INACTIVE_MS),
    num_replicas: 1,
    mem_storage: true,
    ...consumerOptions(start),
  };
}

/** The wait added per message the consumer covers (a creation scans the stream's state). */
export const CREATE_PER_MESSAGE_MS = 0.05;
/** The most a creation is waited for before it is asked again. */
export const CREATE_MAX_MS = 120_000;

/**
 * How long to wait for the server to create a consumer that covers
 * `messages` messages: the try's usual wait for a JetStream answer (short
 * while a resume may meet a leader election), plus the time to scan them.
 */
export function creationTimeoutMs(messages: number, baseMs: number): number {
  return Math.min(CREATE_MAX_MS, Math.round(baseMs + Math.max(0, messages) * CREATE_PER_MESSAGE_MS));
}

/** The messages a start's consumer covers: what the server scans to create it, and what it will deliver. */
export function messagesCovered(start: WatchStart, state: StreamState): number {
  return start.kind === "resume" ? Math.max(0, state.lastSeq - start.startSeq + 1) : state.messages;
}

/** Two starts ask the server for the same consumer (so a retry on a single server may reuse the name of one that timed out). */
export function sameStart(a: WatchStart, b: WatchStart): boolean {
  return a.kind === "resume" ? b.kind === "resume" && a.startSeq === b.startSeq : b.kind === "snapshot" && a.deliver === b.deliver;
}
