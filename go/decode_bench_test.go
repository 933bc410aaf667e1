package provisioner

import (
	"fmt"
	"strings"
	"testing"
)

// nodeAnswer is a page as a node's own request is answered: its ~100 needs,
// each with a small JSON value, compact as the service writes it.
func nodeAnswer(entries int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"what":"needs","revision":1000000,"entries":[`)
	for i := range entries {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"key":"n1.web.config.k%d","node":"n1","module":"web","kind":"config","name":"k%d","value":{"default":8080,"note":"a need"},"revision":%d}`, i, i, i+1)
	}
	sb.WriteString(`],"outOfShape":[]}`)
	return []byte(sb.String())
}

func BenchmarkDecodeNodeAnswer(b *testing.B) {
	data := nodeAnswer(100)
	for _, c := range []struct {
		name string
		read func() (*Page, error)
	}{
		{"scanner", func() (*Page, error) { return fastPage(data, (*scanner).needs) }},
		{"encoding/json", func() (*Page, error) { return decodeTyped[NeedsEntry](data) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if p, err := c.read(); err != nil || len(p.Entries) != 100 {
					b.Fatal(len(p.Entries), err)
				}
			}
		})
	}
}
