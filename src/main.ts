/**
 * The composition root (I/O): connection -> buckets -> watches -> projections
 * -> reconcile -> verb. Everything is passed in or built here, so a test can
 * start a whole provisioner on its own connection and stop it again.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { Subscription } from "rxjs";
import type { Logger } from "./log.js";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { BUCKETS, isAnswered, knownKinds, SEAT_BUCKET, streamName, WHATS, type What } from "mesh-provisioner-client/keys";
import { specFor } from "./projections/bucket-specs.js";
import { Projection } from "./projections/projection.js";
import { ensureBuckets, waitForBuckets, type BucketLimits, type BucketPlan } from "./streams/buckets.js";
import { watchBucket } from "./streams/kv-watch.js";
import { jetStreamAccess, type JetStreamAccess } from "./streams/jetstream-access.js";
import { CreationGate } from "./streams/creation-gate.js";
import { CreationTally } from "./streams/creation-tally.js";
import { isPassing, isTimeout, warnsAt } from "./streams/retry.js";
import { Backoff, BACKOFF } from "mesh-provisioner-client/backoff";
import { startSyncProgress } from "./projections/sync-progress.js";
import { MeshOverview } from "./overview/overview.js";
import { ChangeRate } from "./overview/change-rate.js";
import { countChanges } from "./overview/rate-watch.js";
import type { FloodLimits } from "./overview/flood.js";
import { DEFAULT_BUCKET_LIMITS, DEFAULT_CHECKPOINT_LIMITS, DEFAULT_FLOOD_LIMITS, DEFAULT_STALE_AFTER_MS } from "./defaults.js";
import { allSynced } from "./streams/synced.js";
import { kvRegistryWriter } from "./reconcile/apply.js";
import { conditionalRegistryWrites } from "./reconcile/write-mode.js";
import { Reconciler } from "./reconcile/loop.js";
import { desiredRegistry, REGISTRY_TABLE, type RegistryValue } from "./reconcile/registry.js";
import { VerbService } from "./verb/service.js";
import { Seat } from "./seat/lease.js";
import { startFeed } from "./feed/publisher.js";
import { VERSION } from "./version.js";
import { permissionsError } from "./permissions/violation.js";
import type { ProvisionerReader } from "./http/reader.js";
import { CheckpointTally } from "./checkpoints/tally.js";
import { startCheckpoints } from "./checkpoints/lifecycle.js";
import { wrapFailure } from "./failure.js";
import { aPeerAnswers } from "./verb/peer.js";
import { STOP_LIMITS, stopBound, TIMED_OUT, within } from "./stop.js";

export interface ProvisionerOptions {
  readonly registryIntervalMs: number;
  readonly driftDelayMs: number;
  readonly maxWaitMs: number;
  readonly replicas: number;
  readonly seatTtlMs: number;
  /** The compiled table by default; tests may pass another. */
  readonly table?: readonly RegistryValue[];
  /** Prefix for the watches' deliver subjects (narrow grants). */
  readonly inboxPrefix?: string;
  /**
   * How every JetStream request reaches the buckets (the connection's own
   * JetStream, or a domain's: src/streams/jetstream-access.ts); made from the
   * connection and `inboxPrefix` when absent.
   */
  readonly jetstream?: JetStreamAccess;
  /** The node buckets' limits (the largest value, each bucket's size); defaults when absent. */
  readonly bucketLimits?: BucketLimits;
  /** Past these, a node is named as flooding (log, /metrics, the overview). */
  readonly floodLimits?: FloodLimits;
  /** How often a progress line is logged while the projections make their first sync (0: never). */
  readonly progressEveryMs?: number;
  /** Called once per verb request (metrics). */
  readonly observe?: (status: number, what: string, seconds: number) => void;
  /** How often the seat's holder looks at writing checkpoints (0: it never writes any; starts still load them). */
  readonly checkpointEveryMs?: number;
  /** The checkpoints' bucket's size limit. */
  readonly checkpointMaxBytes?: number;
  /**
   * An instance at a site (`serve --no-seat`): it never takes the seat, never
   * creates or updates a bucket (it waits for them), never writes the
   * registry, checkpoints or the feed; it loads checkpoints, watches the
   * buckets and the seat's, and answers the verb.
   */
  readonly noSeat?: boolean;
  /** Past this long without hearing from its bucket's stream, a projection's answers say they may be stale (the defaults' table's when absent). */
  readonly staleAfterMs?: number;
}

/** A running provisioner; the HTTP side and the dump read it as a ProvisionerReader. */
export interface Provisioner extends ProvisionerReader {
  readonly nc: NatsConnection;
  /** How it reaches JetStream (its domain, if any): what else reads the buckets' streams (metrics) goes through it. */
  readonly jetstream: JetStreamAccess;
  readonly jsm: JetStreamManager;
  readonly projections: Readonly<Record<What, Projection>>;
  /** Counts per node of the whole mesh, kept as the projections apply changes (the dashboard's overview). */
  readonly overview: MeshOverview;
  readonly reconciler: Reconciler;
  readonly verb: VerbService;
  readonly seat: Seat;
  /** The consumer creations this instance's watches asked for, by bucket. */
  readonly consumers: CreationTally;
  /** How each projection started (from a checkpoint or whole) and the checkpoints this instance wrote. */
  readonly checkpoints: CheckpointTally;
  /** Resolves once every projection has finished its first sync. */
  readonly synced: Promise<void>;
  /**
   * The graceful stop (src/stop.ts): at once not ready; the verb leaves the
   * queue group answering what it received, beside the seat's handover (the
   * write in flight, the holder's checkpoints, the release); then the
   * watches stop. Each step within its limit. The connection is the caller's.
   */
  stop(): Promise<void>;
}

export const BUCKET_PLANS: readonly BucketPlan[] = [
  { bucket: BUCKETS.registry, refuseRollups: false },
  { bucket: BUCKETS.needs, refuseRollups: true },
  { bucket: BUCKETS.applied, refuseRollups: true },
  { bucket: BUCKETS.collect, refuseRollups: true },
  { bucket: SEAT_BUCKET, refuseRollups: false },
];

/**
 * Run a start-up step until it succeeds. A JetStream that is slow to answer
 * (a consumer being created on a large stream, a leader election, a server
 * still starting) is waited for, however long that takes, the way an
 * informer relists: a person need do nothing about it. What a person must fix
 * (a permission the grant lacks, a bucket that cannot be made) is thrown.
 * Tries are spaced by the retry policy, drawn at random, so instances that
 * failed together (a server restarting) do not try again together.
 */
async function patiently<T>(what: string, step: () => Promise<T>, log: Logger): Promise<T> {
  const since = Date.now();
  const backoff = new Backoff(BACKOFF.startup);
  for (;;) {
    try {
      return await step();
    } catch (err) {
      if (!isPassing(err) || permissionsError(err) !== undefined) throw err;
      // A timeout has waited already: it is asked again soon; anything else passing backs off.
      const wait = isTimeout(err) ? backoff.soon() : backoff.next();
      const attempt = backoff.failures;
      log[warnsAt(attempt) ? "warn" : "debug"](
        { step: what, attempt, waitedMs: Date.now() - since, retryInMs: wait, err: (err as Error).message },
        "JetStream is slow to answer (a large stream's consumer being created, a leader election, or a server starting); trying again",
      );
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/**
 * The first request of the start: a grant that refuses it (its reply inbox
 * under a prefix the grant does not cover, or $JS.API.INFO itself) is
 * reported as the permissions violation it is, naming the subject refused.
 * A JetStream that nothing answers for (no responders: a server without
 * JetStream, or a domain no server of the connection's cluster or its leaf
 * links serves) fails at once, naming the domain and what to check.
 */
async function openJetStream(access: JetStreamAccess, inboxPrefix: string | undefined): Promise<JetStreamManager> {
  try {
    const jsm = await access.manager();
    await jsm.getAccountInfo();
    return jsm;
  } catch (err) {
    throw permissionsError(err, { inboxPrefix }) ?? wrapFailure("CONNECT", access.notAnswering, err);
  }
}

export async function startProvisioner(nc: NatsConnection, opts: ProvisionerOptions, log: Logger): Promise<Provisioner> {
  // During a leader election JetStream's API times out: retry, as for the later start-up steps.
  const access = opts.jetstream ?? jetStreamAccess(nc, { inboxPrefix: opts.inboxPrefix });
  const jsm = await patiently("reach JetStream", () => openJetStream(access, opts.inboxPrefix), log);
  const js = access.client();
  // Options a caller left out take the defaults' table's values, here and nowhere below.
  const bucketLimits = opts.bucketLimits ?? DEFAULT_BUCKET_LIMITS;
  const floodLimits = opts.floodLimits ?? DEFAULT_FLOOD_LIMITS;
  const noSeat = opts.noSeat === true;
  const staleAfterMs = opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  if (noSeat) {
    log.info({ staleAfterMs }, "running without the seat (--no-seat): this instance writes nothing; it reads the buckets and answers the verb");
    await patiently("wait for the buckets", () => waitForBuckets(jsm, BUCKET_PLANS, log), log);
  } else await patiently("create or open the buckets", () => ensureBuckets(jsm, BUCKET_PLANS, opts.replicas, log, bucketLimits), log);

  const table = opts.table ?? REGISTRY_TABLE;
  const desired = desiredRegistry(table);
  const kinds = knownKinds(table);
  const projections = {} as Record<What, Projection>;
  // The mesh overview follows the node buckets' stores as they apply; a kind is answered while the registry holds it.
  // A node past the flood limits is named in the log once when it goes over and once when it is back under.
  const overview = new MeshOverview((kind) => isAnswered(projections.registry.store, kind), Date.now, {
    limits: floodLimits,
    onChange: (c) => {
      if (c.flooding) {
        log.warn(
          { node: c.node, keys: c.keys, bytes: c.bytes, limits: floodLimits },
          "a node is flooding its keys: it holds more keys or bytes than any node should; revoke its grant, or raise --flood-keys / --flood-bytes if it is meant to",
        );
      } else log.info({ node: c.node, keys: c.keys, bytes: c.bytes }, "a node is no longer flooding its keys");
    },
  });
  // Opened before the watches start: behind a large bucket's consumer creation these small requests would wait.
  const kvm = access.kvm();
  const [seatKv, registryKv] = await Promise.all([
    patiently("open the seat's bucket", () => kvm.open(SEAT_BUCKET), log),
    patiently("open the registry bucket", () => kvm.open(BUCKETS.registry), log),
  ]);
  const seat = new Seat({ kv: seatKv, ttlMs: opts.seatTtlMs, log, campaign: !noSeat });
  const subs: Subscription[] = [];
  // The watches take turns to create their consumers (see creation-gate.ts), and every creation is counted.
  const gate = new CreationGate();
  const consumers = new CreationTally();
  for (const what of WHATS) {
    projections[what] = new Projection(specFor(what, kinds), log, what === "registry" ? undefined : overview.observerFor(what), { staleAfterMs });
  }
  // The change rate counts from the process's start: subscribed before any watch begins, so no change applied after a first sync is missed.
  const rate = new ChangeRate();
  subs.push(countChanges(projections, rate));
  // A graceful stop gives the holder's last checkpoints a limited time: past it they are abandoned as a lost seat's are.
  let checkpointsCut = false;
  // The node buckets' projections begin from their checkpoints where one may be used: this resolves once each has its
  // checkpoint's header (or will read its bucket whole), and the checkpoints go on loading while the watches start.
  const checkpoints = await startCheckpoints({
    objm: access.objm(),
    jsm,
    projections: { needs: projections.needs, applied: projections.applied, collect: projections.collect },
    isHolder: () => seat.isHolder && !checkpointsCut,
    writes: !noSeat,
    replicas: opts.replicas,
    maxBytes: opts.checkpointMaxBytes ?? DEFAULT_CHECKPOINT_LIMITS.maxBytes,
    everyMs: opts.checkpointEveryMs ?? DEFAULT_CHECKPOINT_LIMITS.everyMs,
    log,
  });
  for (const what of WHATS) {
    const p = projections[what];
    const deps = { nc, log, inboxPrefix: opts.inboxPrefix, jetstream: access, gate, onCreation: consumers.record };
    subs.push(p.connect(watchBucket(deps, { bucket: BUCKETS[what], fromRevision: () => p.received, restart$: p.restart$ })));
  }
  const progress = startSyncProgress(projections, log, opts.progressEveryMs);
  // The seat, the reconciler and the verb start once the checkpoints have loaded: a load keeps the event loop busy,
  // and a holder whose renewals wait behind it would lose the seat it took.
  await checkpoints.loaded;

  const reconciler = new Reconciler({
    registry: projections.registry,
    writer: kvRegistryWriter(js, BUCKETS.registry, seat.instance, {
      conditional: () => conditionalRegistryWrites(nc.info?.version),
      kv: registryKv,
      publishSubject: access.publishSubject,
    }),
    desired,
    intervalMs: opts.registryIntervalMs,
    driftDelayMs: opts.driftDelayMs,
    log,
    mayWrite: () => !noSeat && seat.mayWrite(),
  });
  reconciler.start();
  // A new holder reconciles at once: its projections are already warm.
  subs.push(
    seat.view$.subscribe((v) => {
      if (v.isHolder && projections.registry.hasSynced) void reconciler.run("seat");
    }),
  );
  const verb = new VerbService({
    nc,
    projections,
    log,
    version: VERSION,
    maxWaitMs: opts.maxWaitMs,
    observe: opts.observe,
    lastSeq: async (bucket) => (await jsm.streams.info(streamName(bucket))).state.last_seq,
    statsData: () => ({
      seat: { holder: seat.holder ?? null, isHolder: seat.isHolder, instance: seat.instance },
      consumers: consumers.snapshot(),
      checkpoints: checkpoints.tally.snapshot(),
    }),
  });
  const synced = new Promise<void>((resolve) => {
    const s = allSynced(WHATS.map((w) => projections[w].synced$)).subscribe((ok) => {
      if (!ok) return;
      log.info(Object.fromEntries(WHATS.map((w) => [w, projections[w].revision])), "all projections synced: answering from them");
      overview.markSynced();
      resolve();
      queueMicrotask(() => s.unsubscribe());
    });
    subs.push(s);
  });
  const joinVerb = (): Promise<void> =>
    verb.join().catch((err: unknown) => {
      throw wrapFailure("CONNECT", "cannot serve the verb mesh-provisioner.provisioning", err);
    });
  try {
    await verb.start();
  } catch (err) {
    throw wrapFailure("CONNECT", "cannot serve the verb mesh-provisioner.provisioning", err);
  }
  // The verb answers (503 while the projections sync) before the seat is watched: that can wait behind the watches.
  // Unless another instance answers already: then this one joins once synced, and a node is never told 503 by it (verb/peer.ts).
  if (await aPeerAnswers(nc)) {
    log.info("another instance answers the verb: this one joins the queue group once its projections have synced");
    void synced.then(joinVerb).catch((err: unknown) => log.error({ err: (err as Error).message }, "the verb could not join its queue group"));
  } else await joinVerb();
  await patiently("watch the seat", () => seat.start(), log);
  subs.push(startFeed({ nc, projections, isHolder: () => !noSeat && seat.isHolder, log }));

  const bound = stopBound(opts.maxWaitMs);
  /** The write in flight settles, the holder's checkpoints are brought up to date, then the seat is released. */
  const handOver = async (): Promise<void> => {
    if ((await within(reconciler.stop(), STOP_LIMITS.writeMs)) === TIMED_OUT) {
      log.warn(
        { waitedMs: STOP_LIMITS.writeMs },
        "the registry write in flight did not settle: the seat is not released under it; a standby takes it after the lease time",
      );
      seat.abandon();
      void checkpoints.stop(false);
      return;
    }
    const cut = setTimeout(() => {
      checkpointsCut = true;
      log.warn({ limitMs: STOP_LIMITS.checkpointsMs }, "the last checkpoints took too long and were abandoned; the previous ones stay whole");
    }, STOP_LIMITS.checkpointsMs);
    try {
      await checkpoints.stop(seat.isHolder);
    } finally {
      clearTimeout(cut);
    }
    await seat.release();
  };
  let stopping: Promise<void> | undefined;
  let isStopping = false;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      isStopping = true;
      progress.stop();
      // Reads need no seat: the verb drains beside the handover, and the projections apply until both are done.
      const [verbDrained] = await Promise.all([within(verb.stop(), bound.verbMs), handOver()]);
      if (verbDrained === TIMED_OUT) log.warn({ waitedMs: bound.verbMs }, "the verb's drain did not finish; requests still waiting go unanswered");
      for (const s of subs) s.unsubscribe();
      for (const w of WHATS) projections[w].stop();
    })());

  let up = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") up = false;
      else if (s.type === "reconnect") up = true;
    }
  })().catch(() => undefined);
  const connected = (): boolean => up && !nc.isClosed();

  checkpoints.startWriting();
  return {
    nc,
    jetstream: access,
    jsm,
    connected,
    stopping: () => isStopping,
    projections,
    overview,
    rate,
    reconciler,
    verb,
    seat,
    consumers,
    checkpoints: checkpoints.tally,
    synced,
    stop,
  };
}

export { ProvisionerError };
