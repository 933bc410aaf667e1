package provisioner

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWatchRetriesAFailedSnapshotByItsBackoffResetOnSuccess(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &watch{c: &Client{}, state: newViewState(), retry: make(chan struct{}, 1), backoff: newBackoff(snapshotRetryBase, snapshotRetryCap)}
	// The lowest draw: each wait is half its ceiling (50, 100, 200 ms).
	w.backoff.random = func() float64 { return 0 }
	defer func() {
		if w.retryTimer != nil {
			w.retryTimer.Stop()
		}
	}()
	failed := snapshotResult{generation: w.generation, err: errors.New("503")}
	w.onSnapshot(ctx, failed)
	w.onSnapshot(ctx, failed)
	start := time.Now()
	w.onSnapshot(ctx, failed)
	if w.backoff.failures != 3 {
		t.Fatalf("failures = %d after three failed snapshots, want 3", w.backoff.failures)
	}
	select {
	case <-w.retry:
		if waited := time.Since(start); waited < 200*time.Millisecond {
			t.Fatalf("the third failure's retry came after %v, before its wait of 200ms", waited)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no retry within 5s")
	}
	w.onSnapshot(ctx, snapshotResult{generation: w.generation, answer: &Answer{What: Registry, Revision: 7}, lowest: 7})
	if w.backoff.failures != 0 {
		t.Fatalf("failures = %d after a snapshot taken, want 0", w.backoff.failures)
	}
}

func TestHoldOfTellsANewHoldOfTheSameInstanceFromTheOldOne(t *testing.T) {
	a1 := &Holder{Instance: "a", Host: "h", PID: 1, Since: "2026-12-04T00:00:00.000Z"}
	a2 := &Holder{Instance: "a", Host: "h", PID: 1, Since: "2026-12-04T00:00:05.000Z"}
	seen := func(h *Holder) []Instance {
		return []Instance{{ID: "x", Instance: "b", Holder: h}, {ID: "y", Instance: "a", IsHolder: h != nil, Holder: h}}
	}
	if holdOf(seen(a1)) == holdOf(seen(a2)) {
		t.Fatalf("the same instance's two holds have the same name %q: a watch would miss the gap between them", holdOf(seen(a1)))
	}
	if holdOf(seen(a1)) != holdOf(seen(&Holder{Instance: "a", Host: "h", PID: 1, Since: a1.Since})) {
		t.Fatal("one hold seen twice has two names: a watch would take needless snapshots")
	}
	if got := holdOf(seen(nil)); got != "" {
		t.Fatalf("no instance holds the seat, yet the hold is %q", got)
	}
	// An instance that names a holder but does not hold the seat itself says nothing of the feed.
	if got := holdOf([]Instance{{ID: "x", Instance: "b", Holder: a1}}); got != "" {
		t.Fatalf("a standby's view named the hold %q", got)
	}
}
