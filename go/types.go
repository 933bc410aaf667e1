package provisioner

import (
	"encoding/json"
	"fmt"
)

// Entry is one entry of a bucket as the verb answers it: a *RegistryEntry,
// *NeedsEntry, *AppliedEntry or *CollectEntry, by the bucket asked for.
//
// Each has the fields read from its key, and Value: the value as the verb
// answers it, the parsed JSON when the stored bytes are JSON, otherwise the
// stored text as a JSON string; unmarshal it into what the module expects. An
// entry whose value alone cannot fit in any reply has ValueTooLarge and
// ValueBytes instead (read that key from the bucket if you need it).
type Entry interface {
	// EntryKey is the entry's key in its bucket (a registry entry's is its kind).
	EntryKey() string
	// EntryRevision is the revision (stream sequence) of the write that put it.
	EntryRevision() uint64
}

// NeedsEntry is <node>.<module>.<kind>.<name>: what a node's module needs.
type NeedsEntry struct {
	Key    string          `json:"key"`
	Node   string          `json:"node"`
	Module string          `json:"module"`
	Kind   string          `json:"kind"`
	Name   string          `json:"name"`
	Value  json.RawMessage `json:"value,omitempty"`
	// Revision is the stream sequence of the write that put this value.
	Revision uint64 `json:"revision"`
	// Answered is set, to false, when the registry has no entry for Kind;
	// IsAnswered reads it.
	Answered      *bool `json:"answered,omitempty"`
	ValueTooLarge bool  `json:"valueTooLarge,omitempty"`
	ValueBytes    int   `json:"valueBytes,omitempty"`
}

// IsAnswered reports whether some domain answers the need's kind.
func (e *NeedsEntry) IsAnswered() bool { return e.Answered == nil || *e.Answered }

// AppliedEntry is <node>.<module>: what a node has applied for a module.
type AppliedEntry struct {
	Key           string          `json:"key"`
	Node          string          `json:"node"`
	Module        string          `json:"module"`
	Value         json.RawMessage `json:"value,omitempty"`
	Revision      uint64          `json:"revision"`
	ValueTooLarge bool            `json:"valueTooLarge,omitempty"`
	ValueBytes    int             `json:"valueBytes,omitempty"`
}

// CollectEntry is <node>.<collection as =hex>.<contributor>: one item of a
// collection; Collection is the decoded name.
type CollectEntry struct {
	Key           string          `json:"key"`
	Node          string          `json:"node"`
	Collection    string          `json:"collection"`
	Contributor   string          `json:"contributor"`
	Value         json.RawMessage `json:"value,omitempty"`
	Revision      uint64          `json:"revision"`
	ValueTooLarge bool            `json:"valueTooLarge,omitempty"`
	ValueBytes    int             `json:"valueBytes,omitempty"`
}

// RegistryEntry is which domain answers a kind of placeholder, and where its
// values live: in Bucket under keys shaped KeyShape, or asked on Verb. Kind is
// its key in the bucket. Value is the whole stored object, so fields a later
// table adds are there. (For an entry too large to answer, KeyShape holds the
// kind, the entry's key in the bucket, as the protocol says.)
type RegistryEntry struct {
	Kind          string          `json:"kind"`
	Module        string          `json:"module,omitempty"`
	Bucket        string          `json:"bucket,omitempty"`
	KeyShape      string          `json:"key,omitempty"`
	Verb          string          `json:"verb,omitempty"`
	Collection    string          `json:"collection,omitempty"`
	Value         json.RawMessage `json:"value,omitempty"`
	Revision      uint64          `json:"revision"`
	ValueTooLarge bool            `json:"valueTooLarge,omitempty"`
	ValueBytes    int             `json:"valueBytes,omitempty"`
}

// EntryKey is the need's key in the needs bucket.
func (e *NeedsEntry) EntryKey() string { return e.Key }

// EntryRevision is the revision of the write that put the need.
func (e *NeedsEntry) EntryRevision() uint64 { return e.Revision }

// EntryKey is the key in the applied bucket.
func (e *AppliedEntry) EntryKey() string { return e.Key }

// EntryRevision is the revision of the write that put it.
func (e *AppliedEntry) EntryRevision() uint64 { return e.Revision }

// EntryKey is the item's key in the collect bucket (its collection =hex escaped).
func (e *CollectEntry) EntryKey() string { return e.Key }

// EntryRevision is the revision of the write that put the item.
func (e *CollectEntry) EntryRevision() uint64 { return e.Revision }

// EntryKey is the kind: the entry's key in the registry bucket (KeyShape is
// the shape of the keys its domain answers with, not a key of this bucket).
func (e *RegistryEntry) EntryKey() string { return e.Kind }

// EntryRevision is the revision of the write that put the kind's value.
func (e *RegistryEntry) EntryRevision() uint64 { return e.Revision }

// field is an entry's field by its protocol name ("" and false when it has none),
// for judging it against a request's filters.
func field(e Entry, name string) (string, bool) {
	switch e := e.(type) {
	case *NeedsEntry:
		switch name {
		case "node":
			return e.Node, true
		case "module":
			return e.Module, true
		case "kind":
			return e.Kind, true
		case "name":
			return e.Name, true
		}
	case *AppliedEntry:
		switch name {
		case "node":
			return e.Node, true
		case "module":
			return e.Module, true
		}
	case *CollectEntry:
		switch name {
		case "node":
			return e.Node, true
		case "collection":
			return e.Collection, true
		case "contributor":
			return e.Contributor, true
		}
	case *RegistryEntry:
		switch name {
		case "kind":
			return e.Kind, true
		case "module":
			return e.Module, e.Module != ""
		}
	}
	return "", false
}

// OutOfShape is a key out of its bucket's shape, with a reason a person can act on.
type OutOfShape struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// Page is one reply of the verb.
type Page struct {
	What     What
	Revision uint64
	Entries  []Entry
	// OutOfShape is the keys out of shape in this page's key range.
	OutOfShape []OutOfShape
	// Next is the key to ask After when more remains; HasNext says whether it does.
	Next    string
	HasNext bool
	// Stale is set when the projection that answered had heard nothing from
	// its bucket's stream for longer than the service's --stale-after.
	Stale *Staleness
}

// Answer is every page of an answer merged.
type Answer struct {
	What What
	// Revision is the highest revision a page was answered at.
	Revision   uint64
	Entries    []Entry
	OutOfShape []OutOfShape
	// Stale is the staleness of the page whose Since is the oldest; nil when
	// no page was stale.
	Stale *Staleness
}

// pageOf is a page as JSON, with its entries typed by the bucket.
type pageOf[T any] struct {
	What       What         `json:"what"`
	Revision   uint64       `json:"revision"`
	Entries    []T          `json:"entries"`
	OutOfShape []OutOfShape `json:"outOfShape"`
	Next       *string      `json:"next"`
	// Stale is read by readStaleness, which drops one out of shape.
	Stale json.RawMessage `json:"stale"`
}

func decodeTyped[T any, P interface {
	*T
	Entry
}](data []byte) (*Page, error) {
	var p pageOf[T]
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("mesh-provisioner: a reply that is not a page: %w", err)
	}
	// Pointers into the one slice json made: no allocation per entry.
	entries := make([]Entry, len(p.Entries))
	for i := range p.Entries {
		entries[i] = P(&p.Entries[i])
	}
	page := &Page{What: p.What, Revision: p.Revision, Entries: entries, OutOfShape: p.OutOfShape, Stale: readStaleness(p.Stale)}
	if p.Next != nil {
		page.Next, page.HasNext = *p.Next, true
	}
	return page, nil
}

// decodePage reads a reply's body as a page of the bucket what.
func decodePage(what What, data []byte) (*Page, error) {
	var (
		p   *Page
		err error
	)
	switch what {
	case Needs:
		p, err = decodeTyped[NeedsEntry](data)
	case Applied:
		p, err = decodeTyped[AppliedEntry](data)
	case Collect:
		p, err = decodeTyped[CollectEntry](data)
	default:
		p, err = decodeTyped[RegistryEntry](data)
	}
	if err == nil && p.What != what {
		err = fmt.Errorf("mesh-provisioner: asked for %s, answered %q", what, p.What)
	}
	return p, err
}

// decodeEntry reads one entry of the bucket what.
func decodeEntry(what What, data []byte) (Entry, error) {
	var e Entry
	switch what {
	case Needs:
		e = new(NeedsEntry)
	case Applied:
		e = new(AppliedEntry)
	case Collect:
		e = new(CollectEntry)
	default:
		e = new(RegistryEntry)
	}
	return e, json.Unmarshal(data, e)
}

// FeedEvent is one change on mesh-provisioner.feed.<what>.<key>: a put of an
// entry, a put of a key out of shape, or a delete.
type FeedEvent struct {
	What       What
	Op         string // "put" or "delete"
	Key        string
	Revision   uint64
	Entry      Entry       // a put in shape
	OutOfShape *OutOfShape // a put out of shape
}

// decodeEvent reads a feed event.
func decodeEvent(data []byte) (*FeedEvent, error) {
	var raw struct {
		What       What            `json:"what"`
		Op         string          `json:"op"`
		Key        string          `json:"key"`
		Revision   uint64          `json:"revision"`
		Entry      json.RawMessage `json:"entry"`
		OutOfShape *OutOfShape     `json:"outOfShape"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("mesh-provisioner: a feed event that is not JSON: %w", err)
	}
	ev := &FeedEvent{What: raw.What, Op: raw.Op, Key: raw.Key, Revision: raw.Revision, OutOfShape: raw.OutOfShape}
	if len(raw.Entry) > 0 && string(raw.Entry) != "null" {
		e, err := decodeEntry(raw.What, raw.Entry)
		if err != nil {
			return nil, fmt.Errorf("mesh-provisioner: a feed event's entry: %w", err)
		}
		ev.Entry = e
	}
	if ev.Op != "put" && ev.Op != "delete" {
		return nil, fmt.Errorf("mesh-provisioner: a feed event with op %q", ev.Op)
	}
	return ev, nil
}

// View is the current view of what a watch asked for. Its maps are the
// watch's own and never change once sent: read them freely, do not write them.
type View struct {
	// Revision is the highest revision of the bucket the view reflects.
	Revision uint64
	// Synced is false until the first snapshot is in, and while a fresh one
	// is taken (events may have been lost).
	Synced     bool
	Entries    map[string]Entry
	OutOfShape map[string]OutOfShape
	// Stale is the last snapshot's staleness (nil: it was not stale). The
	// feed's events do not clear it; a snapshot that is not stale does.
	Stale *Staleness
}
