package provisioner

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

// The shared vectors (../vectors, written from the TypeScript implementation
// by scripts/write-vectors.mjs): the Go client must give the same answer for
// every case, so the two clients cannot drift. A refusal is held by its code,
// which names the sentinel the Go error must match; its wording is each
// client's own.

// sentinels are the Go errors the vectors' codes stand for.
var sentinels = map[string]error{
	"E_BAD_REQUEST":      ErrBadRequest,
	"E_REQUEST_BOUND":    ErrRequestTooLarge,
	"E_FORBIDDEN":        ErrForbidden,
	"E_NOT_SYNCED":       ErrNotSynced,
	"E_REVISION_TIMEOUT": ErrRevisionTimeout,
	"E_INTERNAL":         ErrInternal,
}

// isRefusal reports whether err is the refusal code names, and no finer one:
// an E_BAD_REQUEST must not be an ErrRequestTooLarge.
func isRefusal(err error, code string) bool {
	want, ok := sentinels[code]
	if !ok || !errors.Is(err, want) {
		return false
	}
	return want != ErrBadRequest || !errors.Is(err, ErrRequestTooLarge)
}

// isKeyRefusal: a key builder's or the codec's refusal is a *KeyError that
// matches ErrInvalidKey, and the vector's code.
func isKeyRefusal(err error, code string) bool {
	var ke *KeyError
	return errors.As(err, &ke) && errors.Is(err, ErrInvalidKey) && isRefusal(err, code)
}

func readVectors(t *testing.T, name string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "vectors", name))
	if err != nil {
		t.Fatalf("the shared vectors: %v", err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("vectors/%s: %v", name, err)
	}
}

func TestVectorsHex(t *testing.T) {
	var v struct {
		Valid       []struct{ Name, Escaped string }
		Invalid     []struct{ Escaped, Code string }
		Unencodable []struct{ Name, Bytes, Code string }
	}
	readVectors(t, "hex.json", &v)
	if len(v.Valid) < 20 || len(v.Invalid) < 20 {
		t.Fatalf("too few cases: %d valid, %d invalid", len(v.Valid), len(v.Invalid))
	}
	for _, c := range v.Valid {
		got, err := EncodeCollection(c.Name)
		if err != nil || got != c.Escaped {
			t.Errorf("EncodeCollection(%q) = %q, %v; want %q", c.Name, got, err, c.Escaped)
		}
		name, err := DecodeCollection(c.Escaped)
		if err != nil || name != c.Name {
			t.Errorf("DecodeCollection(%q) = %q, %v; want %q", c.Escaped, name, err, c.Name)
		}
	}
	for _, c := range v.Invalid {
		if name, err := DecodeCollection(c.Escaped); !isKeyRefusal(err, c.Code) {
			t.Errorf("DecodeCollection(%q) = %q, %v; want a refusal %s", c.Escaped, name, err, c.Code)
		}
	}
	for _, c := range v.Unencodable {
		// Go holds a lone surrogate as its three bytes, which are not UTF-8.
		b, err := hex.DecodeString(c.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := EncodeCollection(string(b)); !isKeyRefusal(err, c.Code) {
			t.Errorf("EncodeCollection(% x) = %q, %v; want a refusal %s", b, got, err, c.Code)
		}
	}
}

func TestVectorsKeys(t *testing.T) {
	var v struct {
		KnownKinds []string
		Shapes     []struct {
			What     What
			Key      string
			OK       bool
			Fields   map[string]string
			Readable map[string]string
		}
		Builders []struct {
			Fn   string
			Args []string
			Key  string
			Code string
		}
	}
	readVectors(t, "keys.json", &v)
	for _, c := range v.Shapes {
		s := parseKey(c.What, c.Key, v.KnownKinds)
		if s.ok != c.OK || (c.OK && !reflect.DeepEqual(s.fields, c.Fields)) || (!c.OK && !reflect.DeepEqual(s.readable, c.Readable)) {
			t.Errorf("%s %q:\n got %v %v %v\nwant %v %v %v", c.What, c.Key, s.ok, s.fields, s.readable, c.OK, c.Fields, c.Readable)
		}
	}
	for _, c := range v.Builders {
		var (
			key string
			err error
		)
		switch c.Fn {
		case "needsKey":
			key, err = NeedsKey(c.Args[0], c.Args[1], c.Args[2], c.Args[3])
		case "appliedKey":
			key, err = AppliedKey(c.Args[0], c.Args[1])
		case "collectKey":
			key, err = CollectKey(c.Args[0], c.Args[1], c.Args[2])
		default:
			t.Fatalf("unknown builder %s", c.Fn)
		}
		if c.Code != "" {
			if !isKeyRefusal(err, c.Code) {
				t.Errorf("%s%q = %q, %v; want a refusal %s", c.Fn, c.Args, key, err, c.Code)
			}
		} else if err != nil || key != c.Key {
			t.Errorf("%s%q = %q, %v; want %q", c.Fn, c.Args, key, err, c.Key)
		}
	}
}

// requestOf is the body as a Request, when a Request can say it: an object
// of the known fields, strings for the filters (not empty: "" is absent in
// Go), whole numbers for limit (not 0) and minRevision (not negative).
func requestOf(body string) (Request, bool) {
	text := strings.TrimSpace(body)
	if text == "" {
		return Request{}, true
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil {
		return Request{}, false
	}
	var r Request
	for k, v := range m {
		switch v := v.(type) {
		case string:
			if v == "" {
				return r, false
			}
			switch k {
			case "what":
				r.What = What(v)
			case "node":
				r.Node = v
			case "module":
				r.Module = v
			case "contributor":
				r.Contributor = v
			case "collection":
				r.Collection = v
			case "after":
				r.After = v
			default:
				return r, false
			}
		case json.Number:
			n, err := v.Int64()
			if err != nil {
				return r, false
			}
			switch {
			case k == "limit" && n != 0:
				r.Limit = int(n)
			case k == "minRevision" && n > 0:
				r.MinRevision = uint64(n)
			default:
				return r, false
			}
		default:
			return r, false
		}
	}
	return r, true
}

func TestVectorsRequests(t *testing.T) {
	var v struct {
		Cases []struct {
			Body   string
			OK     bool
			Parsed map[string]any
			Status int
			Code   string
		}
	}
	readVectors(t, "requests.json", &v)
	checked := 0
	for _, c := range v.Cases {
		r, ok := requestOf(c.Body)
		if !ok {
			continue
		}
		checked++
		err := r.Validate()
		if err == nil {
			_, err = r.body()
		}
		label := c.Body
		if len(label) > 80 {
			label = label[:80] + "…"
		}
		if c.OK {
			if err != nil {
				t.Errorf("%s: refused: %v", label, err)
				continue
			}
			got := map[string]any{"what": string(r.what()), "filters": map[string]any{}}
			for f, val := range r.filters() {
				got["filters"].(map[string]any)[f] = val
			}
			if r.Limit != 0 {
				got["limit"] = float64(r.Limit)
			}
			if r.After != "" {
				got["after"] = r.After
			}
			if r.MinRevision != 0 {
				got["minRevision"] = float64(r.MinRevision)
			}
			if !reflect.DeepEqual(got, c.Parsed) {
				t.Errorf("%s: read as %v, the service reads %v", label, got, c.Parsed)
			}
			// What the client sends is what the body says.
			sent, _ := r.body()
			var a, b any
			_ = json.Unmarshal(sent, &a)
			if strings.TrimSpace(c.Body) != "" {
				_ = json.Unmarshal([]byte(c.Body), &b)
				if !reflect.DeepEqual(a, b) {
					t.Errorf("%s: sent as %s", label, sent)
				}
			}
			continue
		}
		var ve *VerbError
		if !errors.As(err, &ve) || ve.Code != c.Status || !ve.Local || !isRefusal(err, c.Code) {
			t.Errorf("%s:\n got %v\nwant a local %d %s", label, err, c.Status, c.Code)
		}
	}
	if checked < 40 {
		t.Errorf("only %d of %d cases could be said as a Request", checked, len(v.Cases))
	}
	t.Logf("%d of %d request cases checked (the rest cannot be said by a Request: wrong types, unknown fields, not JSON)", checked, len(v.Cases))
}

// sameJSON: b, re-encoded from Go's types, says what a says; fields of a that
// Go has no field for must be in the entry's Value (the registry's extras).
func sameJSON(t *testing.T, label string, raw json.RawMessage, typed any) {
	t.Helper()
	enc, err := json.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	var want, got map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(enc, &got)
	for k, wv := range want {
		gv, ok := got[k]
		if !ok {
			if value, isObj := want["value"].(map[string]any); isObj && reflect.DeepEqual(value[k], wv) {
				continue
			}
		}
		if !reflect.DeepEqual(gv, wv) {
			t.Errorf("%s: field %q: Go has %v, the fixture %v", label, k, gv, wv)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: Go adds a field %q", label, k)
		}
	}
}

func TestVectorsReplies(t *testing.T) {
	var v struct {
		Replies []struct {
			Reply json.RawMessage
		}
		Errors []struct {
			Code    int
			Headers map[string]string
		}
	}
	// The sentinel each status the service answers with must match.
	byStatus := map[int]error{400: ErrBadRequest, 503: ErrNotSynced, 504: ErrRevisionTimeout, 500: ErrInternal}
	readVectors(t, "replies.json", &v)
	for i, r := range v.Replies {
		var head struct {
			What    What
			Entries []json.RawMessage
		}
		if err := json.Unmarshal(r.Reply, &head); err != nil {
			t.Fatal(err)
		}
		// Compact, as the service sends it, so the head and tail scan applies.
		var compact bytes.Buffer
		_ = json.Compact(&compact, r.Reply)
		p, err := decodePage(head.What, compact.Bytes())
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		raw := scanPage(compact.Bytes())
		if raw.err != nil || raw.revision != p.Revision || raw.next != p.Next || raw.hasNext != p.HasNext {
			t.Errorf("reply %d: the scan read %d %q %v, the decode %d %q %v", i, raw.revision, raw.next, raw.hasNext, p.Revision, p.Next, p.HasNext)
		}
		if len(p.Entries) != len(head.Entries) {
			t.Fatalf("reply %d: %d entries of %d", i, len(p.Entries), len(head.Entries))
		}
		for j, e := range p.Entries {
			sameJSON(t, string(head.What)+" entry "+e.EntryKey(), head.Entries[j], e)
		}
	}
	for _, e := range v.Errors {
		h := nats.Header{}
		for k, val := range e.Headers {
			h.Set(k, val)
		}
		err := serviceError(h, nil)
		var ve *VerbError
		if !errors.As(err, &ve) || ve.Code != e.Code || ve.Local || !errors.Is(err, byStatus[e.Code]) {
			t.Errorf("headers %v: %v, want a %d matching %v", e.Headers, err, e.Code, byStatus[e.Code])
			continue
		}
		if want := e.Code != 400; ve.Retryable() != want {
			t.Errorf("code %d: Retryable() = %v", e.Code, ve.Retryable())
		}
	}
	if err := serviceError(nats.Header{}, nil); err != nil {
		t.Errorf("a reply without Nats-Service-Error-Code is %v", err)
	}
}

func TestVectorsFeedEvents(t *testing.T) {
	var v struct {
		Events []struct {
			Subject string
			Event   json.RawMessage
		}
	}
	readVectors(t, "feed-events.json", &v)
	for _, c := range v.Events {
		ev, err := decodeEvent(c.Event)
		if err != nil {
			t.Fatalf("%s: %v", c.Event, err)
		}
		if c.Subject != FeedPrefix+"."+string(ev.What)+"."+ev.Key {
			t.Errorf("%s: subject %s", c.Event, c.Subject)
		}
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(c.Event, &fields)
		switch {
		case fields["entry"] != nil:
			if ev.Entry == nil || ev.Entry.EntryKey() != ev.Key {
				t.Errorf("%s: entry %v", c.Event, ev.Entry)
			}
			sameJSON(t, c.Subject, fields["entry"], ev.Entry)
		case fields["outOfShape"] != nil:
			if ev.OutOfShape == nil || ev.OutOfShape.Key != ev.Key || ev.OutOfShape.Reason == "" {
				t.Errorf("%s: out of shape %v", c.Event, ev.OutOfShape)
			}
		default:
			if ev.Op != "delete" {
				t.Errorf("%s: op %s", c.Event, ev.Op)
			}
		}
	}
}

// scopeCase is one case of vectors/scopes.json.
type scopeCase struct {
	Scope   json.RawMessage
	Request Request
	Asks    string
	Status  int
	Code    string
	Node    *string
}

// clientOf is a client (no connection: nothing is sent) of a vector's scope:
// "mesh", "needs" or {"node":"n1"}.
func clientOf(t *testing.T, scope json.RawMessage) *Client {
	t.Helper()
	var name string
	if json.Unmarshal(scope, &name) == nil {
		switch name {
		case "mesh":
			return NewClient(nil)
		case "needs":
			return NewClient(nil, WithNeedsScope())
		}
		t.Fatalf("unknown scope %s", scope)
	}
	var node struct{ Node string }
	if err := json.Unmarshal(scope, &node); err != nil || node.Node == "" {
		t.Fatalf("unknown scope %s", scope)
	}
	return NewClient(nil, WithNode(node.Node))
}

func TestVectorsScopes(t *testing.T) {
	var v struct {
		Subjects []struct {
			Scope   json.RawMessage
			Subject string
		}
		Cases []scopeCase
	}
	readVectors(t, "scopes.json", &v)
	if len(v.Subjects) != 3 || len(v.Cases) < 20 {
		t.Fatalf("too few cases: %d subjects, %d cases", len(v.Subjects), len(v.Cases))
	}
	for _, s := range v.Subjects {
		if got := clientOf(t, s.Scope).subjectFor(Request{}); got != s.Subject {
			t.Errorf("scope %s answers on %q, want %q", s.Scope, got, s.Subject)
		}
	}
	for _, tc := range v.Cases {
		c := clientOf(t, tc.Scope)
		r := c.scoped(tc.Request)
		if got := c.subjectFor(r); got != tc.Asks {
			t.Errorf("scope %s, request %+v: asked on %q, want %q", tc.Scope, tc.Request, got, tc.Asks)
		}
		// What the client refuses before it subscribes (Watch) is what the service answers with a 403.
		var ve *VerbError
		if err := c.refused(r); tc.Status == 403 {
			if !errors.As(err, &ve) || ve.Code != 403 || !ve.Local || !isRefusal(err, tc.Code) {
				t.Errorf("scope %s, request %+v: refused with %v, want a local 403 %s", tc.Scope, tc.Request, err, tc.Code)
			}
		} else if err != nil {
			t.Errorf("scope %s, request %+v: refused with %v, want %d", tc.Scope, tc.Request, err, tc.Status)
		}
		// A node's client sends the node it is narrowed to; the others send the request as it is.
		if c.node != "" && tc.Status == 200 {
			want := ""
			if tc.Node != nil {
				want = *tc.Node
			}
			if r.Node != want {
				t.Errorf("scope %s, request %+v: sent for node %q, want %q", tc.Scope, tc.Request, r.Node, want)
			}
		}
	}
}

// The scope's options: the last given wins, each defaults its grant's inbox
// prefix, and a node that is not a plain token fails every request with a 400.
func TestScopeOptions(t *testing.T) {
	for _, tc := range []struct {
		name            string
		c               *Client
		subject, prefix string
	}{
		{"mesh", NewClient(nil), VerbSubject, ""},
		{"node", NewClient(nil, WithNode("n1")), NodeVerbSubject("n1"), NodeInboxPrefix("n1")},
		{"needs", NewClient(nil, WithNeedsScope()), NeedsVerbSubject, ProviderInboxPrefix},
		{"node, then needs", NewClient(nil, WithNode("n1"), WithNeedsScope()), NeedsVerbSubject, ProviderInboxPrefix},
		{"needs, then node", NewClient(nil, WithNeedsScope(), WithNode("n1")), NodeVerbSubject("n1"), NodeInboxPrefix("n1")},
		{"node, own prefix", NewClient(nil, WithInboxPrefix("_INBOX_x"), WithNode("n1")), NodeVerbSubject("n1"), "_INBOX_x"},
	} {
		if got := tc.c.subjectFor(Request{What: Needs}); got != tc.subject {
			t.Errorf("%s: asks on %q, want %q", tc.name, got, tc.subject)
		}
		if tc.c.inboxPrefix != tc.prefix {
			t.Errorf("%s: inbox prefix %q, want %q", tc.name, tc.c.inboxPrefix, tc.prefix)
		}
	}
	ctx := context.Background()
	c := NewClient(nil, WithNode("n1.*"))
	var ve *VerbError
	if _, err := c.Page(ctx, Request{}); !errors.As(err, &ve) || ve.Code != 400 || !ve.Local || !errors.Is(err, ErrBadRequest) {
		t.Errorf("Page under WithNode(\"n1.*\"): %v", err)
	}
	if _, err := c.Get(ctx, Request{}); !errors.As(err, &ve) || ve.Code != 400 || !ve.Local {
		t.Errorf("Get under WithNode(\"n1.*\"): %v", err)
	}
	if _, err := c.Watch(ctx, Request{}); !errors.As(err, &ve) || ve.Code != 400 || !ve.Local {
		t.Errorf("Watch under WithNode(\"n1.*\"): %v", err)
	}
}
