/**
 * One KV bucket as an Observable (I/O): the snapshot (last value per key),
 * then every update, as raw watch entries, with a `synced` event once the
 * snapshot has been delivered. This is the informer's reflector.
 *
 * It is built on an ordered push consumer of the bucket's stream, whose
 * messages `delivery.ts` reads, rather than on `kv.watch()`, because the
 * service must know exactly when the snapshot ends (an empty bucket gives
 * `kv.watch()` no signal at all) and must resume from the revision it last
 * applied:
 * - the snapshot ends when the consumer's pending count reaches zero;
 * - when the consumer ends, or the connection comes back after a drop, a new
 *   consumer starts at `fromRevision() + 1`, so no change is ever skipped
 *   (repeats are possible; the store ignores revisions it already applied);
 * - a watch that dies without a disconnect (its consumer deleted, heartbeats
 *   missed, or simply no progress while the stream is ahead of what was
 *   applied, checked every second) is restarted the same way;
 * - every sign that the stream is reachable (a message, an idle heartbeat, a
 *   read of its state: at start, at each resume, by the stall check every
 *   second) is told, as `heard` when it carries nothing else, so the
 *   projection knows how long it has heard nothing (its staleness);
 * - a stream whose last sequence is ahead of what was applied while it holds
 *   no message after it (the last messages were deleted, purged or expired)
 *   is at its end: the projection is told it has reached that sequence
 *   (`stream-tail.ts` asks the stream's leader).
 *
 * Which consumer a start asks for, and how long its creation is waited for,
 * is `consumer-plan.ts`; an instance's watches take turns to create their
 * snapshots' consumers (`creation-gate.ts`). A creation that times out on a
 * single server is asked again under the same name, so the server, which
 * goes on making the first, answers with it and never makes a second.
 * Tries are timed by `retry.ts` (a resume's tries wait briefly for each
 * answer) and spaced by the retry policy (`src/backoff/`), so a resume
 * during a stream leader election tries again within seconds.
 */
import { Observable } from "rxjs";
import { randomBytes } from "node:crypto";
import { createInbox, millis, type NatsConnection } from "@nats-io/nats-core";
import { streamName } from "mesh-provisioner-client/keys";
import type { Logger } from "../log.js";
import { attemptTimeoutMs, isTimeout, warnsAt, RESUME_TIMEOUT_MS } from "./retry.js";
import { Backoff, BACKOFF } from "mesh-provisioner-client/backoff";
import {
  creationTimeoutMs,
  messagesCovered,
  planStart,
  sameStart,
  watchConsumerConfig,
  watchFilter,
  type StreamState,
  type WatchStart,
} from "./consumer-plan.js";
import { CreationGate } from "./creation-gate.js";
import { deliver, type Delivery, type RawEntry } from "./delivery.js";
import { firstSeqFrom } from "./stream-tail.js";
import { jetStreamAccess, type JetStreamAccess } from "./jetstream-access.js";

export type { RawEntry } from "./delivery.js";

export type WatchEvent =
  | { readonly type: "entry"; readonly entry: RawEntry }
  /** The stream was reachable just now (an idle heartbeat, a read of its state), with nothing else to tell. */
  | { readonly type: "heard" }
  /** The new consumer has `count` messages to deliver before it has caught up (a first snapshot: one per key). */
  | { readonly type: "pending"; readonly count: number }
  /** Everything up to `lastSeq` of the stream has been delivered. */
  | { readonly type: "synced"; readonly lastSeq: number }
  /**
   * After a sync: the stream holds no message after the last one delivered,
   * and its last sequence is `lastSeq` (the messages after the last one
   * delivered were deleted, purged or expired): the projection is at `lastSeq`.
   */
  | { readonly type: "reached"; readonly lastSeq: number }
  /** The watch is being re-established; the data may have a gap until the next `synced`. */
  | { readonly type: "resuming"; readonly reason: string; readonly fromRevision: number }
  /**
   * The history needed to resume is gone (the stream's first sequence is past
   * the last applied revision + 1): a full snapshot follows, to be built aside
   * and swapped in whole at the next `synced`.
   */
  | { readonly type: "rebuilding"; readonly fromRevision: number; readonly firstSeq: number };

export interface WatchDeps {
  readonly nc: NatsConnection;
  readonly log: Logger;
  /** The prefix of the watch's delivery inboxes: the connection's own (a user confined to its own inboxes needs it); `_INBOX` if not given. */
  readonly inboxPrefix?: string;
  /** The JetStream the bucket is in (its domain, if any): the process's one access; the connection's own JetStream when absent. */
  readonly jetstream?: JetStreamAccess;
  /** The watches of one instance share a gate, so they create their consumers one at a time (a watch alone gets its own). */
  readonly gate?: CreationGate;
  /** Told of every consumer creation asked for, and how it ended (the instance's tally: /metrics, $SRV.STATS). */
  readonly onCreation?: (event: CreationEvent) => void;
}

/** One request to create a watch's consumer. */
export interface CreationEvent {
  readonly bucket: string;
  readonly outcome: "created" | "timed-out" | "failed";
  /** This request asked again for a consumer whose creation had timed out (same name and configuration). */
  readonly retry: boolean;
  readonly ms: number;
  /** The messages the consumer covers. */
  readonly messages: number;
  readonly deliver: "all" | "last_per_subject" | "start_sequence";
}

export interface WatchOptions {
  readonly bucket: string;
  /** The last revision the consumer of this stream delivered (0 for none): resume after it; the stall check measures progress by it. */
  readonly fromRevision: () => number;
  /** The ceiling of the wait before re-creating a consumer that failed (BACKOFF.watch's base by default; doubles per fast failure up to its cap). */
  readonly retryMs?: number;
  /** How often to compare the stream's last sequence with what was applied (0 turns the check off). */
  readonly stallCheckMs?: number;
  /** Each value starts the watch again from `fromRevision()` (a projection that dropped what it held asks so), the value saying why. */
  readonly restart$?: Observable<string>;
}

/**
 * A new name prefix for a watch's consumer (named `<prefix>_1`). The name is in
 * the reply subject of every message the consumer delivers, which the client
 * reads byte by byte: it is kept short, 48 random bits after `mp_`.
 */
/** One object for every `heard`: told every second, it allocates nothing. */
const HEARD: WatchEvent = Object.freeze({ type: "heard" });

function consumerNamePrefix(): string {
  return `mp_${randomBytes(6).toString("base64url")}`;
}

export function watchBucket(deps: WatchDeps, opts: WatchOptions): Observable<WatchEvent> {
  return new Observable<WatchEvent>((subscriber) => {
    const { nc, log } = deps;
    const access = deps.jetstream ?? jetStreamAccess(nc, { inboxPrefix: deps.inboxPrefix });
    const probe = access.manager({ timeout: RESUME_TIMEOUT_MS, checkAPI: false });
    const stream = streamName(opts.bucket);
    const prefix = `$KV.${opts.bucket}.`;
    const baseRetry = opts.retryMs ?? BACKOFF.watch.baseMs;
    const backoff = new Backoff({ ...BACKOFF.watch, baseMs: baseRetry });
    const gate = deps.gate ?? new CreationGate();
    // Deliveries come under the caller's inbox prefix (the connection's), as nats.js's own watches do.
    const deliveryPrefix = deps.inboxPrefix;
    let stopped = false;
    let current: Delivery | undefined;
    let generation = 0;

    /** A creation that timed out: asked again under the same name while the start it was for is still wanted. */
    let unanswered: { start: WatchStart; namePrefix: string; deliverPrefix: string; reusable: boolean } | undefined;

    const start = async (reason: string): Promise<void> => {
      const gen = ++generation;
      const from = opts.fromRevision();
      if (reason !== "start") subscriber.next({ type: "resuming", reason, fromRevision: from });
      const old = current;
      current = undefined;
      old?.stop();
      const jsTimeout = attemptTimeoutMs({ reason, failures: backoff.failures });
      const jsm = access.manager({ timeout: jsTimeout, checkAPI: false });
      let step = "read the stream's state";
      let leave: (() => void) | undefined;
      try {
        const si = await (await jsm).streams.info(stream);
        if (gen === generation) subscriber.next(HEARD);
        const state: StreamState = {
          messages: si.state.messages,
          firstSeq: si.state.first_seq,
          lastSeq: si.state.last_seq,
          perKey: si.config.max_msgs_per_subject ?? -1,
        };
        const lastSeq = state.lastSeq;
        const plan = planStart(from, state);
        const covered = messagesCovered(plan, state);
        // A snapshot's consumer is the expensive kind (see creation-gate.ts); a resume covers only what was missed.
        if (plan.kind === "snapshot") {
          step = "wait for this instance's other watches to create their consumers";
          leave = await gate.enter(covered);
          if (stopped || gen !== generation) {
            leave();
            return;
          }
        }
        if (plan.kind === "snapshot" && plan.rebuild) subscriber.next({ type: "rebuilding", fromRevision: from, firstSeq: state.firstSeq });
        step = "create the watch's consumer";
        const retry = unanswered !== undefined && unanswered.reusable && sameStart(unanswered.start, plan);
        if (unanswered !== undefined && !retry) abandon(unanswered.namePrefix);
        // A clustered stream's info names its cluster; a single server's may still name the stream's leader.
        const clustered = Boolean(si.cluster?.name);
        const names = retry ? unanswered! : { start: plan, namePrefix: consumerNamePrefix(), deliverPrefix: createInbox(deliveryPrefix), reusable: !clustered };
        unanswered = names;
        // A resume keeps the retry's short timeouts (during a leader election every try costs its whole timeout);
        // a snapshot's creation scans the stream first.
        const timeout = plan.kind === "snapshot" ? creationTimeoutMs(covered, jsTimeout) : jsTimeout;
        const t0 = Date.now();
        const note = (outcome: CreationEvent["outcome"]): void =>
          deps.onCreation?.({
            bucket: opts.bucket,
            outcome,
            retry,
            ms: Date.now() - t0,
            messages: covered,
            deliver: plan.kind === "resume" ? "start_sequence" : plan.deliver,
          });
        const name = `${names.namePrefix}_1`;
        let info;
        try {
          const config = watchConsumerConfig(plan, { name, deliverSubject: `${names.deliverPrefix}.1`, filter: watchFilter(prefix, si.config.subjects) });
          info = await (await access.manager({ timeout, checkAPI: false })).consumers.add(stream, config);
        } catch (err) {
          note(isTimeout(err) ? "timed-out" : "failed");
          if (!isTimeout(err)) unanswered = undefined;
          throw err;
        }
        unanswered = undefined;
        note("created");
        leave?.();
        if (stopped || gen !== generation) {
          await jsm.then((m) => m.consumers.delete(stream, name)).catch(() => undefined);
          return;
        }
        const pending = info.num_pending;
        let synced = false;
        // The revision a "synced" carries is one the projection has applied, never a later one it was only told of:
        // the projection takes it as its revision and ignores anything at or below it from then on, so a consumer that
        // says "nothing pending" from a lagging view of the stream must not move it past writes it has not delivered.
        const markSynced = (upTo: number): void => {
          if (synced || gen !== generation) return;
          synced = true;
          backoff.reset();
          subscriber.next({ type: "synced", lastSeq: upTo });
        };
        caughtUp = markSynced;
        reached = (upTo: number): void => {
          if (gen !== generation) return;
          if (!synced) markSynced(upTo);
          else subscriber.next({ type: "reached", lastSeq: upTo });
        };
        // Nothing to deliver: the projection is at `from`, or, for a stream that holds no message at all, at its end.
        if (pending === 0) markSynced(state.messages === 0 ? lastSeq : Math.min(lastSeq, from));
        else subscriber.next({ type: "pending", count: pending });
        step = "start consuming";
        current = deliver(
          nc,
          { subject: info.config.deliver_subject as string, keyPrefix: prefix, heartbeatMs: millis(info.config.idle_heartbeat ?? 0) },
          {
            entry: (entry: RawEntry, left: number) => {
              if (gen !== generation) return;
              try {
                subscriber.next({ type: "entry", entry });
                if (!synced && left === 0) markSynced(entry.revision);
              } catch (err) {
                // Never let an exception escape a subscription callback: it would stop the read loop.
                log.error({ err, bucket: opts.bucket, key: entry.key }, "a watch entry could not be applied; it is skipped");
              }
            },
            ended: (why: string) => onEnded(gen, why),
            heartbeat: () => {
              if (gen === generation) subscriber.next(HEARD);
            },
          },
        );
      } catch (err) {
        leave?.();
        if (stopped || gen !== generation) return;
        const wait = isTimeout(err) ? backoff.soon() : backoff.next();
        const failures = backoff.failures;
        log[warnsAt(failures) ? "warn" : "debug"](
          {
            bucket: opts.bucket,
            step,
            err: (err as Error).message,
            failures,
            retryInMs: wait,
            ...(unanswered?.reusable
              ? { consumer: `${unanswered.namePrefix}_1`, next: "ask again for the same consumer (the server answers with it once made)" }
              : {}),
          },
          "cannot watch the bucket yet; retrying",
        );
        setTimeout(() => {
          if (!stopped && gen === generation) void start(`retry after: ${(err as Error).message}`);
        }, wait).unref();
      }
    };

    /** A consumer asked for and then given up on (the start it was for is no longer wanted): delete it if it was made. */
    const abandon = (namePrefix: string): void => {
      unanswered = undefined;
      void access
        .manager({ timeout: RESUME_TIMEOUT_MS, checkAPI: false })
        .then((m) => m.consumers.delete(stream, `${namePrefix}_1`))
        .catch(() => undefined);
    };

    const onEnded = (gen: number, why: string, wait = baseRetry): void => {
      if (stopped || gen !== generation || nc.isClosed()) return;
      log.warn({ bucket: opts.bucket, why }, "the bucket's watch ended; resuming from the last applied revision");
      setTimeout(() => {
        if (!stopped && gen === generation) void start(why);
      }, wait).unref();
    };

    // A watch can stall without any signal: if the stream is ahead of what was
    // applied and nothing was applied since the last check, start again.
    let behind: { applied: number; lastSeq: number } | undefined;
    /** The current consumer's "synced" mark, for the stall check to set when it finds the projection at the stream's end. */
    let caughtUp: ((upTo: number) => void) | undefined;
    /** The current consumer's mark of a stream end past the last message applied (none holds a message after it). */
    let reached: ((upTo: number) => void) | undefined;
    let checking = false;
    const checkStall = async (): Promise<void> => {
      if (stopped || checking || current === undefined || nc.isClosed()) return;
      const gen = generation;
      checking = true;
      const lastSeq = await probe
        .then((m) => m.streams.info(stream))
        .then(
          (si) => si.state.last_seq,
          () => undefined,
        );
      checking = false;
      if (lastSeq === undefined || stopped) return;
      subscriber.next(HEARD);
      const applied = opts.fromRevision();
      if (lastSeq <= applied) {
        behind = undefined;
        // Under a steady stream of writes no message may ever arrive with nothing pending behind it: the projection
        // is at the stream's end all the same, and says so here.
        caughtUp?.(lastSeq);
      } else if (behind === undefined || behind.applied !== applied) behind = { applied, lastSeq };
      else {
        behind = undefined;
        // Nothing applied since the last check, the stream's last sequence ahead: either every message after
        // `applied` is gone (deleted, purged, expired), and the projection is at the stream's end, or the watch stalled.
        const next = await firstSeqFrom(nc, stream, applied + 1, `${prefix}>`, RESUME_TIMEOUT_MS, access.apiPrefix).catch(() => -1);
        if (stopped || gen !== generation) return;
        if (next === undefined) reached?.(lastSeq);
        else onEnded(gen, `the watch stalled: the stream is at ${lastSeq}, the projection at ${applied}`, 0);
      }
    };
    const stallTimer = (opts.stallCheckMs ?? 1000) > 0 ? setInterval(() => void checkStall().catch(() => undefined), opts.stallCheckMs ?? 1000) : undefined;
    stallTimer?.unref();

    // When the connection comes back, the server may have lost our consumer
    // (or we may have missed its messages): start a fresh one from where we are.
    // Once stopped, the loop leaves at the connection's next status event (its
    // pings among them), which ends the iterator.
    void (async () => {
      for await (const s of nc.status()) {
        if (stopped) break;
        if (s.type === "reconnect") void start("the connection came back");
      }
    })().catch(() => undefined);

    const restarts = opts.restart$?.subscribe((why) => {
      if (!stopped) void start(why);
    });

    void start("start");

    return () => {
      stopped = true;
      restarts?.unsubscribe();
      generation++;
      clearInterval(stallTimer);
      current?.stop();
    };
  });
}
