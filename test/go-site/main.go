// Command go-site is a node at a site, as test/integration/sites.test.ts runs
// it with the Go client: connected to the site's leaf server, it writes its
// own keys in the hub's needs bucket by a JetStream publish under the hub's
// domain's API prefix, as the Go KV client does across a domain (a node's
// grant gives no stream info, so no KV API), then asks the verb for its needs
// at the revision its last write made, and again a few times. Each answer is
// one JSON line on stdout: the revision it names and each entry's key and
// revision; a failure is one line on stderr and exit 1.
//
//	go-site <leaf url> <domain> <node> <asks>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	provisioner "github.com/mesh-provisioner/mesh-provisioner/go"
)

const needsBucket = "mesh-provisioner_needs"

type answer struct {
	Revision uint64      `json:"revision"`
	Entries  [][2]any    `json:"entries"`
	Stale    interface{} `json:"stale,omitempty"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go-site: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 5 {
		fail("usage: go-site <leaf url> <domain> <node> <asks>")
	}
	url, domain, node := os.Args[1], os.Args[2], os.Args[3]
	asks, err := strconv.Atoi(os.Args[4])
	if err != nil {
		fail("asks: %v", err)
	}
	nc, err := nats.Connect(url, nats.Name("go-site-"+node))
	if err != nil {
		fail("connect %s: %v", url, err)
	}
	defer nc.Close()
	js, err := jetstream.NewWithDomain(nc, domain)
	if err != nil {
		fail("jetstream: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var last uint64
	for _, name := range []string{"port", "host"} {
		key := fmt.Sprintf("%s.web.config.%s", node, name)
		// Through a domain a KV write goes to the domain's API prefix, which the hub maps to the bucket's subject.
		ack, err := js.Publish(ctx, "$JS."+domain+".API.$KV."+needsBucket+"."+key, []byte(fmt.Sprintf(`{"default":"%s-%s"}`, node, name)))
		if err != nil {
			fail("write %s through domain %s: %v", key, domain, err)
		}
		last = ack.Sequence
	}
	c := provisioner.NewClient(nc, provisioner.WithNode(node), provisioner.WithTimeout(3*time.Second))
	out := json.NewEncoder(os.Stdout)
	for i := 0; i < asks; i++ {
		r := provisioner.Request{What: provisioner.Needs, Node: node}
		if i == 0 {
			r.MinRevision = last
		}
		p, err := c.Page(ctx, r)
		if err != nil {
			fail("ask %d: %v", i, err)
		}
		a := answer{Revision: p.Revision, Entries: [][2]any{}}
		for _, e := range p.Entries {
			a.Entries = append(a.Entries, [2]any{e.EntryKey(), e.EntryRevision()})
		}
		for _, o := range p.OutOfShape {
			a.Entries = append(a.Entries, [2]any{o.Key, nil})
		}
		if err := out.Encode(a); err != nil {
			fail("write: %v", err)
		}
	}
}
