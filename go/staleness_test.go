package provisioner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// Staleness as the Go client reads it, held to the shared vectors
// (vectors/staleness.json, which the TypeScript client's tests read too).

// staleJSON is a staleness as the vectors write it (null: none).
type staleJSON *struct {
	Since    string `json:"since"`
	SilentMs int64  `json:"silentMs"`
	Revision uint64 `json:"revision"`
}

type stalenessVectors struct {
	Comment  string `json:"$comment"`
	Readings []struct {
		Why    string
		Stale  json.RawMessage
		Expect staleJSON
	}
	Answers []struct {
		Name   string
		Pages  []json.RawMessage
		Expect struct {
			Revision uint64
			Keys     []string
			Pages    []staleJSON
			Stale    staleJSON
		}
	}
	Errors []struct {
		Why     string
		Headers map[string]string
		Body    string
		Code    int
		Stale   staleJSON
	}
	Views []struct {
		Name  string
		Steps []struct {
			Snapshot json.RawMessage
			Lowest   uint64
			Event    json.RawMessage
		}
		Expect struct {
			Revision uint64
			Stale    staleJSON
		}
	}
}

// sameStaleness says how got differs from the vector's want ("" when it does not).
func sameStaleness(got *Staleness, want staleJSON) string {
	switch {
	case got == nil && want == nil:
		return ""
	case got == nil || want == nil:
		return "one is stale, the other not"
	}
	since, err := time.Parse(time.RFC3339Nano, want.Since)
	if err != nil {
		return err.Error()
	}
	if !got.Since.Equal(since) || got.Silent != time.Duration(want.SilentMs)*time.Millisecond || got.Revision != want.Revision {
		return "got " + got.Since.Format(time.RFC3339Nano) + " " + got.Silent.String() + ", want " + want.Since
	}
	return ""
}

func TestVectorsStaleness(t *testing.T) {
	var v stalenessVectors
	readVectors(t, "staleness.json", &v)
	if !strings.Contains(v.Comment, "(protocol version 1)") {
		t.Fatal("vectors/staleness.json is not written for protocol version 1, which this client speaks")
	}
	t.Run("each stale object reads as itself, as none (null), or is ignored when out of shape", func(t *testing.T) {
		for _, r := range v.Readings {
			if d := sameStaleness(readStaleness(r.Stale), r.Expect); d != "" {
				t.Errorf("%s (%s): %s", r.Why, r.Stale, d)
			}
		}
	})
	t.Run("each page carries its own staleness, and the merged answer the one whose since is the oldest", func(t *testing.T) {
		for _, c := range v.Answers {
			nc := answering(t, c.Pages)
			for i, raw := range c.Pages {
				p, err := decodePage(Needs, raw)
				if err != nil {
					t.Fatalf("%s: page %d: %v", c.Name, i, err)
				}
				if d := sameStaleness(p.Stale, c.Expect.Pages[i]); d != "" {
					t.Errorf("%s: page %d: %s", c.Name, i, d)
				}
			}
			a, err := NewClient(nc, WithTimeout(2*time.Second)).Get(context.Background(), Request{What: Needs})
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			keys := []string{}
			for _, e := range a.Entries {
				keys = append(keys, e.EntryKey())
			}
			if a.Revision != c.Expect.Revision || len(keys) != len(c.Expect.Keys) {
				t.Errorf("%s: revision %d, keys %v", c.Name, a.Revision, keys)
			}
			for i := range keys {
				if keys[i] != c.Expect.Keys[i] {
					t.Errorf("%s: keys %v, want %v", c.Name, keys, c.Expect.Keys)
				}
			}
			if d := sameStaleness(a.Stale, c.Expect.Stale); d != "" {
				t.Errorf("%s: the answer: %s", c.Name, d)
			}
		}
	})
	t.Run("an error reply is a *VerbError from its headers, with the staleness its body carries, whatever the body", func(t *testing.T) {
		for _, e := range v.Errors {
			h := nats.Header{}
			for k, val := range e.Headers {
				h.Set(k, val)
			}
			err := serviceError(h, []byte(e.Body))
			var ve *VerbError
			if !errors.As(err, &ve) || ve.Code != e.Code || !ve.Retryable() {
				t.Errorf("%s: %v, want a %d", e.Why, err, e.Code)
				continue
			}
			if d := sameStaleness(ve.Stale, e.Stale); d != "" {
				t.Errorf("%s: %s", e.Why, d)
			}
		}
	})
	t.Run("a view's staleness is its last snapshot's: the feed's events do not clear it, a snapshot that is not stale does", func(t *testing.T) {
		for _, c := range v.Views {
			s := newViewState()
			for _, step := range c.Steps {
				if step.Snapshot != nil {
					p, err := decodePage(Needs, step.Snapshot)
					if err != nil {
						t.Fatal(err)
					}
					s.beginSnapshot()
					if !s.endSnapshot(&Answer{What: Needs, Revision: p.Revision, Entries: p.Entries, OutOfShape: p.OutOfShape, Stale: p.Stale}, step.Lowest) {
						t.Fatalf("%s: a snapshot refused", c.Name)
					}
					continue
				}
				ev, err := decodeEvent(step.Event)
				if err != nil {
					t.Fatal(err)
				}
				s.apply(ev)
			}
			view := s.view()
			if view.Revision != c.Expect.Revision {
				t.Errorf("%s: revision %d", c.Name, view.Revision)
			}
			if d := sameStaleness(view.Stale, c.Expect.Stale); d != "" {
				t.Errorf("%s: %s", c.Name, d)
			}
		}
	})
}

// answering is a connection to a real server on which the verb's subject is
// answered with bodies, one a request, in order (the last one from then on).
func answering(t *testing.T, bodies []json.RawMessage) *nats.Conn {
	t.Helper()
	srv := startNATS(t, "")
	responder := srv.connect(t)
	var n atomic.Int64
	if _, err := responder.Subscribe(VerbSubject, func(m *nats.Msg) {
		i := min(int(n.Add(1))-1, len(bodies)-1)
		_ = m.Respond(bodies[i])
	}); err != nil {
		t.Fatal(err)
	}
	if err := responder.Flush(); err != nil {
		t.Fatal(err)
	}
	return srv.connect(t)
}

func TestAWatchWhoseSnapshotWasStaleAsksAgainAtEachSeatCheckUntilItIsNot(t *testing.T) {
	stale := json.RawMessage(`{"what":"needs","revision":7,"entries":[],"outOfShape":[],"stale":{"since":"2026-12-05T03:00:00.000Z","silentMs":12000,"revision":7}}`)
	fresh := json.RawMessage(`{"what":"needs","revision":7,"entries":[],"outOfShape":[]}`)
	nc := answering(t, []json.RawMessage{stale, stale, fresh})
	var takes atomic.Int64
	c := NewClient(nc, WithSeatCheck(50*time.Millisecond))
	c.onTake = func(why string) {
		if why == "stale" {
			takes.Add(1)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	views, err := c.Watch(ctx, Request{What: Needs})
	if err != nil {
		t.Fatal(err)
	}
	sawStale := false
	for v := range views {
		if !v.Synced {
			continue
		}
		if v.Stale != nil {
			sawStale = v.Stale.Revision == 7 && v.Stale.Silent == 12*time.Second
			continue
		}
		if !sawStale {
			t.Fatal("the first synced view was not stale")
		}
		if got := takes.Load(); got != 2 {
			t.Fatalf("%d snapshots taken for staleness, want 2 (two stale answers, then one that is not)", got)
		}
		time.Sleep(300 * time.Millisecond)
		if got := takes.Load(); got != 2 {
			t.Fatalf("a view that is not stale asked again (%d)", got)
		}
		return
	}
	t.Fatal("no view that is not stale before the watch ended")
}
