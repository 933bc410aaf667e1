package provisioner

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// Watch keeps the current view of what r asks for, from the feed, by the
// TypeScript client's recipe (docs/protocol.md, "Staying current"):
//
//  1. subscribe to the feed subjects of r (a request for one node hears only
//     that node's keys);
//  2. take a snapshot through the verb, every page merged, asked with
//     MinRevision at the view's revision or the furthest any instance has
//     applied ($SRV.STATS), whichever is higher, so a snapshot from an
//     instance that is behind never steps the view back;
//  3. apply the events above the snapshot's lowest page revision, in order,
//     each only where newer than what the view holds for its key;
//  4. take a fresh snapshot, still subscribed, whenever events may have been
//     lost: after a reconnect, when the subscription dropped messages (a slow
//     consumer), and when the seat's hold changes: another holder, or the
//     same one taking the seat anew (only the holder publishes the feed, and
//     only while one hold lasts); while nobody holds it the view is not Synced.
//
// A view whose last snapshot was stale (View.Stale: the answering projection
// had heard nothing from its stream for longer than --stale-after) takes a
// fresh one at each seat check, until one is not: the feed's events alone
// never clear a view's staleness, and the answering instance catches up on
// its own once its stream is heard from again.
//
// A snapshot that fails (503 while the service syncs, 504, no answer) is
// tried again after a wait whose ceiling doubles from 100 ms up to 5 s while
// snapshots keep failing; each wait is drawn at random from the ceiling's
// upper half, so clients that failed together do not ask again together. A
// snapshot taken starts the waits from 100 ms again.
//
// The channel carries the view each time it changes; a reader slower than
// the changes skips views in between, never the latest. It is closed when
// ctx ends. Watch fails at once, with a *VerbError, for a request the
// service would refuse: a 400, or a 403 where the client's scope (WithNode,
// WithNeedsScope) does not reach what is asked.
func (c *Client) Watch(ctx context.Context, r Request) (<-chan View, error) {
	r = c.scoped(r)
	if err := c.scopeError(); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	// What the client's scope refuses fails here too: its feed subscription
	// is one the grant refuses, and its snapshot would be a 403 each time.
	if err := c.refused(r); err != nil {
		return nil, err
	}
	r.Limit, r.After, r.MinRevision = 0, "", 0
	w := &watch{
		c:        c,
		req:      r,
		what:     r.what(),
		filters:  r.filters(),
		state:    newViewState(),
		out:      make(chan View, 1),
		msgs:     make(chan *nats.Msg, c.feedBuffer),
		results:  make(chan snapshotResult, 1),
		retry:    make(chan struct{}, 1),
		backoff:  newBackoff(snapshotRetryBase, snapshotRetryCap),
		seat:     make(chan []Instance, 1),
		statuses: c.nc.StatusChanged(nats.CONNECTED),
	}
	for _, subject := range feedSubjects(w.what, w.filters) {
		sub, err := c.nc.Subscribe(subject, func(m *nats.Msg) {
			select {
			case w.msgs <- m:
			case <-ctx.Done():
			}
		})
		if err != nil {
			w.stop()
			return nil, fmt.Errorf("mesh-provisioner: subscribe to %s: %w", subject, err)
		}
		// Generous limits: a burst is held, not dropped; a drop is seen by dropped().
		_ = sub.SetPendingLimits(c.feedPending, 256<<20)
		w.subs = append(w.subs, sub)
	}
	// Subscribed first, then the snapshot: nothing written in between is missed.
	fctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if err := c.nc.FlushWithContext(fctx); err != nil {
		w.stop()
		return nil, fmt.Errorf("mesh-provisioner: subscribe to the feed: %w", err)
	}
	go w.run(ctx)
	return w.out, nil
}

type snapshotResult struct {
	generation int
	answer     *Answer
	lowest     uint64
	err        error
}

// watch is one Watch; run owns every field but the channels' other ends.
type watch struct {
	c        *Client
	req      Request
	what     What
	filters  map[string]string
	state    *viewState
	out      chan View
	msgs     chan *nats.Msg
	results  chan snapshotResult
	retry    chan struct{}
	seat     chan []Instance
	statuses chan nats.Status
	subs     []*nats.Subscription

	generation int
	dirty      bool
	dropped    int
	// hold is the seat's hold at the last look (holdOf; "": nobody); known once looked.
	hold      string
	holdKnown bool
	// backoff spaces the tries of a snapshot that keeps failing.
	backoff    *backoff
	retryTimer *time.Timer
	// cancelSnapshot stops the snapshot in flight, once a newer one supersedes it.
	cancelSnapshot context.CancelFunc
}

func (w *watch) stop() {
	for _, s := range w.subs {
		_ = s.Unsubscribe()
	}
	w.c.nc.RemoveStatusListener(w.statuses)
	if w.retryTimer != nil {
		w.retryTimer.Stop()
	}
	if w.cancelSnapshot != nil {
		w.cancelSnapshot()
	}
}

func (w *watch) run(ctx context.Context) {
	defer close(w.out)
	defer w.stop()
	// Checks for dropped messages, and sends a view the reader was not ready for.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var seatTick <-chan time.Time
	if w.c.seatCheck > 0 {
		t := time.NewTicker(w.c.seatCheck)
		defer t.Stop()
		seatTick = t.C
	}
	w.take(ctx, "start")
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-w.msgs:
			w.onMessage(ctx, m)
		case <-w.statuses:
			// Reconnected: whatever was published while away is lost.
			w.take(ctx, "reconnect")
		case res := <-w.results:
			w.onSnapshot(ctx, res)
		case <-w.retry:
			w.take(ctx, "retry")
		case list := <-w.seat:
			w.onSeat(ctx, list)
		case <-seatTick:
			if w.state.synced && w.state.stale != nil {
				w.take(ctx, "stale")
			}
			go func() {
				list, err := w.c.Instances(ctx, 500*time.Millisecond)
				if err == nil {
					select {
					case w.seat <- list:
					case <-ctx.Done():
					}
				}
			}()
		case <-tick.C:
			w.checkDropped(ctx)
		}
		w.flush()
	}
}

// flush sends the view when it changed and the reader took the last one.
// Only run sends, so a free slot stays free until the send.
func (w *watch) flush() {
	if w.dirty && len(w.out) == 0 {
		w.out <- w.state.view()
		w.dirty = false
	}
}

func (w *watch) onMessage(ctx context.Context, m *nats.Msg) {
	if w.c.onEvent != nil {
		w.c.onEvent(m.Subject)
	}
	ev, err := decodeEvent(m.Data)
	if err != nil {
		// A bad event costs a fresh snapshot.
		w.report(err)
		w.take(ctx, "bad event")
		return
	}
	if ev.What != w.what || !covers(w.what, w.filters, ev) {
		return
	}
	if w.state.apply(ev) {
		w.dirty = true
	}
}

// checkDropped takes a fresh snapshot when a subscription dropped messages:
// the client could not keep up, and events were lost.
func (w *watch) checkDropped(ctx context.Context) {
	total := 0
	for _, s := range w.subs {
		if n, err := s.Dropped(); err == nil {
			total += n
		}
	}
	if total > w.dropped {
		w.dropped = total
		w.report(fmt.Errorf("mesh-provisioner: the feed subscription dropped events (a slow consumer); taking a fresh snapshot"))
		w.take(ctx, "dropped")
	}
}

// onSeat: only the holder publishes the feed, and only while one hold lasts,
// so a new hold (another holder, or the same one taking the seat anew) means
// events may be missing (a fresh snapshot), and none means the view is no
// longer known to be current until a holder is back.
func (w *watch) onSeat(ctx context.Context, list []Instance) {
	if len(list) == 0 {
		return
	}
	h := holdOf(list)
	changed := w.holdKnown && h != w.hold
	w.hold, w.holdKnown = h, true
	switch {
	case changed && h != "":
		w.take(ctx, "seat")
	case changed:
		w.state.beginSnapshot()
		w.dirty = true
	}
}

// take starts a snapshot (why: for tests); it supersedes, and stops, any in flight.
func (w *watch) take(ctx context.Context, why string) {
	if w.c.onTake != nil {
		w.c.onTake(why)
	}
	w.generation++
	gen := w.generation
	if w.state.synced {
		w.dirty = true
	}
	w.state.beginSnapshot()
	floorOfView := w.state.revision
	req := w.req
	if w.cancelSnapshot != nil {
		w.cancelSnapshot()
	}
	snapCtx, cancel := context.WithCancel(ctx)
	w.cancelSnapshot = cancel
	go func() {
		floor := max(floorOfView, w.c.furthestApplied(snapCtx, w.what))
		req.MinRevision = floor
		a, lowest, err := w.c.getWithLowest(snapCtx, req)
		select {
		case w.results <- snapshotResult{generation: gen, answer: a, lowest: lowest, err: err}:
		case <-snapCtx.Done():
		}
	}()
}

func (w *watch) onSnapshot(ctx context.Context, res snapshotResult) {
	if res.generation != w.generation || ctx.Err() != nil {
		return
	}
	err := res.err
	if err == nil && !w.state.endSnapshot(res.answer, res.lowest) {
		err = fmt.Errorf("mesh-provisioner: a snapshot at revision %d is older than the view (%d)", res.answer.Revision, w.state.revision)
	}
	if err == nil {
		w.backoff.Reset()
		w.dirty = true
		return
	}
	w.report(err)
	wait := w.backoff.Next()
	if w.retryTimer != nil {
		w.retryTimer.Stop()
	}
	w.retryTimer = time.AfterFunc(wait, func() {
		select {
		case w.retry <- struct{}{}:
		case <-ctx.Done():
		}
	})
}

func (w *watch) report(err error) {
	if w.c.onError != nil {
		w.c.onError(err)
	}
}
