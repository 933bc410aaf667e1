package provisioner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// What names a bucket the verb answers for.
type What string

// The four buckets.
const (
	Registry What = "registry"
	Needs    What = "needs"
	Applied  What = "applied"
	Collect  What = "collect"
)

var whats = []What{Registry, Needs, Applied, Collect}

// Request is what to ask the verb (docs/protocol.md, "The request"). A zero
// field is absent: What "" is the registry, Limit 0 lets the client choose the
// page size, After "" starts at the first key, MinRevision 0 does not wait.
//
// Filters combine (all must match) and must apply to the bucket: Node and
// Module for needs and applied, Node, Contributor and Collection (a name, not
// its escaped form) for collect, none for the registry.
type Request struct {
	What        What   `json:"what,omitempty"`
	Node        string `json:"node,omitempty"`
	Module      string `json:"module,omitempty"`
	Contributor string `json:"contributor,omitempty"`
	Collection  string `json:"collection,omitempty"`
	// Limit is at most this many entries per page (1 to 100,000).
	Limit int `json:"limit,omitempty"`
	// After continues strictly after this key: the Next of the previous page.
	After string `json:"after,omitempty"`
	// MinRevision asks for an answer only once the projection has reached
	// this revision of the bucket (the revision a write returned).
	MinRevision uint64 `json:"minRevision,omitempty"`
}

// The verb's bounds on one request (the service's LIMITS).
const (
	maxRequestBytes     = 16 * 1024
	maxLimit            = 100_000
	maxAfterLength      = 4096
	maxCollectionLength = 1024
)

// filtersFor is which narrowing fields apply to which bucket, in the order the
// service checks them.
var filtersFor = map[What][]string{
	Registry: nil,
	Needs:    {"node", "module"},
	Applied:  {"node", "module"},
	Collect:  {"node", "contributor", "collection"},
}

func (r Request) what() What {
	if r.What == "" {
		return Registry
	}
	return r.What
}

// filters is the request's narrowing, field to value, in the service's order.
func (r Request) filters() map[string]string {
	f := map[string]string{}
	for _, kv := range [][2]string{{"node", r.Node}, {"module", r.Module}, {"contributor", r.Contributor}, {"collection", r.Collection}} {
		if kv[1] != "" {
			f[kv[0]] = kv[1]
		}
	}
	return f
}

// Validate checks the request as the service does, and fails with a local
// *VerbError that matches ErrBadRequest (and ErrRequestTooLarge for a body
// over the verb's bound) where the service would refuse it. The client checks
// before it asks, and before a watch subscribes: a filter such as "n1.*"
// would otherwise widen the feed subscription made from it.
func (r Request) Validate() error {
	// The service measures the body before it reads it.
	if b, err := json.Marshal(r); err == nil && len(b) > maxRequestBytes {
		e := localRefusal("the request is %d bytes, over the bound of %d", len(b), maxRequestBytes)
		e.kind = ErrRequestTooLarge
		return e
	}
	var problems []string
	what := r.what()
	if !slices.Contains(whats, what) {
		problems = append(problems, fmt.Sprintf("what %q is not one of registry, needs, applied, collect", what))
	}
	for _, f := range [][2]string{{"node", r.Node}, {"module", r.Module}, {"contributor", r.Contributor}} {
		if f[1] != "" && !isPlainToken(f[1]) {
			problems = append(problems, fmt.Sprintf("%s %q is %s", f[0], f[1], notPlain))
		}
	}
	// The service bounds names in characters (code points), not bytes.
	if n := utf8.RuneCountInString(r.Collection); n > maxCollectionLength {
		problems = append(problems, fmt.Sprintf("collection is %d characters, over the bound of %d", n, maxCollectionLength))
	}
	if r.Limit < 0 {
		problems = append(problems, fmt.Sprintf("limit %d is below 1", r.Limit))
	} else if r.Limit > maxLimit {
		problems = append(problems, fmt.Sprintf("limit %d is over the bound of %d; page with Next and After for more", r.Limit, maxLimit))
	}
	if n := utf8.RuneCountInString(r.After); n > maxAfterLength {
		problems = append(problems, fmt.Sprintf("after is %d characters, over the bound of %d", n, maxAfterLength))
	}
	if problems != nil {
		return localRefusal("%s", strings.Join(problems, "; "))
	}
	allowed := filtersFor[what]
	for _, f := range []string{"node", "module", "contributor", "collection"} {
		if _, set := r.filters()[f]; set && !slices.Contains(allowed, f) {
			return localRefusal("filter %s does not apply to %s, which takes %s", f, what, filterList(allowed))
		}
	}
	return nil
}

// filterList says which filters a bucket takes.
func filterList(allowed []string) string {
	if len(allowed) == 0 {
		return "none"
	}
	return strings.Join(allowed, ", ")
}

// body is the request's JSON.
func (r Request) body() ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("mesh-provisioner: encode the request: %w", err)
	}
	return b, nil
}
