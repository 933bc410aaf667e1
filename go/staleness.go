package provisioner

import (
	"encoding/json"
	"math"
	"time"
)

// Staleness is what an answer says when the projection that answered it had
// heard nothing from its bucket's stream for longer than the service's
// --stale-after (a site cut off from its hub): its entries are the bucket's
// at Revision, maybe not the bucket's now (docs/protocol.md, "Stale answers").
type Staleness struct {
	// Since is the last moment the projection heard from its stream.
	Since time.Time
	// Silent is how long before the answer that was, as the answering
	// instance measured it (no clock skew between it and the client).
	Silent time.Duration
	// Revision is the revision of the bucket the projection holds.
	Revision uint64
}

// maxExact is the largest integer a JSON number holds exactly in every
// client (2^53-1, JavaScript's Number.MAX_SAFE_INTEGER).
const maxExact = 1<<53 - 1

// readStaleness reads a `stale` as a reply or an error body carries it. Absent
// or null is no staleness, and so is one out of shape (not an object, since
// not an RFC 3339 time, silentMs or revision not a non-negative integer): the
// answer's entries stand, only the warning is unreadable, and it is dropped
// rather than the answer. Fields it does not know are ignored. The TypeScript
// client reads it by the same rules (vectors/staleness.json).
func readStaleness(raw json.RawMessage) *Staleness {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var f struct {
		Since    any `json:"since"`
		SilentMs any `json:"silentMs"`
		Revision any `json:"revision"`
	}
	if json.Unmarshal(raw, &f) != nil {
		return nil
	}
	text, ok := f.Since.(string)
	if !ok {
		return nil
	}
	since, err := time.Parse(time.RFC3339Nano, text)
	silent, okSilent := count(f.SilentMs)
	revision, okRevision := count(f.Revision)
	if err != nil || !okSilent || !okRevision {
		return nil
	}
	return &Staleness{Since: since, Silent: time.Duration(silent) * time.Millisecond, Revision: revision}
}

// count is v as a non-negative integer that JSON holds exactly.
func count(v any) (uint64, bool) {
	f, ok := v.(float64)
	if !ok || f < 0 || f > maxExact || f != math.Trunc(f) {
		return 0, false
	}
	return uint64(f), true
}

// oldestStaleness is the staleness of an answer merged from pages: the page's
// whose Since is the oldest (the one that had heard nothing for the longest),
// or nil when no page was stale. On a tie, the first seen.
func oldestStaleness(a, b *Staleness) *Staleness {
	switch {
	case a == nil:
		return b
	case b == nil || !b.Since.Before(a.Since):
		return a
	}
	return b
}
