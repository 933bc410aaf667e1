package provisioner

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

const ms = time.Millisecond

// fixed is a backoff over 100 ms..1 s whose every draw is r.
func fixed(r float64) *backoff {
	b := newBackoff(100*ms, time.Second)
	b.random = func() float64 { return r }
	return b
}

func nextN(b *backoff, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = b.Next()
	}
	return out
}

func TestBackoffWaitGrowsAndIsCapped(t *testing.T) {
	got := nextN(fixed(1), 7)
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second, time.Second}
	if !slices.Equal(got, want) {
		t.Fatalf("waits = %v, want %v", got, want)
	}
}

func TestBackoffJitterSpansTheCeilingsUpperHalf(t *testing.T) {
	for _, c := range []struct {
		r    float64
		want []time.Duration
	}{
		{0, []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 500 * ms, 500 * ms}},
		{0.5, []time.Duration{75 * ms, 150 * ms, 300 * ms, 600 * ms, 750 * ms, 750 * ms}},
		{1, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second}},
		// Draws outside [0, 1] stay within the range.
		{-3, []time.Duration{50 * ms}},
		{7, []time.Duration{100 * ms}},
	} {
		if got := nextN(fixed(c.r), len(c.want)); !slices.Equal(got, c.want) {
			t.Errorf("draw %v: waits = %v, want %v", c.r, got, c.want)
		}
	}
}

func TestBackoffResetReturnsToTheBase(t *testing.T) {
	b := fixed(1)
	nextN(b, 5)
	b.Reset()
	if got := b.Next(); got != 100*ms {
		t.Fatalf("after Reset, Next() = %v, want the base 100ms", got)
	}
}

func TestBackoffTwoInstancesDoNotRetryInLockstep(t *testing.T) {
	// Both fail at the same moment (a service restarting), and every try after it fails too.
	moments := func(seed uint64) []time.Duration {
		b := newBackoff(snapshotRetryBase, snapshotRetryCap)
		b.random = rand.New(rand.NewPCG(seed, seed)).Float64
		var at time.Duration
		out := make([]time.Duration, 10)
		for i := range out {
			at += b.Next()
			out[i] = at
		}
		return out
	}
	a, b := moments(1), moments(2)
	if !slices.Equal(a, moments(1)) {
		t.Fatal("the same draws give different waits: the comparison below would not be the draws'")
	}
	for i := range a {
		if a[i] == b[i] {
			t.Errorf("try %d: both at %v", i+1, a[i])
		}
	}
}

func TestBackoffDrawsFromMathRandByDefault(t *testing.T) {
	seen := map[time.Duration]bool{}
	for range 100 {
		w := newBackoff(snapshotRetryBase, snapshotRetryCap).Next()
		if w < snapshotRetryBase/2 || w > snapshotRetryBase {
			t.Fatalf("first wait %v outside [%v, %v]", w, snapshotRetryBase/2, snapshotRetryBase)
		}
		seen[w] = true
	}
	if len(seen) < 50 {
		t.Fatalf("100 first waits took only %d values: not drawn at random", len(seen))
	}
}

func TestBackoffLongOutageStaysAtTheCap(t *testing.T) {
	b := fixed(1)
	nextN(b, 10_000)
	if got := b.Next(); got != time.Second {
		t.Fatalf("after 10 000 failures Next() = %v, want the cap 1s", got)
	}
}
