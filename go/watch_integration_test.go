package provisioner

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A Watch against the real thing stays equal to the bucket through
// concurrent writes, a nats-server restart and a seat handover, and never
// steps a key back (no change lost, none applied twice or out of order).

// follower reads a watch's views and checks each against the one before.
type follower struct {
	mu        sync.Mutex
	last      View
	views     int
	unsynced  int
	stepBacks []string
	seen      map[string]uint64
	closed    bool
}

func follow(ch <-chan View) *follower {
	f := &follower{seen: map[string]uint64{}}
	go func() {
		for v := range ch {
			f.mu.Lock()
			f.views++
			if !v.Synced {
				f.unsynced++
			} else {
				if v.Revision < f.last.Revision && f.last.Synced {
					f.stepBacks = append(f.stepBacks, fmt.Sprintf("the view's revision %d after %d", v.Revision, f.last.Revision))
				}
				for k, e := range v.Entries {
					if e.EntryRevision() < f.seen[k] {
						f.stepBacks = append(f.stepBacks, fmt.Sprintf("%s at %d after %d", k, e.EntryRevision(), f.seen[k]))
					}
					f.seen[k] = e.EntryRevision()
				}
			}
			f.last = v
			f.mu.Unlock()
		}
		f.mu.Lock()
		f.closed = true
		f.mu.Unlock()
	}()
	return f
}

func (f *follower) revisions() (map[string]uint64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]uint64{}
	for k, e := range f.last.Entries {
		out[k] = e.EntryRevision()
	}
	return out, f.last.Synced
}

// equalsBucket waits until the view equals what the bucket holds under node.
func (f *follower) equalsBucket(t *testing.T, kv jetstream.KeyValue, node, when string) {
	t.Helper()
	eventually(t, 30*time.Second, 100*time.Millisecond, "the watch equals the bucket "+when, func() error {
		got, synced := f.revisions()
		if !synced {
			return fmt.Errorf("not synced")
		}
		want := truth(t, kv, node+".>")
		if !maps.Equal(got, want) {
			return fmt.Errorf("%d keys in the view, %d in the bucket", len(got), len(want))
		}
		return nil
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.stepBacks) > 0 {
		t.Fatalf("the view stepped back %s: %v", when, f.stepBacks[:min(5, len(f.stepBacks))])
	}
	for k := range f.last.Entries {
		if !strings.HasPrefix(k, node+".") {
			t.Fatalf("another node's key in the view: %s", k)
		}
	}
}

// writes puts (and every seventh time deletes) needs of n1 and n2 concurrently.
func writes(t *testing.T, kv jetstream.KeyValue, round, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range n {
				node := "n1"
				if i%3 == 0 {
					node = "n2"
				}
				key, _ := NeedsKey(node, fmt.Sprintf("m%d", i%4), "config", fmt.Sprintf("w%d-%d-%d", round, w, i%25))
				var err error
				if i%7 == 6 {
					err = kv.Delete(context.Background(), key)
				} else {
					_, err = kv.Put(context.Background(), key, fmt.Appendf(nil, `{"round":%d,"i":%d}`, round, i))
				}
				if err != nil {
					t.Errorf("write %s: %v", key, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestWatchStaysEqualToTheBucket(t *testing.T) {
	srv := startNATS(t, "")
	first := startService(t, srv.URL)
	nc := srv.connect(t)
	var errs []error
	var errMu sync.Mutex
	c := NewClient(nc, WithTimeout(5*time.Second), WithSeatCheck(300*time.Millisecond), WithErrorHandler(func(err error) {
		errMu.Lock()
		errs = append(errs, err)
		errMu.Unlock()
	}))
	var takes sync.Map // why -> *atomic.Int64
	c.onTake = func(why string) {
		n, _ := takes.LoadOrStore(why, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	}
	taken := func(why string) int64 {
		if n, ok := takes.Load(why); ok {
			return n.(*atomic.Int64).Load()
		}
		return 0
	}
	holder := waitHolder(t, c, first)
	needs := bucket(t, nc, Needs)
	for i := range 120 {
		key, _ := NeedsKey("n1", fmt.Sprintf("m%d", i%6), "config", fmt.Sprintf("k%d", i))
		if _, err := needs.Put(context.Background(), key, []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := c.Watch(ctx, Request{What: Needs, Node: "n1"})
	if err != nil {
		t.Fatal(err)
	}
	f := follow(ch)
	f.equalsBucket(t, needs, "n1", "after the first snapshot")

	writes(t, needs, 1, 300)
	f.equalsBucket(t, needs, "n1", "after concurrent writes")

	// The server restarts on its store; the client reconnects and takes a fresh snapshot.
	srv.restart()
	eventually(t, 20*time.Second, 50*time.Millisecond, "a fresh snapshot after the reconnect", func() error {
		if taken("reconnect") == 0 {
			return fmt.Errorf("none yet")
		}
		return nil
	})
	eventually(t, 20*time.Second, 100*time.Millisecond, "a write after the restart", func() error {
		_, err := needs.Put(context.Background(), "n1.m9.config.after-restart", []byte("{}"))
		return err
	})
	writes(t, needs, 2, 150)
	f.equalsBucket(t, needs, "n1", "after a nats-server restart")

	// A second instance; the first stops (SIGTERM releases the seat): the new holder publishes.
	second := startService(t, srv.URL)
	eventually(t, 30*time.Second, 100*time.Millisecond, "two instances answer", func() error {
		list, _ := c.Instances(context.Background(), 300*time.Millisecond)
		if len(list) != 2 {
			return fmt.Errorf("%d instances", len(list))
		}
		return nil
	})
	before := taken("seat")
	first.stop(syscall.SIGTERM)
	if now := waitHolder(t, c, second); now == holder {
		t.Fatalf("the seat stayed with %s", holder)
	}
	writes(t, needs, 3, 150)
	f.equalsBucket(t, needs, "n1", "after a seat handover")
	eventually(t, 10*time.Second, 50*time.Millisecond, "a fresh snapshot after the handover", func() error {
		if taken("seat") == before {
			return fmt.Errorf("none yet")
		}
		return nil
	})
	cancel()
	eventually(t, 5*time.Second, 20*time.Millisecond, "the channel closes when ctx ends", func() error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.closed {
			return nil
		}
		return fmt.Errorf("still open")
	})
	errMu.Lock()
	t.Logf("%d views, %d not synced; %d snapshot errors retried", f.views, f.unsynced, len(errs))
	errMu.Unlock()
}

// A watch that cannot keep up (its subscription drops events) takes a fresh
// snapshot and ends equal to the bucket.
func TestWatchAfterASlowConsumer(t *testing.T) {
	srv := startNATS(t, "")
	svc := startService(t, srv.URL)
	nc := srv.connect(t, nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
	var mu sync.Mutex
	var errs []string
	c := NewClient(nc, WithSeatCheck(0), WithErrorHandler(func(err error) {
		mu.Lock()
		errs = append(errs, err.Error())
		mu.Unlock()
	}))
	c.feedPending, c.feedBuffer = 4, 1
	// The watch's loop stops at its first event until the burst is in the bucket.
	release := make(chan struct{})
	var once sync.Once
	c.onEvent = func(string) { once.Do(func() { <-release }) }
	waitHolder(t, c, svc)
	needs := bucket(t, nc, Needs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := c.Watch(ctx, Request{What: Needs, Node: "n1"})
	if err != nil {
		t.Fatal(err)
	}
	f := follow(ch)
	f.equalsBucket(t, needs, "n1", "at the start")
	js, _ := jetstream.New(nc)
	keys := make([]string, 300)
	for i := range keys {
		keys[i] = fmt.Sprintf("n1.web.config.k%d", i)
	}
	publishAll(t, js, "mesh-provisioner_needs", keys, []byte("{}"), 0)
	close(release)
	f.equalsBucket(t, needs, "n1", "after events were dropped")
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, "dropped") }) {
		t.Fatalf("no drop was seen: %v", errs)
	}
}
