package provisioner_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/nats-io/nats.go"

	provisioner "github.com/mesh-provisioner/mesh-provisioner/go"
)

// A node's client: its needs, every page merged, asked on its own verb subject
// and answered under its grant's inbox prefix (WithNode sets both).
func ExampleClient_Get() {
	nc, err := nats.Connect(nats.DefaultURL, nats.CustomInboxPrefix(provisioner.NodeInboxPrefix("n1")))
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	c := provisioner.NewClient(nc, provisioner.WithNode("n1"))
	a, err := c.Get(context.Background(), provisioner.Request{What: provisioner.Needs})
	var ve *provisioner.VerbError
	switch {
	case errors.As(err, &ve) && ve.Retryable():
		return // 503, 504 or 500: ask again in a moment
	case errors.Is(err, provisioner.ErrBadRequest):
		log.Fatalf("fix the request: %v", err)
	case err != nil:
		log.Fatal(err)
	}
	for _, e := range a.Entries {
		if need := e.(*provisioner.NeedsEntry); !need.IsAnswered() {
			fmt.Printf("no domain answers %s: %s\n", need.Kind, need.Key)
		}
	}
}

// A live view of one node's needs, kept from the feed.
func ExampleClient_Watch() {
	nc, err := nats.Connect(nats.DefaultURL, nats.CustomInboxPrefix(provisioner.NodeInboxPrefix("n1")))
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	views, err := provisioner.NewClient(nc, provisioner.WithNode("n1")).Watch(ctx, provisioner.Request{What: provisioner.Needs})
	if err != nil {
		log.Fatal(err)
	}
	for v := range views { // closed when ctx ends
		if v.Synced {
			fmt.Println(v.Revision, len(v.Entries), len(v.OutOfShape))
		}
	}
}

// Keys a node writes, every token checked: a refusal matches ErrInvalidKey,
// and a *KeyError names the token.
func ExampleCollectKey() {
	key, err := provisioner.CollectKey("n1", "shell:zsh:normal", "web")
	fmt.Println(key, err)
	_, err = provisioner.NeedsKey("n1", "web.api", "config", "port")
	var ke *provisioner.KeyError
	if errors.Is(err, provisioner.ErrInvalidKey) && errors.As(err, &ke) {
		fmt.Println(ke.Field, ke.Value)
	}
	// Output:
	// n1.shell=3Azsh=3Anormal.web <nil>
	// module web.api
}

// A node's write of its own key is a JetStream publish on the key's subject;
// at a site's leaf server, behind the hub's JetStream domain.
func ExamplePutSubject() {
	key, _ := provisioner.NeedsKey("n1", "web", "config", "port")
	fmt.Println(provisioner.PutSubject(provisioner.Needs, key, ""))
	fmt.Println(provisioner.PutSubject(provisioner.Needs, key, "hub"))
	// Output:
	// $KV.mesh-provisioner_needs.n1.web.config.port
	// $JS.hub.API.$KV.mesh-provisioner_needs.n1.web.config.port
}
