package provisioner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The measurements of issue 23, run only with MESH_BENCH=1 (minutes, and
// the whole machine): not part of `go test ./...` in CI.
//
//	MESH_BENCH=1 go test -run Measure -v -timeout 30m ./...

func benchOnly(t *testing.T) {
	if os.Getenv("MESH_BENCH") != "1" {
		t.Skip("a measurement: run with MESH_BENCH=1")
	}
}

// publishAll puts keys (with value) through JetStream at most perSecond a
// second (0: as fast as acknowledged), and returns the last sequence.
func publishAll(t *testing.T, js jetstream.JetStream, bucket string, keys []string, value []byte, perSecond int) uint64 {
	t.Helper()
	var last uint64
	pending := make([]jetstream.PubAckFuture, 0, 1024)
	drain := func() {
		for _, f := range pending {
			select {
			case a := <-f.Ok():
				last = max(last, a.Sequence)
			case err := <-f.Err():
				t.Fatal(err)
			case <-time.After(30 * time.Second):
				t.Fatal("a put was not acknowledged")
			}
		}
		pending = pending[:0]
	}
	start := time.Now()
	for i, k := range keys {
		if perSecond > 0 {
			if due := start.Add(time.Duration(i) * time.Second / time.Duration(perSecond)); time.Until(due) > 0 {
				time.Sleep(time.Until(due))
			}
		}
		f, err := js.PublishAsync("$KV."+bucket+"."+k, value)
		if err != nil {
			t.Fatal(err)
		}
		if pending = append(pending, f); len(pending) == cap(pending) {
			drain()
		}
	}
	drain()
	return last
}

// TestMeasureWatchOneNode: a Watch of one node, while the mesh writes 1,000
// needs a second for other nodes, receives only that node's events.
func TestMeasureWatchOneNode(t *testing.T) {
	benchOnly(t)
	srv := startNATS(t, "")
	svc := startService(t, srv.URL)
	nc := srv.connect(t)
	var received atomic.Int64
	var foreign atomic.Int64
	c := NewClient(nc)
	c.onEvent = func(subject string) {
		received.Add(1)
		if !strings.HasPrefix(subject, FeedPrefix+".needs.n0.") {
			foreign.Add(1)
		}
	}
	waitHolder(t, c, svc)
	js, _ := jetstream.New(nc)
	// Every event the service publishes, to compare.
	var published atomic.Int64
	all, _ := nc.Subscribe(FeedPrefix+".needs.>", func(*nats.Msg) { published.Add(1) })
	defer all.Unsubscribe()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := c.Watch(ctx, Request{What: Needs, Node: "n0"})
	if err != nil {
		t.Fatal(err)
	}
	f := follow(ch)
	needs := bucket(t, nc, Needs)
	f.equalsBucket(t, needs, "n0", "at the start")

	const seconds, rate, mine = 10, 1000, 100
	others := make([]string, seconds*rate)
	for i := range others {
		others[i] = fmt.Sprintf("n%d.web.config.k%d", 1+i%100, i)
	}
	done := make(chan uint64)
	start := time.Now()
	go func() { done <- publishAll(t, js, "mesh-provisioner_needs", others, []byte(`{"v":1}`), rate) }()
	for i := range mine {
		if due := start.Add(time.Duration(i) * seconds * time.Second / mine); time.Until(due) > 0 {
			time.Sleep(time.Until(due))
		}
		if _, err := needs.Put(ctx, fmt.Sprintf("n0.web.config.k%d", i), []byte(`{"v":2}`)); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	elapsed := time.Since(start)
	f.equalsBucket(t, needs, "n0", "after the writes")
	eventually(t, 10*time.Second, 50*time.Millisecond, "the feed published every write", func() error {
		if n := published.Load(); n < int64(len(others)+mine) {
			return fmt.Errorf("%d published", n)
		}
		return nil
	})
	t.Logf("MEASURED watch of n0: %d writes elsewhere + %d to n0 in %v (%.0f writes/s); the service published %d events; the watch received %d (expected %d), %d of another node",
		len(others), mine, elapsed.Round(time.Millisecond), float64(len(others)+mine)/elapsed.Seconds(), published.Load(), received.Load(), mine, foreign.Load())
	if received.Load() != mine || foreign.Load() != 0 {
		t.Fatalf("received %d events (%d foreign), expected %d", received.Load(), foreign.Load(), mine)
	}
}

// byHand asks the pages of r one after another as a user would without the
// client: request, decode into the same types, follow next. With typed
// false it reads only each page's revision and next (the floor: no entries
// kept).
func byHand(ctx context.Context, t *testing.T, nc *nats.Conn, r Request, typed bool) (int, int) {
	t.Helper()
	var entries []NeedsEntry
	count, pages := 0, 0
	for first := true; ; first = false {
		body, _ := json.Marshal(r)
		m, err := nc.RequestWithContext(ctx, VerbSubject, body)
		if err != nil {
			t.Fatal(err)
		}
		var p pageOf[NeedsEntry]
		if typed {
			err = json.Unmarshal(m.Data, &p)
			entries = append(entries, p.Entries...)
			count = len(entries)
		} else {
			var head struct {
				Revision uint64
				Entries  []struct{}
				Next     *string
			}
			err = json.Unmarshal(m.Data, &head)
			p.Revision, p.Next, count = head.Revision, head.Next, count+len(head.Entries)
		}
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if p.Next == nil {
			return count, pages
		}
		if first {
			r.MinRevision = max(r.MinRevision, p.Revision)
		}
		r.After = *p.Next
	}
}

// TestMeasureGet1M: Get of a 1M-key bucket, every page merged, against
// asking the same pages by hand.
func TestMeasureGet1M(t *testing.T) {
	benchOnly(t)
	const n = 1_000_000
	srv := startNATS(t, "")
	svc := startService(t, srv.URL, "--bucket-max-bytes", "1GiB", "--max-wait", "60s")
	nc := srv.connect(t)
	c := NewClient(nc, WithTimeout(2*time.Minute))
	waitHolder(t, c, svc)
	js, _ := jetstream.New(nc)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("n%d.web.config.k%d", i%10_000, i)
	}
	start := time.Now()
	last := publishAll(t, js, "mesh-provisioner_needs", keys, []byte(`{"default":8080,"note":"a need"}`), 0)
	t.Logf("loaded %d keys in %v", n, time.Since(start).Round(time.Millisecond))
	ctx := context.Background()
	eventually(t, 10*time.Minute, time.Second, "the service applied every put", func() error {
		list, err := c.Instances(ctx, 300*time.Millisecond)
		if err != nil || len(list) == 0 || list[0].Revisions[Needs] < last {
			return fmt.Errorf("%v %v", list, err)
		}
		return nil
	})
	r := Request{What: Needs, MinRevision: last}
	var hand, bare, get []time.Duration
	timed := func(f func() int) (time.Duration, int) {
		t0 := time.Now()
		n := f()
		return time.Since(t0), n
	}
	for round := range 7 {
		var h, b, g time.Duration
		var hn, bn, gn, pages int
		runs := []func(){
			func() { h, hn = timed(func() int { n, p := byHand(ctx, t, nc, r, true); pages = p; return n }) },
			func() { b, bn = timed(func() int { n, _ := byHand(ctx, t, nc, r, false); return n }) },
			func() {
				g, gn = timed(func() int {
					a, err := c.Get(ctx, r)
					if err != nil {
						t.Fatal(err)
					}
					return len(a.Entries)
				})
			},
		}
		// Each round starts with another of the three, so a drift of the machine falls on each alike.
		for i := range runs {
			runs[(round+i)%len(runs)]()
		}
		if hn != n || bn != n || gn != n {
			t.Fatalf("entries: by hand %d, bare %d, Get %d", hn, bn, gn)
		}
		t.Logf("round %d: %d pages; by hand %v, next only %v, Get %v (%.2fx by hand)", round, pages, h.Round(time.Millisecond), b.Round(time.Millisecond), g.Round(time.Millisecond), g.Seconds()/h.Seconds())
		if round > 0 { // the first round warms all three up
			hand, bare, get = append(hand, h), append(bare, b), append(get, g)
		}
	}
	median := func(d []time.Duration) time.Duration {
		s := slices.Clone(d)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[len(s)/2]
	}
	ratio := median(get).Seconds() / median(hand).Seconds()
	t.Logf("MEASURED Get of %d keys: medians of %d rounds: by hand %v, next only %v, Get %v: %.2fx by hand, %.2fx next only (target <= 1.2x by hand)",
		n, len(get), median(hand).Round(time.Millisecond), median(bare).Round(time.Millisecond), median(get).Round(time.Millisecond), ratio, median(get).Seconds()/median(bare).Seconds())
	if ratio > 1.2 {
		t.Errorf("Get took %.2fx the pages by hand", ratio)
	}
}
