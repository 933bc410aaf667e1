/**
 * The composition root (I/O): connection -> buckets -> watches -> projections
 * -> reconcile -> verb. Everything is passed in or built here, so a test can
 * start a whole provisioner on its own connection and stop it again.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { Subscription } from "rxjs";
import type { Logger } from "./log.js";
import { ProvisionerError, wrapError } from "./errors.js";
import { WHATS, type What } from "./keys/mod.js";
import { BUCKETS, SEAT_BUCKET, specFor } from "./projections/buckets.js";
import { Projection } from "./projections/projection.js";
import { ensureBuckets, type BucketLimits, type BucketPlan } from "./streams/buckets.js";
import { watchBucket } from "./streams/kv-watch.js";
import { MeshOverview } from "./projections/overview.js";
import { DEFAULT_FLOOD_LIMITS, type FloodLimits } from "./projections/flood.js";
import { allSynced } from "./streams/synced.js";
import { kvRegistryWriter } from "./reconcile/apply.js";
import { Reconciler } from "./reconcile/loop.js";
import { desiredRegistry, REGISTRY_TABLE, type RegistryValue } from "./reconcile/registry.js";
import { VerbService } from "./verb/service.js";
import { Seat } from "./seat/lease.js";
import { startFeed } from "./feed/publisher.js";
import { VERSION } from "./version.js";
import { permissionsError } from "./permissions/violation.js";

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
  /** The node buckets' limits (the largest value, each bucket's size); defaults when absent. */
  readonly bucketLimits?: BucketLimits;
  /** Past these, a node is named as flooding (log, /metrics, the overview). */
  readonly floodLimits?: FloodLimits;
  /** Called once per verb request (metrics). */
  readonly observe?: (status: number, what: string, seconds: number) => void;
}

export interface Provisioner {
  readonly nc: NatsConnection;
  readonly jsm: JetStreamManager;
  /** True while the connection to the bus is up. */
  readonly connected: () => boolean;
  readonly projections: Readonly<Record<What, Projection>>;
  /** Counts per node of the whole mesh, kept as the projections apply changes (the dashboard's overview). */
  readonly overview: MeshOverview;
  readonly reconciler: Reconciler;
  readonly verb: VerbService;
  readonly seat: Seat;
  /** Resolves once every projection has finished its first sync. */
  readonly synced: Promise<void>;
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
 * How long start-up waits for a busy JetStream API. nats-server 2.9 answers
 * the API one request at a time and a consumer on a large stream takes
 * seconds to create (it scans the stream: ~2.8 s at 1M keys), so at start the
 * requests queued behind the needs watch's consumer can pass the client's
 * 5 s timeout: the service gave up starting ("timeout") against a server that
 * was only busy. Start-up steps are retried on a timeout until this much time
 * has passed; writes (the seat, the registry) keep the client's 5 s, since a
 * write that waits long is worse than one retried.
 */
export const START_PATIENCE_MS = 60_000;

/** Run a start-up step, again after a JetStream timeout, until START_PATIENCE_MS. */
async function patiently<T>(what: string, step: () => Promise<T>, log: Logger): Promise<T> {
  const until = Date.now() + START_PATIENCE_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      const timedOut = /timeout/i.test(String((err as Error)?.message ?? err));
      if (!timedOut || Date.now() >= until) throw err;
      log.warn({ step: what, attempt }, "JetStream is slow to answer (a large stream's consumer being created, or a leader election); retrying");
    }
  }
}

/**
 * The first request of the start: a grant that refuses it (its reply inbox
 * under a prefix the grant does not cover, or $JS.API.INFO itself) is
 * reported as the permissions violation it is, naming the subject refused.
 */
async function openJetStream(nc: NatsConnection, inboxPrefix: string | undefined): Promise<JetStreamManager> {
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.getAccountInfo();
    return jsm;
  } catch (err) {
    throw (
      permissionsError(err, { inboxPrefix }) ??
      wrapError("CONNECT", "JetStream is not available on this connection (start nats-server with -js, and check the account)", err)
    );
  }
}

export async function startProvisioner(nc: NatsConnection, opts: ProvisionerOptions, log: Logger): Promise<Provisioner> {
  // During a leader election JetStream's API times out: retry, as for the later start-up steps.
  const jsm = await patiently("reach JetStream", () => openJetStream(nc, opts.inboxPrefix), log);
  const js = jetstream(nc, opts.inboxPrefix ? { watcherPrefix: opts.inboxPrefix } : {});
  await patiently("create or open the buckets", () => ensureBuckets(jsm, BUCKET_PLANS, opts.replicas, log, opts.bucketLimits), log);

  const table = opts.table ?? REGISTRY_TABLE;
  const desired = desiredRegistry(table);
  const knownKinds = new Set(desired.keys());
  const projections = {} as Record<What, Projection>;
  // The mesh overview follows the node buckets' stores as they apply; a kind is answered while the registry holds it.
  // A node past the flood limits is named in the log once when it goes over and once when it is back under.
  const overview = new MeshOverview((kind) => projections.registry.store.slotOf(kind) >= 0, Date.now, {
    limits: opts.floodLimits,
    onChange: (c) => {
      if (c.flooding) {
        log.warn(
          { node: c.node, keys: c.keys, bytes: c.bytes, limits: opts.floodLimits ?? DEFAULT_FLOOD_LIMITS },
          "a node is flooding its keys: it holds more keys or bytes than any node should; revoke its grant, or raise --flood-keys / --flood-bytes if it is meant to",
        );
      } else log.info({ node: c.node, keys: c.keys, bytes: c.bytes }, "a node is no longer flooding its keys");
    },
  });
  const subs: Subscription[] = [];
  for (const what of WHATS) {
    const p = new Projection(specFor(what, knownKinds), log, what === "registry" ? undefined : overview.observerFor(what));
    projections[what] = p;
    subs.push(p.connect(watchBucket({ nc, log, inboxPrefix: opts.inboxPrefix }, { bucket: BUCKETS[what], fromRevision: () => p.received })));
  }

  const kvm = new Kvm(js);
  const seat = new Seat({ kv: await patiently("open the seat's bucket", () => kvm.open(SEAT_BUCKET), log), ttlMs: opts.seatTtlMs, log });
  const registryKv = await patiently("open the registry bucket", () => kvm.open(BUCKETS.registry), log);
  const reconciler = new Reconciler({
    registry: projections.registry,
    writer: kvRegistryWriter(js, BUCKETS.registry, seat.instance),
    desired,
    intervalMs: opts.registryIntervalMs,
    driftDelayMs: opts.driftDelayMs,
    log,
    mayWrite: () => seat.mayWrite(),
  });
  reconciler.start();
  // A new holder reconciles at once: its projections are already warm.
  subs.push(
    seat.view$.subscribe((v) => {
      if (v.isHolder && projections.registry.hasSynced) void reconciler.run("seat");
    }),
  );
  await patiently("watch the seat", () => seat.start(), log);
  subs.push(startFeed({ nc, projections, isHolder: () => seat.isHolder, log }));

  const verb = new VerbService({
    nc,
    projections,
    log,
    version: VERSION,
    maxWaitMs: opts.maxWaitMs,
    observe: opts.observe,
    lastSeq: async (bucket) => (await jsm.streams.info(`KV_${bucket}`)).state.last_seq,
    statsData: () => ({ seat: { holder: seat.holder ?? null, isHolder: seat.isHolder, instance: seat.instance } }),
  });
  try {
    await verb.start();
  } catch (err) {
    throw wrapError("CONNECT", "cannot serve the verb mesh-provisioner.provisioning", err);
  }

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

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await verb.stop();
      // Finish the write in flight, then hand the seat over.
      await reconciler.stop();
      await seat.release();
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

  return { nc, jsm, connected, projections, overview, reconciler, verb, seat, synced, stop };
}

export { ProvisionerError };
