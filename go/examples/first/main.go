// Command first is the example go/README.md starts with: the registry, then
// a live view of the needs, from the service `npm start` runs (NATS_URL).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/nats-io/nats.go"

	provisioner "github.com/mesh-provisioner/mesh-provisioner/go"
)

func main() {
	nc, err := nats.Connect(os.Getenv("NATS_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	c := provisioner.NewClient(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a, err := c.Get(ctx, provisioner.Request{What: provisioner.Registry})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range a.Entries {
		r := e.(*provisioner.RegistryEntry)
		fmt.Println(r.Kind, r.Module, r.Bucket)
	}
	views, err := c.Watch(ctx, provisioner.Request{What: provisioner.Needs})
	if err != nil {
		log.Fatal(err)
	}
	for v := range views {
		if v.Synced {
			fmt.Printf("%d needs at revision %d\n", len(v.Entries), v.Revision)
			return
		}
	}
}
