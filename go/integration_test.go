package provisioner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Against a real nats-server and the real service: paging across many pages,
// minRevision, the service's errors.

func bucket(t *testing.T, nc *nats.Conn, what What) jetstream.KeyValue {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(context.Background(), "mesh-provisioner_"+string(what))
	if err != nil {
		t.Fatalf("open the %s bucket: %v", what, err)
	}
	return kv
}

// mustKey fails the test when a key cannot be built: mustKey(t)(NeedsKey(…)).
func mustKey(t *testing.T) func(string, error) string {
	return func(key string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return key
	}
}

// truth is what the bucket holds now under prefix: key -> revision.
func truth(t *testing.T, kv jetstream.KeyValue, filter string) map[string]uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := kv.Watch(ctx, filter, jetstream.IgnoreDeletes())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	out := map[string]uint64{}
	for e := range w.Updates() {
		if e == nil {
			return out
		}
		out[e.Key()] = e.Revision()
	}
	t.Fatal("the bucket's watch ended before its initial values")
	return nil
}

func TestGetAgainstTheService(t *testing.T) {
	srv := startNATS(t, "")
	svc := startService(t, srv.URL)
	nc := srv.connect(t)
	c := NewClient(nc, WithTimeout(5*time.Second))
	waitHolder(t, c, svc)
	ctx := context.Background()
	needs := bucket(t, nc, Needs)
	js, _ := jetstream.New(nc)

	// 2,000 needs of n1, 300 of n2, and keys out of shape, written at once.
	var last uint64
	var acks []jetstream.PubAckFuture
	for i := range 2000 {
		key := mustKey(t)(NeedsKey("n1", fmt.Sprintf("m%d", i%7), "config", fmt.Sprintf("k%04d", i)))
		f, err := js.PublishAsync("$KV.mesh-provisioner_needs."+key, fmt.Appendf(nil, `{"i":%d}`, i))
		if err != nil {
			t.Fatal(err)
		}
		acks = append(acks, f)
	}
	for i := range 300 {
		f, _ := js.PublishAsync("$KV.mesh-provisioner_needs."+mustKey(t)(NeedsKey("n2", "web", "config", fmt.Sprintf("k%d", i))), []byte("{}"))
		acks = append(acks, f)
	}
	for _, k := range []string{"n1.web.config", "n1.web.config.a.b", "zz"} {
		f, _ := js.PublishAsync("$KV.mesh-provisioner_needs."+k, []byte("x"))
		acks = append(acks, f)
	}
	for _, f := range acks {
		select {
		case a := <-f.Ok():
			last = max(last, a.Sequence)
		case err := <-f.Err():
			t.Fatal(err)
		case <-time.After(10 * time.Second):
			t.Fatal("a put was not acknowledged")
		}
	}

	t.Run("every page merged, in pages of 37, equals the bucket and one unpaged answer", func(t *testing.T) {
		pages := 0
		paged := NewClient(nc, WithPageSize(37))
		for p, err := range paged.pages(ctx, Request{What: Needs, Node: "n1", MinRevision: last}) {
			if err != nil {
				t.Fatal(err)
			}
			pages++
			_ = p
		}
		if want := (2000 + 36) / 37; pages != want {
			t.Fatalf("%d pages, want %d", pages, want)
		}
		a, err := paged.Get(ctx, Request{What: Needs, Node: "n1", MinRevision: last})
		if err != nil {
			t.Fatal(err)
		}
		one, err := c.Get(ctx, Request{What: Needs, Node: "n1"})
		if err != nil {
			t.Fatal(err)
		}
		keys := func(es []Entry) []string {
			out := make([]string, len(es))
			for i, e := range es {
				out[i] = e.EntryKey()
			}
			return out
		}
		if len(a.Entries) != 2000 || !slices.Equal(keys(a.Entries), keys(one.Entries)) || !slices.IsSorted(keys(a.Entries)) {
			t.Fatalf("%d entries paged, %d unpaged, sorted %v", len(a.Entries), len(one.Entries), slices.IsSorted(keys(a.Entries)))
		}
		want := truth(t, needs, "n1.>")
		for _, e := range a.Entries {
			n := e.(*NeedsEntry)
			if want[n.Key] != n.Revision || n.Node != "n1" || n.Kind != "config" || n.IsAnswered() != true {
				t.Fatalf("entry %+v, the bucket has revision %d", n, want[n.Key])
			}
		}
		oos := []string{}
		for _, o := range a.OutOfShape {
			oos = append(oos, o.Key)
		}
		// "zz" reads as node zz, which a request for n1 excludes.
		if !slices.Equal(oos, []string{"n1.web.config", "n1.web.config.a.b"}) {
			t.Fatalf("out of shape: %v", a.OutOfShape)
		}
		listed := []string{}
		for e, err := range paged.List(ctx, Request{What: Needs, Node: "n1"}) {
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, e.EntryKey())
		}
		if !slices.Equal(listed, keys(one.Entries)) {
			t.Fatalf("List gave %d keys, Get %d", len(listed), len(one.Entries))
		}
		// One page, then the next from its Next.
		p1, err := paged.Page(ctx, Request{What: Needs, Node: "n1"})
		if err != nil || len(p1.Entries) != 37 || !p1.HasNext {
			t.Fatalf("one page: %v, %v", p1, err)
		}
		p2, err := paged.Page(ctx, Request{What: Needs, Node: "n1", After: p1.Next})
		if err != nil || len(p2.Entries) != 37 || p2.Entries[0].EntryKey() != keys(one.Entries)[37] {
			t.Fatalf("the next page: %v, %v", p2, err)
		}
		// Breaking out of a List stops it.
		n := 0
		for range paged.List(ctx, Request{What: Needs}) {
			if n++; n == 50 {
				break
			}
		}
	})

	t.Run("minRevision: the answer holds the write it waited for", func(t *testing.T) {
		rev, err := needs.Put(ctx, mustKey(t)(NeedsKey("n1", "m0", "secret", "fresh")), []byte(`{"length":32}`))
		if err != nil {
			t.Fatal(err)
		}
		a, err := c.Get(ctx, Request{What: Needs, Node: "n1", Module: "m0", MinRevision: rev})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(a.Entries, func(e Entry) bool { return e.EntryKey() == "n1.m0.secret.fresh" })
		if a.Revision < rev || i < 0 || string(a.Entries[i].(*NeedsEntry).Value) != `{"length":32}` {
			t.Fatalf("revision %d (wrote %d), entry %d", a.Revision, rev, i)
		}
	})

	t.Run("errors: 400 before sending and from the service, 504, no responders", func(t *testing.T) {
		var ve *VerbError
		_, err := c.Get(ctx, Request{What: Needs, Node: "a.b"})
		if !errors.As(err, &ve) || ve.Code != 400 || !ve.Local || ve.Retryable() || !errors.Is(err, ErrBadRequest) {
			t.Fatalf("a bad node: %v", err)
		}
		// The same request sent as it is: the service answers the same 400.
		_, err = c.ask(ctx, VerbSubject, []byte(`{"what":"needs","node":"a.b"}`))
		if !errors.As(err, &ve) || ve.Code != 400 || ve.Local || !errors.Is(err, ErrBadRequest) {
			t.Fatalf("the service's 400: %v", err)
		}
		if _, err := c.Watch(ctx, Request{What: Needs, Node: "n1.*"}); !errors.As(err, &ve) || ve.Code != 400 {
			t.Fatalf("a watch that would widen its subscription: %v", err)
		}
		_, err = c.Get(ctx, Request{What: Applied, MinRevision: 1_000_000})
		if !errors.As(err, &ve) || ve.Code != 504 || !ve.Retryable() || !errors.Is(err, ErrRevisionTimeout) {
			t.Fatalf("minRevision out of reach: %v", err)
		}
		// A server where no instance runs: NATS says no responders.
		bare := NewClient(startNATS(t, "").connect(t), WithTimeout(2*time.Second))
		if _, err := bare.Get(ctx, Request{}); !errors.Is(err, nats.ErrNoResponders) {
			t.Fatalf("no instance: %v", err)
		}
	})

	t.Run("typed registry entries; collect by name", func(t *testing.T) {
		a, err := c.Get(ctx, Request{})
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]*RegistryEntry{}
		for _, e := range a.Entries {
			kinds[e.EntryKey()] = e.(*RegistryEntry)
		}
		if len(kinds) != 13 || kinds["config"].Bucket != "mesh-config_values" || kinds["secret"].Verb != "mesh-vault.secret" || kinds["shell"].Collection != "shell" {
			t.Fatalf("registry: %d kinds, config %+v", len(kinds), kinds["config"])
		}
		collect := bucket(t, nc, Collect)
		rev, err := collect.Put(ctx, mustKey(t)(CollectKey("n3", "ssh keys", "web")), []byte(`"ssh-ed25519 AAAA"`))
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Get(ctx, Request{What: Collect, Collection: "ssh keys", MinRevision: rev})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Entries) != 1 {
			t.Fatalf("collect: %+v", got)
		}
		e := got.Entries[0].(*CollectEntry)
		var v string
		if e.Key != "n3.ssh=20keys.web" || e.Collection != "ssh keys" || json.Unmarshal(e.Value, &v) != nil || v != "ssh-ed25519 AAAA" {
			t.Fatalf("collect entry %+v", e)
		}
	})
}
