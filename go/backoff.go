package provisioner

import (
	"math/rand/v2"
	"time"
)

// A watch's failed snapshot is tried again after a wait whose ceiling starts
// here and doubles up to the cap: the TypeScript client's BACKOFF.snapshot.
const (
	snapshotRetryBase = 100 * time.Millisecond
	snapshotRetryCap  = 5 * time.Second
)

// backoff is the retry policy the TypeScript side has in
// client/src/backoff/backoff.ts: the wait's ceiling is base·2^(failures−1), never
// past limit, and the wait is drawn from the ceiling's upper half ("equal
// jitter"), so every wait lies in [ceiling − ceiling/2, ceiling]. Reset, after
// a success, starts the next failure from the base again.
//
// The jitter keeps clients that failed together (a service restarting) from
// asking again together; equal rather than full jitter (a draw from
// [0, ceiling]) so that a run of small draws never retries at once however
// long the outage has lasted: the lower half still grows with it.
//
// A backoff is not safe for concurrent use; a watch's run loop owns its own.
type backoff struct {
	base, limit time.Duration
	failures    int
	// random returns a number in [0, 1]: rand.Float64, or a test's draws.
	random func() float64
}

func newBackoff(base, limit time.Duration) *backoff {
	return &backoff{base: base, limit: limit, random: rand.Float64}
}

// Next counts a failure and returns the wait before the next try.
func (b *backoff) Next() time.Duration {
	b.failures++
	c := b.ceiling(b.failures - 1)
	half := c / 2
	r := min(1, max(0, b.random()))
	return c - half + time.Duration(r*float64(half))
}

// Reset is called after a success: the next failure waits from the base.
func (b *backoff) Reset() { b.failures = 0 }

// ceiling is base doubled n times, never past limit (doubled step by step, so
// a long outage's count cannot overflow it).
func (b *backoff) ceiling(n int) time.Duration {
	c := b.base
	for i := 0; i < n && c > 0 && c < b.limit; i++ {
		c *= 2
	}
	return min(c, b.limit)
}
