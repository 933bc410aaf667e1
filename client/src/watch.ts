/**
 * A live view of what a request asks for (I/O): the informer, client side.
 *
 * On subscribe it subscribes to the feed's subjects for the request first,
 * then takes a snapshot through the verb; events that arrive meanwhile are
 * kept and applied above the snapshot (ViewState). It takes a fresh snapshot
 * whenever events may have been lost: after a reconnect, a slow consumer, or
 * when the seat's hold changes or nobody holds it (only the holder
 * publishes the feed, and only while one hold lasts), which it checks with
 * `$SRV.STATS` every `seatCheckMs`. Each snapshot is asked with `minRevision` at the view's own
 * revision or the furthest any instance applied, whichever is higher, so a
 * fresh snapshot from an instance that is behind never replaces a newer view.
 * A view, once handed out, never changes (ViewState copies on write); the
 * events of one read of the connection are handed out as one view.
 * A view whose last snapshot was stale (the answering projection had heard
 * nothing from its stream for longer than `--stale-after`) takes a fresh one
 * at each seat check, until one is not: the feed's events alone never clear
 * a view's staleness (ViewState), and the answering instance catches up on
 * its own once its stream is heard from again.
 * A snapshot that fails (503 while the service syncs, 504, no answer) is
 * tried again after a wait by the retry policy (`BACKOFF.snapshot`), which
 * grows while snapshots keep failing and is drawn at random, so clients that
 * failed together do not ask again together; a snapshot taken resets it.
 */
import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import { Observable } from "./observable.js";
import { Backoff, BACKOFF } from "./backoff/backoff.js";
import type { What } from "./keys/mod.js";
import { furthestApplied, instances } from "./instances.js";
import { covers, feedSubjects, filtersOf } from "./narrowing.js";
import { holdOf } from "./protocol/stats.js";
import type { Answer, FeedEvent, ProvisionerRequest, View } from "./protocol/messages.js";
import { ViewState } from "./view-state.js";

export interface WatchOptions {
  /** How often to ask who holds the seat, and to take a fresh snapshot while the view is stale (ms; 0: never). Default 5 s. */
  readonly seatCheckMs?: number;
  /** Called when a snapshot fails and is tried again (the view stays as it was). */
  readonly onError?: (err: unknown) => void;
}

type Snapshot<W extends What> = (request: ProvisionerRequest<W>) => Promise<{ answer: Answer<W>; lowest: number }>;

export function watchView<W extends What>(
  nc: NatsConnection,
  snapshot: Snapshot<W>,
  request: ProvisionerRequest<W>,
  options: WatchOptions = {},
): Observable<View<W>> {
  return new Observable<View<W>>((subscriber) => {
    const what = (request.what ?? "registry") as W;
    const filters = filtersOf(request);
    const state = new ViewState<W>(what);
    const { minRevision: _ignored, ...asked } = request as ProvisionerRequest<W> & { minRevision?: number };
    let stopped = false;
    let generation = 0;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    const backoff = new Backoff(BACKOFF.snapshot);
    let due = false;
    const emit = (): void => {
      due = false;
      if (!stopped) subscriber.next(state.view());
    };
    // The events of one read of the connection make one view, and so cost at most one copy of its maps.
    const emitSoon = (): void => {
      if (due) return;
      due = true;
      queueMicrotask(() => {
        if (due) emit();
      });
    };

    const take = async (): Promise<void> => {
      const gen = ++generation;
      if (state.isSynced) {
        state.beginSnapshot();
        emit();
      } else state.beginSnapshot();
      try {
        // Never step back: the snapshot must be at least as new as the view, and as what any instance applied
        // (the queue group may hand the ask to one that is behind, and events it missed are not sent again).
        const floor = Math.max(state.atRevision, await furthestApplied(nc, what).catch(() => 0));
        const { answer, lowest } = await snapshot({ ...asked, ...(floor > 0 ? { minRevision: floor } : {}) } as ProvisionerRequest<W>);
        if (stopped || gen !== generation) return;
        if (!state.endSnapshot(answer, lowest)) throw new Error(`a snapshot at revision ${answer.revision} is older than the view`);
        backoff.reset();
        emit();
      } catch (err) {
        if (stopped || gen !== generation) return;
        options.onError?.(err);
        clearTimeout(retryTimer);
        retryTimer = setTimeout(() => void take(), backoff.next());
      }
    };

    const subs: Subscription[] = feedSubjects(what, filters).map((subject) =>
      nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err || stopped) return;
          try {
            const ev = msg.json<FeedEvent<W>>();
            if (ev.what !== what || !covers(what, filters, ev)) return;
            if (state.apply(ev)) emitSoon();
          } catch (e) {
            // Never let an exception escape a subscription callback; a bad event costs a fresh snapshot.
            options.onError?.(e);
            void take();
          }
        },
      }),
    );

    // Events may have been lost: after a reconnect, or when the client could not keep up.
    // Once stopped, the loop leaves at the connection's next status event (its pings among them), which ends the iterator.
    void (async () => {
      for await (const s of nc.status()) {
        if (stopped) break;
        if (s.type === "reconnect" || s.type === "slowConsumer") void take();
      }
    })().catch(() => undefined);

    // Only the seat's holder publishes the feed: a new hold (another holder, the same one taking the seat anew, or none)
    // means events may be missing.
    let hold: string | null | undefined;
    const seatCheckMs = options.seatCheckMs ?? 5_000;
    const seatTimer =
      seatCheckMs > 0
        ? setInterval(() => {
            // A stale view asks again; it clears once an answer is not stale.
            if (state.isSynced && state.staleness !== undefined) void take();
            void instances(nc, 500)
              .then((list) => {
                if (stopped || list.length === 0) return;
                const h = holdOf(list);
                const changed = hold !== undefined && h !== hold;
                hold = h;
                if (changed && h !== null) void take();
                else if (changed) {
                  // Nobody publishes now: the view is no longer known to be current, until a holder is back.
                  state.beginSnapshot();
                  emit();
                }
              })
              .catch(() => undefined);
          }, seatCheckMs)
        : undefined;
    seatTimer?.unref?.();

    // Subscribed first, then the snapshot: nothing written in between is missed.
    void nc.flush().then(
      () => take(),
      () => take(),
    );

    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      clearInterval(seatTimer);
      for (const s of subs) s.unsubscribe();
    };
  });
}
