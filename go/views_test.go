package provisioner

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"
)

// The narrowing and the view's recipe, held to the shared vectors: the same
// snapshot and events give the TypeScript client's view.

type vectorRequest struct {
	What        What
	Node        string
	Module      string
	Contributor string
	Collection  string
}

func (v vectorRequest) request() Request {
	return Request{What: v.What, Node: v.Node, Module: v.Module, Contributor: v.Contributor, Collection: v.Collection}
}

func eventsOf(t *testing.T, raw []json.RawMessage) []*FeedEvent {
	t.Helper()
	out := make([]*FeedEvent, len(raw))
	for i, r := range raw {
		ev, err := decodeEvent(r)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = ev
	}
	return out
}

func TestVectorsViews(t *testing.T) {
	var v struct {
		Covers []struct {
			Request vectorRequest
			Key     string
			Entry   json.RawMessage
			Covered bool
		}
		Subjects []struct {
			Request  vectorRequest
			Subjects []string
		}
		Scenarios []struct {
			Name     string
			Request  vectorRequest
			Snapshot json.RawMessage
			Lowest   uint64
			Held     []json.RawMessage
			Events   []json.RawMessage
			Expect   struct {
				Revision uint64
				Synced   bool
				Entries  map[string]struct {
					Revision uint64
					Value    json.RawMessage
				}
				OutOfShape []string
			}
		}
	}
	readVectors(t, "views.json", &v)
	for _, c := range v.Covers {
		r := c.Request.request()
		ev := &FeedEvent{What: r.what(), Op: "delete", Key: c.Key}
		if len(c.Entry) > 0 {
			e, err := decodeEntry(r.what(), c.Entry)
			if err != nil {
				t.Fatal(err)
			}
			ev.Op, ev.Entry = "put", e
		}
		if got := covers(r.what(), r.filters(), ev); got != c.Covered {
			t.Errorf("%+v covers %q: %v, want %v", c.Request, c.Key, got, c.Covered)
		}
	}
	for _, c := range v.Subjects {
		r := c.Request.request()
		if got := feedSubjects(r.what(), r.filters()); !reflect.DeepEqual(got, c.Subjects) {
			t.Errorf("%+v: subjects %v, want %v", c.Request, got, c.Subjects)
		}
	}
	for _, s := range v.Scenarios {
		r := s.Request.request()
		var snap struct {
			Revision   uint64
			Entries    []json.RawMessage
			OutOfShape []OutOfShape
		}
		if err := json.Unmarshal(s.Snapshot, &snap); err != nil {
			t.Fatal(err)
		}
		a := &Answer{What: r.what(), Revision: snap.Revision, OutOfShape: snap.OutOfShape}
		for _, raw := range snap.Entries {
			e, err := decodeEntry(r.what(), raw)
			if err != nil {
				t.Fatal(err)
			}
			a.Entries = append(a.Entries, e)
		}
		st := newViewState()
		st.beginSnapshot()
		for _, ev := range eventsOf(t, s.Held) {
			if covers(r.what(), r.filters(), ev) {
				st.apply(ev)
			}
		}
		if !st.endSnapshot(a, s.Lowest) {
			t.Fatalf("%s: the snapshot was refused", s.Name)
		}
		for _, ev := range eventsOf(t, s.Events) {
			if covers(r.what(), r.filters(), ev) {
				st.apply(ev)
			}
		}
		view := st.view()
		if view.Revision != s.Expect.Revision || view.Synced != s.Expect.Synced || len(view.Entries) != len(s.Expect.Entries) {
			t.Errorf("%s: revision %d synced %v %d entries; want %d %v %d", s.Name, view.Revision, view.Synced, len(view.Entries), s.Expect.Revision, s.Expect.Synced, len(s.Expect.Entries))
		}
		for k, want := range s.Expect.Entries {
			e, ok := view.Entries[k]
			if !ok || e.EntryRevision() != want.Revision || string(e.(*NeedsEntry).Value) != string(want.Value) {
				t.Errorf("%s: %s = %+v, want %+v", s.Name, k, e, want)
			}
		}
		oos := []string{}
		for k := range view.OutOfShape {
			oos = append(oos, k)
		}
		sort.Strings(oos)
		if !reflect.DeepEqual(oos, s.Expect.OutOfShape) {
			t.Errorf("%s: out of shape %v, want %v", s.Name, oos, s.Expect.OutOfShape)
		}
	}
}

// A view once sent never changes: the next change copies the maps first.
func TestViewsAreNotChangedOnceSent(t *testing.T) {
	st := newViewState()
	st.endSnapshot(&Answer{What: Needs, Revision: 1, Entries: []Entry{&NeedsEntry{Key: "n1.a.b.c", Revision: 1}}}, 1)
	sent := st.view()
	st.apply(&FeedEvent{What: Needs, Op: "delete", Key: "n1.a.b.c", Revision: 2})
	st.apply(&FeedEvent{What: Needs, Op: "put", Key: "n1.a.b.d", Revision: 3, Entry: &NeedsEntry{Key: "n1.a.b.d", Revision: 3}})
	if len(sent.Entries) != 1 || sent.Entries["n1.a.b.c"] == nil {
		t.Fatalf("a sent view changed: %v", sent.Entries)
	}
	if now := st.view(); len(now.Entries) != 1 || now.Entries["n1.a.b.d"] == nil || now.Revision != 3 {
		t.Fatalf("the view now: %+v", now)
	}
}
