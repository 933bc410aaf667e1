package provisioner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A node at a site writes its own keys across a leaf node, as docs/clients.md
// shows it: a hub with JetStream in domain "hub" and the service's instance,
// and the site's leaf server, with a JetStream domain of its own, whose local
// user holds the node's grant. The node's publish on PutSubject(…, "hub")
// lands in the hub's bucket, and the verb, answered at the hub, gives it back
// across the leaf; another node's key is refused at the leaf.
func TestANodeAtALeafWritesItsOwnKeysThroughTheHubsDomain(t *testing.T) {
	leafPort := freePort(t)
	hub := startNATSInDomain(t, "hub", fmt.Sprintf("leafnodes { listen: \"127.0.0.1:%d\" }", leafPort))
	grant, prefix := printedGrant(t, "--role", "node", "--node", "n1", "--js-domain", "hub")
	// nats-server's configuration reads JSON, but not its \u escapes: keep ">" as it is.
	var users bytes.Buffer
	enc := json.NewEncoder(&users)
	enc.SetEscapeHTML(false)
	if err := enc.Encode([]map[string]any{{"user": "node-n1", "password": "n1-secret", "permissions": grant}}); err != nil {
		t.Fatal(err)
	}
	leaf := startNATSInDomain(t, "site", fmt.Sprintf("accounts { MESH { jetstream: enabled, users: %s } }\nleafnodes { remotes: [{ url: \"nats-leaf://127.0.0.1:%d\", account: MESH }] }", users.String(), leafPort))
	svc := startService(t, hub.URL)
	waitHolder(t, NewClient(hub.connect(t)), svc)

	var refused asyncErrors
	nc, err := nats.Connect(leaf.URL, nats.UserInfo("node-n1", "n1-secret"), nats.CustomInboxPrefix(prefix), refused.option())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := NewClient(nc, WithNode("n1"), WithTimeout(2*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eventually(t, 15*time.Second, 200*time.Millisecond, "the verb across the leaf", func() error {
		_, err := c.Get(ctx, Request{What: Registry})
		return err
	})

	// As docs/clients.md shows it.
	js, err := jetstream.NewWithDomain(nc, "hub")
	if err != nil {
		t.Fatal(err)
	}
	key, err := NeedsKey("n1", "web", "config", "port")
	if err != nil {
		t.Fatal(err)
	}
	put, cancelPut := context.WithTimeout(ctx, 5*time.Second)
	defer cancelPut()
	ack, err := js.Publish(put, PutSubject(Needs, key, "hub"), []byte(`{"default":8080}`))
	if err != nil {
		t.Fatalf("the node's put across the leaf: %v", err)
	}
	if ack.Domain != "hub" {
		t.Fatalf("the put was taken in domain %q, not the hub's", ack.Domain)
	}
	a, err := c.Get(ctx, Request{What: Needs, MinRevision: ack.Sequence})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Entries) != 1 || a.Entries[0].EntryKey() != key || a.Entries[0].EntryRevision() != ack.Sequence || string(a.Entries[0].(*NeedsEntry).Value) != `{"default":8080}` {
		t.Fatalf("the verb at the hub answered %+v, want %s at %d", a.Entries, key, ack.Sequence)
	}
	if a.Stale != nil {
		t.Fatalf("an instance that hears its stream said it was stale: %+v", a.Stale)
	}

	other, _ := NeedsKey("n2", "web", "config", "port")
	short, cancelShort := context.WithTimeout(ctx, 2*time.Second)
	defer cancelShort()
	if _, err := js.Publish(short, PutSubject(Needs, other, "hub"), []byte(`{}`)); err == nil {
		t.Fatal("the grant at the leaf let n1 write n2's key")
	}
	eventually(t, 5*time.Second, 50*time.Millisecond, "the leaf's refusal", func() error {
		for _, e := range refused.list() {
			if strings.Contains(e, "Permissions Violation for Publish") && strings.Contains(e, ".n2.") {
				return nil
			}
		}
		return fmt.Errorf("refusals seen: %v", refused.list())
	})
}
