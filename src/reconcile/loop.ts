/**
 * When the registry is reconciled: once its projection has synced, every
 * interval, and soon after the bucket drifts (someone changed, added or
 * deleted a key). Level-based: each run diffs the whole table against the
 * whole projection and writes only the differences, so our own writes lead to
 * one more run that finds nothing to do. Runs never overlap.
 */
import { concatMap, debounceTime, filter, interval, map, merge, take, type Subscription } from "rxjs";
import { Backoff, BACKOFF } from "mesh-provisioner-client/backoff";
import type { Logger } from "../log.js";
import type { Projection } from "../projections/projection.js";
import { applyOperations, type ApplyReport, type RegistryWriter } from "./apply.js";
import { diffRegistry, type Observed } from "./diff.js";
import { DriftTally } from "./drift.js";
import type { RegistryValue } from "./registry.js";

export interface ReconcilerOptions {
  readonly registry: Projection;
  readonly writer: RegistryWriter;
  readonly desired: ReadonlyMap<string, RegistryValue>;
  readonly intervalMs: number;
  readonly driftDelayMs: number;
  readonly log: Logger;
  /** Whether this instance may write now (the seat); reconciles are skipped when not. */
  readonly mayWrite?: () => boolean;
}

export type Trigger = "start" | "interval" | "drift" | "seat" | "retry" | "manual";

/** The registry projection as the diff sees it: every key, out-of-shape ones with no value. */
export function observedRegistry(registry: Projection): Map<string, Observed> {
  const observed = new Map<string, Observed>();
  for (const e of registry.store.allEntries()) observed.set(e.key, { revision: e.revision, value: e.value });
  for (const o of registry.store.allOutOfShape()) observed.set(o.key, { revision: o.revision, value: undefined });
  return observed;
}

export class Reconciler {
  private sub: Subscription | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly retries = new Backoff(BACKOFF.reconcile);
  private stopped = false;
  private inFlight: Promise<ApplyReport | null> = Promise.resolve(null);
  private readonly log: Logger;
  runs = 0;
  lastReport: ApplyReport | undefined;
  /** Registry writes made by this instance, by operation. */
  readonly writes = { created: 0, updated: 0, deleted: 0, failed: 0 };
  /** Runs by result: ok (nothing failed), error (a write failed), skipped (this instance may not write). */
  readonly results = { ok: 0, error: 0, skipped: 0 };
  /** Unix milliseconds of the end of the last run in which no write failed (0: none). */
  lastSuccessAt = 0;
  /** Whether the registry projection differs from the table, and how often it started to (every instance watches, the holder repairs). */
  readonly drift = new DriftTally();
  private driftSub: Subscription | undefined;

  constructor(private readonly opts: ReconcilerOptions) {
    this.log = opts.log.child({ component: "reconcile" });
  }

  start(): void {
    const { registry, intervalMs, driftDelayMs } = this.opts;
    const triggers = merge(
      registry.synced$.pipe(
        filter(Boolean),
        take(1),
        map((): Trigger => "start"),
      ),
      interval(intervalMs).pipe(map((): Trigger => "interval")),
      registry.changes$.pipe(
        debounceTime(driftDelayMs),
        map((): Trigger => "drift"),
      ),
    );
    this.sub = triggers
      .pipe(
        filter(() => registry.hasSynced),
        concatMap((reason) => this.run(reason)),
      )
      .subscribe();
    // Compared at the first sync and at every change after it: the registry is small and changes rarely.
    this.driftSub = merge(registry.synced$.pipe(filter(Boolean), take(1)), registry.changes$).subscribe(() =>
      this.drift.compared(diffRegistry(this.opts.desired, observedRegistry(registry)).operations.length > 0),
    );
  }

  /** Reconcile now (after any run in flight). Resolves with what was written, or null when not allowed to write. */
  run(reason: Trigger = "manual"): Promise<ApplyReport | null> {
    const next = this.inFlight.then(() => this.runOnce(reason));
    this.inFlight = next.then(
      (report) => this.counted(report),
      () => this.counted(undefined),
    );
    return next;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.sub?.unsubscribe();
    this.driftSub?.unsubscribe();
    await this.inFlight;
  }

  /** Count a run's result (undefined: it threw); null: it was skipped. */
  private counted(report: ApplyReport | null | undefined): null {
    if (report === null) this.results.skipped++;
    else if (report === undefined || report.failed.length > 0) this.results.error++;
    else {
      this.results.ok++;
      this.lastSuccessAt = Date.now();
    }
    return null;
  }

  private async runOnce(reason: Trigger): Promise<ApplyReport | null> {
    const { registry, writer, desired, log } = { ...this.opts, log: this.log };
    if (this.opts.mayWrite !== undefined && !this.opts.mayWrite()) {
      log.debug({ reason }, "not reconciling: this instance does not hold the seat");
      return null;
    }
    this.runs++;
    const plan = diffRegistry(desired, observedRegistry(registry));
    const report = await applyOperations(writer, plan.operations, plan.unchanged, log, this.opts.mayWrite);
    const written = report.created.length + report.updated.length + report.deleted.length;
    this.writes.created += report.created.length;
    this.writes.updated += report.updated.length;
    this.writes.deleted += report.deleted.length;
    this.writes.failed += report.failed.length;
    this.lastReport = report;
    const summary = {
      reason,
      created: report.created,
      updated: report.updated,
      deleted: report.deleted,
      unchanged: report.unchanged.length,
      failed: report.failed.length,
    };
    if (written > 0 || report.failed.length > 0) log.info(summary, "registry reconciled: wrote only what differed from the compiled table");
    else log.debug(summary, "registry already equals the compiled table; nothing written");
    if (report.lastRevision > 0) {
      // Let the projection see our own writes before the next diff runs.
      await registry.waitForRevision(report.lastRevision, 5000).catch(() => undefined);
    }
    this.scheduleRetry(report.failed.length > 0);
    return report;
  }

  /**
   * Writes that failed (a leader election, a lost connection) leave the bucket
   * drifted with nothing to trigger another run: retry, waiting by the retry
   * policy (BACKOFF.reconcile) until a run has no failed write, which starts
   * the waits from the base again.
   */
  private scheduleRetry(failed: boolean): void {
    clearTimeout(this.retryTimer);
    if (!failed || this.stopped) {
      this.retries.reset();
      return;
    }
    const wait = this.retries.next();
    this.retryTimer = setTimeout(() => void this.run("retry").catch(() => undefined), wait);
    this.retryTimer.unref();
  }
}
