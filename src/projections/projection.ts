/**
 * A projection: a store fed by a bucket's watch (the informer). It applies
 * each entry once, says when it is synced, publishes the changes it applied
 * after its first sync, logs each out-of-shape key once, and lets readers wait
 * for a revision.
 */
import { BehaviorSubject, Subject, filter, firstValueFrom, timeout, type Observable, type Subscription } from "rxjs";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { CountTally } from "./count-tally.js";
import type { Logger } from "../log.js";
import type { RawEntry, WatchEvent } from "../streams/kv-watch.js";
import type { BucketSpec } from "./store/spec.js";
import type { ProjectionStats } from "mesh-provisioner-client/protocol/stats.js";
import type { ProgressOf } from "./sync-progress.js";
import { ProjectionStore, type Change, type StoreObserver } from "./store/store.js";
import type { StoreView } from "./store/view.js";
import { publishRebuilt, revisionsOf } from "./rebuild-diff.js";
import { Hearing, type HearingOptions } from "./hearing.js";
import type { Staleness } from "./staleness.js";

/** A store observer that can also forget what it was told (before a rebuilt store is replayed into it). */
export interface ProjectionObserver extends StoreObserver {
  clear(): void;
}

export type { ProjectionStats };

/** What became of a checkpoint `seedFrom` loaded: taken, or let go because the watch had to rebuild, the seed was dropped, or the projection stopped. */
export type SeedOutcome = "taken" | "rebuilding" | "dropped" | "stopped";

export class Projection {
  /**
   * The store as its readers see it: reads only. The same object for the
   * projection's whole life, so a reader may keep it: a rebuild from a fresh
   * snapshot builds a store aside and moves its content into this one.
   */
  readonly store: StoreView;
  /** The same store with its writers: only the projection applies to it. */
  private readonly writable: ProjectionStore;
  /** A store being rebuilt from a fresh snapshot, swapped in at its sync. */
  private rebuilding: ProjectionStore | undefined;
  /**
   * The entries a resumed watch delivers before it has caught up, applied all
   * at once when it has. A bucket keeps one message per key, so a consumer
   * resumed from revision R delivers R+1… without the writes that later
   * writes replaced: applied one by one, they would show states the bucket
   * never had (a key at its old value at a revision past its newer write), and
   * a reader waiting for that revision would be answered from one. Held, the
   * store stays at R, a state the bucket had, until it jumps to the stream's
   * end.
   */
  private catchUp: RawEntry[] | undefined;
  /** True while the projection is caught up with its bucket (false before the first sync and while resuming). */
  readonly synced$ = new BehaviorSubject<boolean>(false);
  readonly revision$ = new BehaviorSubject<number>(0);
  /** Changes applied after the first sync (never the snapshot itself). */
  readonly changes$ = new Subject<Change>();
  private everSynced = false;
  /** Unix milliseconds at which the store last took in an entry (0: never). */
  private appliedAt = 0;
  /** When the watch last heard from the bucket's stream (a message, a heartbeat, a read of its state; at first, when it started). */
  readonly hearing: Hearing;
  /** How far the first snapshot has come: the entries its consumer said it would deliver, and those delivered so far. */
  private firstSync = { expected: 0, received: 0 };
  private sub: Subscription | undefined;
  private readonly log: Logger;
  /**
   * A start from a checkpoint at `revision`. While it `loading`, the
   * checkpoint is read into a store aside while the watch already reads the
   * bucket from `revision` + 1: its entries are held (`catchUp`) and a sync it
   * reaches is noted (`syncedAt`), both taken once the load ends. Then the
   * store holds the checkpoint, and the first sync is not announced until
   * `confirmSeed` (the checkpoint is proven to describe the bucket) or
   * `dropSeed` (it is not: the bucket is read whole).
   */
  private seed: { readonly revision: number; loading: boolean; syncedAt?: number; tally?: CountTally; givenUp?: "rebuilding" | "dropped" } | undefined;
  private stopped = false;
  /** A seeded projection has caught up with its bucket at this revision: prove its seed now (`countAt`, then confirm or drop). */
  readonly caughtUp$ = new Subject<number>();
  private readonly restarts = new Subject<string>();
  /** Asks the projection's watch to start again from `received` (after `dropSeed`, from nothing). */
  readonly restart$: Observable<string> = this.restarts.asObservable();

  /** `observer` is told of every entry and out-of-shape key the store takes in or lets go (the overview's counts). */
  constructor(
    spec: BucketSpec,
    log: Logger,
    private readonly observer?: ProjectionObserver,
    opts: HearingOptions = {},
  ) {
    this.writable = new ProjectionStore(spec, { observer });
    this.store = this.writable;
    this.log = log.child({ bucket: spec.bucket });
    this.hearing = new Hearing(opts);
  }

  get what(): string {
    return this.store.spec.what;
  }

  get revision(): number {
    return this.store.revision;
  }

  /** The last revision the watch delivered, held entries included: where a resume goes on from, and how far the watch has got (its stall check). */
  get received(): number {
    const held = this.catchUp;
    const applied = Math.max(this.store.revision, this.seed?.revision ?? 0);
    return held !== undefined && held.length > 0 ? Math.max(applied, (held[held.length - 1] as RawEntry).revision) : applied;
  }

  /** Unix milliseconds at which the store last took in an entry, a checkpoint or a rebuilt snapshot (0: never). */
  get lastAppliedAt(): number {
    return this.appliedAt;
  }

  /** What its answers say now: undefined while it has heard from its stream within `staleAfterMs`. */
  staleness(now?: number): Staleness | undefined {
    return this.hearing.staleness(this.store.revision, now);
  }

  get isSynced(): boolean {
    return this.synced$.value;
  }

  get hasSynced(): boolean {
    return this.everSynced;
  }

  /**
   * A checkpoint at `revision` is about to be loaded (before the watch
   * starts): the watch may read the bucket from `revision` + 1 at once, so
   * that its consumer is made and the writes since the checkpoint arrive
   * while the checkpoint loads. Its entries are held until `seedFrom` ends.
   */
  beginSeed(revision: number): void {
    if (this.sub !== undefined || this.writable.size > 0 || this.seed !== undefined)
      throw new ProvisionerError("INTERNAL", `the ${this.what} projection can begin from a checkpoint only before its watch starts`);
    this.seed = { revision, loading: true };
    this.catchUp = [];
  }

  /**
   * Load the checkpoint `beginSeed` announced: `fill` loads it into a new
   * store, which then takes the place of this projection's and is told to
   * the observer whole; then the entries held meanwhile are applied, and a
   * sync the watch reached meanwhile is taken. When the seed was given up
   * during the load (the watch had to rebuild from a fresh snapshot,
   * `dropSeed`, a stop), what was filled is let go and the outcome says why.
   * When `fill` rejects, nothing changes.
   */
  async seedFrom(fill: (store: ProjectionStore) => Promise<void>): Promise<SeedOutcome> {
    const seed = this.seed;
    if (seed?.loading !== true) throw new ProvisionerError("INTERNAL", `the ${this.what} projection loads a checkpoint only after beginSeed`);
    const next = new ProjectionStore(this.writable.spec);
    await fill(next);
    if (this.stopped) return "stopped";
    if (seed.givenUp !== undefined) return seed.givenUp;
    this.writable.adopt(next);
    this.appliedAt = Date.now();
    this.replayToObserver();
    seed.loading = false;
    if (seed.syncedAt !== undefined) this.syncedTo(seed.syncedAt);
    // Not caught up yet: what was held is applied, and the rest as it comes (nothing is answered before the sync).
    else this.applyHeld();
    return "taken";
  }

  /** The checkpoint's revision while a seed waits for its proof. */
  get seededAt(): number | undefined {
    return this.seed?.revision;
  }

  /**
   * The keys this projection holds a message for (`heldKeys`) once it had
   * applied every message up to `revision`: undefined while it has not got
   * there, or when it got past before counting began (see caughtUp$).
   */
  countAt(revision: number): number | undefined {
    const tally = this.seed?.tally;
    if (tally === undefined || this.received < revision) return undefined;
    return tally.at(revision);
  }

  /** The seed is proven: announce the sync its catch-up reached. */
  confirmSeed(): void {
    if (this.seed?.tally === undefined) return;
    const from = this.seed.revision;
    this.seed = undefined;
    this.announceSynced(`projection synced from a checkpoint at revision ${from}`);
  }

  /** The seed cannot be proven: forget it and read the bucket whole, as a start without one. */
  dropSeed(why: string): void {
    if (this.seed === undefined) return;
    this.seed.givenUp = "dropped";
    this.seed = undefined;
    this.catchUp = undefined;
    this.writable.adopt(new ProjectionStore(this.writable.spec));
    this.replayToObserver();
    this.firstSync = { expected: 0, received: 0 };
    this.restarts.next(why);
  }

  /** Feed the projection from a watch. Returns the subscription (unsubscribe to stop). */
  connect(watch$: Observable<WatchEvent>): Subscription {
    this.hearing.heard(); // silent from the watch's start until it first hears
    this.sub = watch$.subscribe({
      next: (ev) => this.onEvent(ev),
      error: (err: unknown) => this.log.error({ err }, "the bucket's watch failed for good; the projection stops updating"),
    });
    return this.sub;
  }

  stop(): void {
    this.stopped = true;
    this.sub?.unsubscribe();
    this.changes$.complete();
  }

  /** Resolve once the applied revision reaches `min`; reject with a TimeoutError after `ms`. */
  async waitForRevision(min: number, ms: number): Promise<number> {
    if (this.store.revision >= min) return this.store.revision;
    return firstValueFrom(
      this.revision$.pipe(
        filter((r) => r >= min),
        timeout(ms),
      ),
    );
  }

  /** Resolve once synced (the first time or again after a resume). */
  async waitSynced(ms: number): Promise<void> {
    if (this.isSynced) return;
    await firstValueFrom(this.synced$.pipe(filter(Boolean), timeout(ms)));
  }

  /** How far the first sync has come (`expected` is 0 until the watch's consumer has said how many entries it delivers). */
  get syncProgress(): ProgressOf {
    return { ...this.firstSync, done: this.everSynced, loadingCheckpoint: this.seed?.loading === true };
  }

  stats(): ProjectionStats {
    const stale = this.staleness();
    return {
      what: this.store.spec.what,
      bucket: this.store.spec.bucket,
      revision: this.store.revision,
      entries: this.store.size,
      outOfShape: this.store.outOfShapeCount,
      synced: this.isSynced,
      everSynced: this.everSynced,
      heardAt: new Date(this.hearing.at).toISOString(),
      ...(stale === undefined ? {} : { stale }),
    };
  }

  private onEvent(ev: WatchEvent): void {
    // Every event but a resume is news from the stream; a number, no allocation, per message.
    if (ev.type !== "resuming") this.hearing.heard();
    switch (ev.type) {
      case "heard":
        return;
      case "entry": {
        const { operation, key, revision, value } = ev.entry;
        if (!this.everSynced) this.firstSync.received++;
        if (this.rebuilding) {
          this.rebuilding.apply(operation, key, revision, value);
          return;
        }
        if (this.catchUp !== undefined) {
          this.catchUp.push(ev.entry);
          return;
        }
        this.applyEntry(ev.entry);
        return;
      }
      case "synced":
        if (this.rebuilding) this.swapInRebuilt(ev.lastSeq);
        // Caught up before the checkpoint has loaded: taken once it has (seedFrom).
        if (this.seed?.loading === true) this.seed.syncedAt = ev.lastSeq;
        else this.syncedTo(ev.lastSeq);
        return;
      case "reached":
        // Only a projection that is caught up takes it (a seeded one too, whose proof counts at the stream's end):
        // one holding a catch-up or rebuilding gets there by its sync.
        if (!(this.everSynced || this.seed?.tally !== undefined) || this.catchUp !== undefined || this.rebuilding) return;
        if (ev.lastSeq <= this.writable.revision) return;
        this.writable.markSynced(ev.lastSeq);
        this.seed?.tally?.record(this.writable.revision, this.writable.heldKeys);
        this.revision$.next(this.writable.revision);
        return;
      case "pending":
        // A snapshot's size is known before its first entry: the store takes room for it at once instead of
        // growing step by step (a resume's count may be mostly updates of keys it holds: no room is taken then).
        if (this.rebuilding) this.rebuilding.expect(ev.count);
        else if (!this.everSynced) {
          // While a checkpoint loads, the store is the one it replaces.
          if (this.seed?.loading !== true) this.writable.expect(ev.count);
          // A first sync that started over counts from its new consumer.
          this.firstSync = { expected: ev.count, received: 0 };
        }
        return;
      case "resuming":
        this.log.info({ reason: ev.reason, fromRevision: ev.fromRevision }, "resuming the bucket's watch");
        this.rebuilding = undefined;
        // Before the first sync nothing is answered: entries are applied as they come. After it, held (see catchUp).
        // A resume while holding keeps what it holds and goes on after it (the watch resumes from `received`), so a
        // catch-up slower than the stall check still ends.
        if (this.everSynced) this.catchUp ??= [];
        this.synced$.next(false);
        return;
      case "rebuilding":
        this.log.warn(
          { fromRevision: ev.fromRevision, firstSeq: ev.firstSeq },
          "the history needed to resume is gone from the stream: rebuilding the projection from a fresh snapshot",
        );
        this.rebuilding = new ProjectionStore(this.writable.spec);
        // A rebuild reads the bucket whole: a checkpoint it started from has nothing left to prove (or to load).
        if (this.seed !== undefined) this.seed.givenUp = "rebuilding";
        this.seed = undefined;
        // The fresh snapshot holds every key's last write: what was held is in it.
        this.catchUp = undefined;
        return;
    }
  }

  /** The watch has caught up to `lastSeq`: apply what was held, then count a seed from here on (announced once proven), or announce the sync. */
  private syncedTo(lastSeq: number): void {
    this.applyHeld();
    this.writable.markSynced(lastSeq);
    if (this.seed !== undefined) {
      if (this.seed.tally === undefined) {
        this.seed.tally = new CountTally(this.writable.revision, this.writable.heldKeys);
        this.caughtUp$.next(this.writable.revision);
      }
      return;
    }
    this.announceSynced(this.everSynced ? "projection caught up again after resuming its watch" : "projection synced with its bucket");
  }

  /** Apply the entries held (`catchUp`), in the order they came, and hold no more. */
  private applyHeld(): void {
    const held = this.catchUp;
    this.catchUp = undefined;
    if (held !== undefined) for (const e of held) this.applyEntry(e);
  }

  private announceSynced(message: string): void {
    const store = this.writable;
    if (!this.everSynced) {
      this.everSynced = true;
      this.log.info({ revision: store.revision, entries: store.size, outOfShape: store.outOfShapeCount }, message);
    } else this.log.info({ revision: store.revision }, message);
    this.revision$.next(store.revision);
    this.synced$.next(true);
  }

  /** The observer forgets what it was told and is told the store's content. */
  private replayToObserver(): void {
    if (this.observer === undefined) return;
    this.observer.clear();
    this.writable.observeWith(this.observer);
  }

  private applyEntry(entry: RawEntry): void {
    const { operation, key, revision, value } = entry;
    const change = this.writable.apply(operation, key, revision, value);
    this.seed?.tally?.record(this.writable.revision, this.writable.heldKeys);
    if (change === null) return;
    this.appliedAt = Date.now();
    if (change.newlyOutOfShape && change.outOfShape) {
      this.log.warn(
        { key, revision, reason: change.outOfShape.reason },
        "a key is out of its bucket's shape: it is listed in the verb's outOfShape answers; fix or delete the key",
      );
    }
    if (this.everSynced) this.changes$.next(change);
    this.revision$.next(this.writable.revision);
  }

  /**
   * Move the rebuilt store's content into the readers' store, then tell both
   * channels what differs: the observer forgets the old content and is told
   * the new, and after a first sync the changes are published (deletes of
   * the keys gone, puts of those new or at another revision).
   */
  private swapInRebuilt(lastSeq: number): void {
    const next = this.rebuilding as ProjectionStore;
    this.rebuilding = undefined;
    next.markSynced(lastSeq);
    const before = this.everSynced ? revisionsOf(this.writable) : undefined;
    this.writable.adopt(next);
    this.appliedAt = Date.now();
    this.replayToObserver();
    if (before !== undefined) publishRebuilt(before, this.writable, (change) => this.changes$.next(change));
  }
}
