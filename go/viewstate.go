package provisioner

import "maps"

// viewState is a watch's view: a snapshot taken through the verb, then the
// feed's events applied in order, each only where it is newer than what the
// view holds for its key (so an event seen twice, or one older than the
// snapshot's page, changes nothing). Events that arrive while a snapshot is
// taken are held and applied once it is in, those above the snapshot's
// lowest page revision, so nothing written between the snapshot and the feed
// is lost and nothing is applied twice. It is the TypeScript client's
// ViewState, rule for rule, and is owned by one goroutine.
//
// The view's Stale is the last snapshot's. The feed's events do not clear
// it: the seat's holder publishes them, and those published while the
// answering projection heard nothing (a site cut off from its hub) never
// reached the view either, so only a snapshot that is not stale clears it.
//
// Views handed out share the maps until the next change, which copies them
// first (copy on write): a view once sent never changes, and a watch with no
// reader waiting copies nothing.
type viewState struct {
	entries    map[string]Entry
	outOfShape map[string]OutOfShape
	// seen is the revision each key held now was last written at.
	seen     map[string]uint64
	revision uint64
	synced   bool
	// stale is the last snapshot's staleness.
	stale *Staleness
	// pending holds events while a snapshot is taken; nil when applying directly.
	pending []*FeedEvent
	holding bool
	// shared: the maps were handed out in a view; copy before writing.
	shared bool
}

func newViewState() *viewState {
	return &viewState{entries: map[string]Entry{}, outOfShape: map[string]OutOfShape{}, seen: map[string]uint64{}, holding: true}
}

// beginSnapshot: a fresh snapshot is being taken, hold events until it is in.
// Events already held for a snapshot that failed stay: the next one sorts them out.
func (s *viewState) beginSnapshot() {
	s.synced = false
	s.holding = true
}

// endSnapshot puts the snapshot in; lowest is the lowest revision any of its
// pages was answered at (a key out of shape is credited with it: the verb
// does not answer theirs). False, and nothing changed, when the snapshot is
// older than the view: take another.
func (s *viewState) endSnapshot(a *Answer, lowest uint64) bool {
	if a.Revision < s.revision {
		return false
	}
	entries := make(map[string]Entry, len(a.Entries))
	outOfShape := make(map[string]OutOfShape, len(a.OutOfShape))
	seen := make(map[string]uint64, len(a.Entries)+len(a.OutOfShape))
	for _, e := range a.Entries {
		entries[e.EntryKey()] = e
		seen[e.EntryKey()] = e.EntryRevision()
	}
	for _, o := range a.OutOfShape {
		outOfShape[o.Key] = o
		seen[o.Key] = lowest
	}
	s.entries, s.outOfShape, s.seen, s.shared = entries, outOfShape, seen, false
	s.revision, s.stale = a.Revision, a.Stale
	kept := s.pending
	s.pending, s.holding = nil, false
	for _, ev := range kept {
		if ev.Revision > lowest {
			s.applyNow(ev)
		}
	}
	s.synced = true
	return true
}

// apply applies one event (it already belongs to what is watched): true when
// the view changed. While a snapshot is taken it is held instead (false).
func (s *viewState) apply(ev *FeedEvent) bool {
	if s.holding {
		s.pending = append(s.pending, ev)
		return false
	}
	return s.applyNow(ev)
}

func (s *viewState) applyNow(ev *FeedEvent) bool {
	if ev.Revision > s.revision {
		s.revision = ev.Revision
	}
	if at, ok := s.seen[ev.Key]; ok && at >= ev.Revision {
		return false
	}
	// One publisher sends events in order, so a deleted key needs no tombstone.
	if ev.Op == "delete" {
		delete(s.seen, ev.Key)
	} else {
		s.seen[ev.Key] = ev.Revision
	}
	if s.shared {
		s.entries, s.outOfShape, s.shared = maps.Clone(s.entries), maps.Clone(s.outOfShape), false
	}
	_, hadEntry := s.entries[ev.Key]
	_, hadOOS := s.outOfShape[ev.Key]
	delete(s.entries, ev.Key)
	delete(s.outOfShape, ev.Key)
	switch {
	case ev.Op == "put" && ev.Entry != nil:
		s.entries[ev.Key] = ev.Entry
	case ev.Op == "put" && ev.OutOfShape != nil:
		s.outOfShape[ev.Key] = *ev.OutOfShape
	default:
		return hadEntry || hadOOS
	}
	return true
}

// view is the view now; its maps are shared until the next change.
func (s *viewState) view() View {
	s.shared = true
	return View{Revision: s.revision, Synced: s.synced, Entries: s.entries, OutOfShape: s.outOfShape, Stale: s.stale}
}
