package provisioner

import (
	"fmt"
	"strings"
	"testing"
)

// nodeAnswer is a page as a node's own request is answered: its needs, each
// with a small JSON value, compact as the service writes it.
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

// The decode a node's client pays for each snapshot of its own entries
// (docs/benchmarks.md, "The Go client").
func BenchmarkDecodeNodeAnswer(b *testing.B) {
	data := nodeAnswer(100)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if p, err := decodePage(Needs, data); err != nil || len(p.Entries) != 100 {
			b.Fatal(p, err)
		}
	}
}
