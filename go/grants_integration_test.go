package provisioner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// nodePut writes key as a node's grant allows: a JetStream publish on
// $KV.<bucket>.<key> (opening the bucket would ask for the stream's info,
// which a node's grant refuses: its subjects filter lists every node's keys).
// It returns the write's revision.
func nodePut(ctx context.Context, t *testing.T, nc *nats.Conn, what What, key string, value []byte) uint64 {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ack, err := js.Publish(ctx, "$KV.mesh-provisioner_"+string(what)+"."+key, value)
	if err != nil {
		t.Fatalf("the node's own put of %s: %v", key, err)
	}
	return ack.Sequence
}

// A node's least grant, as `mesh-provisioner permissions --role node` prints
// it, is enough for the Go client: its replies and $SRV.STATS come back under
// the printed inbox prefix, its watch subscribes only to its own node's feed.

// printedGrant runs `permissions` and returns the grant (JSON) and the inbox
// prefix the command says to connect with.
func printedGrant(t *testing.T, args ...string) (json.RawMessage, string) {
	t.Helper()
	cmd := exec.Command("node", append([]string{serviceBin(t), "permissions"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("permissions %v: %v: %s", args, err, stderr.String())
	}
	prefix := ""
	if m := regexp.MustCompile(`--inbox-prefix (\S+)`).FindStringSubmatch(stderr.String()); m != nil {
		prefix = m[1]
	}
	if !json.Valid(stdout.Bytes()) {
		t.Fatalf("permissions %v printed no JSON: %s", args, stdout.String())
	}
	return stdout.Bytes(), prefix
}

// asyncErrors records what the server refused a connection asynchronously
// (a permissions violation comes as an async error, not a request's).
type asyncErrors struct {
	mu   sync.Mutex
	errs []string
}

// option is the connection option that records them.
func (a *asyncErrors) option() nats.Option {
	return nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		a.mu.Lock()
		a.errs = append(a.errs, err.Error())
		a.mu.Unlock()
	})
}

// list is what was recorded so far.
func (a *asyncErrors) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.errs...)
}

// none fails the test when anything was refused.
func (a *asyncErrors) none(t *testing.T, who string) {
	t.Helper()
	if errs := a.list(); len(errs) > 0 {
		t.Fatalf("the server refused %s: %v", who, errs)
	}
}

func TestANodesGrantAsPrinted(t *testing.T) {
	svcGrant, _ := printedGrant(t, "--role", "provisioner")
	nodeGrant, prefix := printedGrant(t, "--role", "node", "--node", "n1")
	if prefix != NodeInboxPrefix("n1") {
		t.Fatalf("permissions prints the inbox prefix %q; NodeInboxPrefix gives %q", prefix, NodeInboxPrefix("n1"))
	}
	conf := fmt.Sprintf(`accounts { MESH: { jetstream: enabled, users: [
  {user: "svc", password: "svc-password-1234", permissions: %s}
  {user: "node-n1", password: "n1-password-1234", permissions: %s}
]}}`, svcGrant, nodeGrant)
	srv := startNATS(t, conf)
	svc := startService(t, srv.URL, "--user", "svc", "--password", "svc-password-1234")

	var refused asyncErrors
	onAsync := refused.option()
	node := srv.connect(t, nats.UserInfo("node-n1", "n1-password-1234"), nats.CustomInboxPrefix(prefix), onAsync)
	c := NewClient(node, WithNode("n1"), WithTimeout(5*time.Second), WithSeatCheck(300*time.Millisecond))
	waitHolder(t, c, svc)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	views, err := c.Watch(ctx, Request{What: Needs, Node: "n1"})
	if err != nil {
		t.Fatal(err)
	}
	f := follow(views)

	// The node writes its own keys (its grant: <node>.> of each node bucket) and reads them back.
	// What the bucket holds is read under the provisioner's grant: a node's may not watch the needs bucket.
	admin := srv.connect(t, nats.UserInfo("svc", "svc-password-1234"), nats.CustomInboxPrefix("_INBOX_mesh-provisioner"))
	all := bucket(t, admin, Needs)
	key, _ := NeedsKey("n1", "web", "config", "port")
	rev := nodePut(ctx, t, node, Needs, key, []byte(`{"default":8080}`))
	a, err := c.Get(ctx, Request{What: Needs, MinRevision: rev})
	if err != nil || len(a.Entries) != 1 || a.Entries[0].EntryKey() != key {
		t.Fatalf("the node's needs: %+v, %v", a, err)
	}
	f.equalsBucket(t, all, "n1", "under the node's grant")

	// A connection with the default inbox, and the prefix given to the client instead.
	plain := srv.connect(t, nats.UserInfo("node-n1", "n1-password-1234"), onAsync)
	pc := NewClient(plain, WithNode("n1"), WithInboxPrefix(prefix), WithTimeout(5*time.Second), WithSeatCheck(300*time.Millisecond))
	if a, err := pc.Get(ctx, Request{What: Needs, Node: "n1"}); err != nil || len(a.Entries) != 1 {
		t.Fatalf("Get with WithInboxPrefix: %+v, %v", a, err)
	}
	pv, err := pc.Watch(ctx, Request{What: Needs, Node: "n1"})
	if err != nil {
		t.Fatal(err)
	}
	pf := follow(pv)
	nodePut(ctx, t, node, Needs, "n1.web.config.host", []byte(`"0.0.0.0"`))
	pf.equalsBucket(t, all, "n1", "with WithInboxPrefix")
	f.equalsBucket(t, all, "n1", "after a second write")
	// $SRV.STATS (the seat checks) under each, then a round trip: a refusal the server sent comes before its PONG.
	for _, cl := range []*Client{c, pc} {
		if list, err := cl.Instances(ctx, 300*time.Millisecond); err != nil || len(list) != 1 {
			t.Fatalf("$SRV.STATS under the node's grant: %v, %v", list, err)
		}
	}
	// Another node's entries: the node's own subject refuses them with a 403 (the service's),
	// and a watch of them fails at once (the client's: it subscribes to nothing the grant refuses).
	var ve *VerbError
	if _, err := c.Get(ctx, Request{What: Needs, Node: "n2"}); !errors.As(err, &ve) || ve.Code != 403 || !errors.Is(err, ErrForbidden) || ve.Local {
		t.Fatalf("n2's needs under n1's grant: %v", err)
	}
	if _, err := c.Watch(ctx, Request{What: Applied, Node: "n2"}); !errors.As(err, &ve) || ve.Code != 403 || !errors.Is(err, ErrForbidden) || !ve.Local {
		t.Fatalf("a watch of n2's applied under n1's grant: %v", err)
	}

	// A client of the whole mesh under the node's grant: a request naming n1 is asked on n1's
	// subject, which the grant allows; one naming no node on the mesh's, which the server refuses.
	var meshRefused asyncErrors
	meshConn := srv.connect(t, nats.UserInfo("node-n1", "n1-password-1234"), nats.CustomInboxPrefix(prefix), meshRefused.option())
	mc := NewClient(meshConn, WithTimeout(time.Second))
	if a, err := mc.Get(ctx, Request{What: Needs, Node: "n1"}); err != nil || len(a.Entries) != 2 {
		t.Fatalf("n1's needs by a client of the whole mesh under n1's grant: %+v, %v", a, err)
	}
	if _, err := mc.Get(ctx, Request{What: Needs}); err == nil || errors.As(err, &ve) {
		t.Fatalf("the mesh's needs under n1's grant: %v, want no answer", err)
	}
	eventually(t, 5*time.Second, 50*time.Millisecond, "the server refuses the publish on the mesh's subject", func() error {
		meshAsync := meshRefused.list()
		for _, e := range meshAsync {
			if strings.Contains(strings.ToLower(e), "permissions violation") && strings.Contains(e, `"`+VerbSubject+`"`) {
				return nil
			}
		}
		return fmt.Errorf("asynchronous errors: %v", meshAsync)
	})
	if err := node.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := plain.Flush(); err != nil {
		t.Fatal(err)
	}
	refused.none(t, "the node's client")
}

// A provider's grant as printed is enough for a client given WithNeedsScope:
// the registry and every node's needs on NeedsVerbSubject, replies under
// ProviderInboxPrefix; applied and collect are refused with a 403.
func TestAProvidersGrantAsPrinted(t *testing.T) {
	svcGrant, _ := printedGrant(t, "--role", "provisioner")
	nodeGrant, _ := printedGrant(t, "--role", "node", "--node", "n1")
	providerGrant, prefix := printedGrant(t, "--role", "provider")
	if prefix != ProviderInboxPrefix {
		t.Fatalf("permissions prints the inbox prefix %q; ProviderInboxPrefix is %q", prefix, ProviderInboxPrefix)
	}
	conf := fmt.Sprintf(`accounts { MESH: { jetstream: enabled, users: [
  {user: "svc", password: "svc-password-1234", permissions: %s}
  {user: "node-n1", password: "n1-password-1234", permissions: %s}
  {user: "provider", password: "provider-password-1234", permissions: %s}
]}}`, svcGrant, nodeGrant, providerGrant)
	srv := startNATS(t, conf)
	svc := startService(t, srv.URL, "--user", "svc", "--password", "svc-password-1234")

	var refused asyncErrors
	// The connection's own inbox is the default: WithNeedsScope gives the client the provider's.
	provider := srv.connect(t, nats.UserInfo("provider", "provider-password-1234"), refused.option())
	c := NewClient(provider, WithNeedsScope(), WithTimeout(5*time.Second), WithSeatCheck(300*time.Millisecond))
	waitHolder(t, c, svc)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	views, err := c.Watch(ctx, Request{What: Needs})
	if err != nil {
		t.Fatal(err)
	}
	f := follow(views)
	node := srv.connect(t, nats.UserInfo("node-n1", "n1-password-1234"), nats.CustomInboxPrefix(NodeInboxPrefix("n1")))
	key, _ := NeedsKey("n1", "web", "config", "port")
	rev := nodePut(ctx, t, node, Needs, key, []byte(`{"default":8080}`))
	if a, err := c.Get(ctx, Request{What: Needs, MinRevision: rev}); err != nil || len(a.Entries) != 1 || a.Entries[0].EntryKey() != key {
		t.Fatalf("the needs under the provider's grant: %+v, %v", a, err)
	}
	if a, err := c.Get(ctx, Request{What: Needs, Node: "n1"}); err != nil || len(a.Entries) != 1 {
		t.Fatalf("n1's needs under the provider's grant: %+v, %v", a, err)
	}
	if _, err := c.Get(ctx, Request{}); err != nil {
		t.Fatalf("the registry under the provider's grant: %v", err)
	}
	admin := srv.connect(t, nats.UserInfo("svc", "svc-password-1234"), nats.CustomInboxPrefix("_INBOX_mesh-provisioner"))
	f.equalsBucket(t, bucket(t, admin, Needs), "n1", "under the provider's grant (n1's keys alone were written)")

	var ve *VerbError
	if _, err := c.Get(ctx, Request{What: Applied, Node: "n1"}); !errors.As(err, &ve) || ve.Code != 403 || !errors.Is(err, ErrForbidden) || ve.Local {
		t.Fatalf("applied under the provider's grant: %v", err)
	}
	if _, err := c.Watch(ctx, Request{What: Collect}); !errors.As(err, &ve) || ve.Code != 403 || !errors.Is(err, ErrForbidden) || !ve.Local {
		t.Fatalf("a watch of collect under the provider's grant: %v", err)
	}
	if err := provider.Flush(); err != nil {
		t.Fatal(err)
	}
	refused.none(t, "the provider's client")
}
