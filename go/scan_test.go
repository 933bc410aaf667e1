package provisioner

import "testing"

// A page's revision and next are read whatever the body's layout, never
// misread from a value that looks like them.
func TestScanPage(t *testing.T) {
	cases := []struct {
		name     string
		body     string
		revision uint64
		next     string
		hasNext  bool
	}{
		{"last page", `{"what":"needs","revision":6,"entries":[],"outOfShape":[]}`, 6, "", false},
		{"with next", `{"what":"needs","revision":6,"entries":[],"outOfShape":[],"next":"n1.web.config.port"}`, 6, "n1.web.config.port", true},
		{"escaped quote in next", `{"what":"needs","revision":7,"entries":[],"outOfShape":[{"key":"a\"b","reason":"x"}],"next":"a\"b"}`, 7, `a"b`, true},
		{"backslash ending next", `{"what":"needs","revision":8,"entries":[],"outOfShape":[],"next":"a\\"}`, 8, `a\`, true},
		{"next look-alike in a value", `{"what":"applied","revision":9,"entries":[{"key":"n1.x","node":"n1","module":"x","value":",\"next\":\"zz\"","revision":1}],"outOfShape":[]}`, 9, "", false},
		{"spaced", `{ "what": "needs", "revision": 10, "entries": [], "outOfShape": [], "next": "k" }`, 10, "k", true},
		{"fields in another order", `{"next":"k","what":"needs","revision":11,"entries":[],"outOfShape":[]}`, 11, "k", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := scanPage([]byte(c.body))
			if p.err != nil || p.revision != c.revision || p.next != c.next || p.hasNext != c.hasNext {
				t.Fatalf("scanPage = %d %q %v %v; want %d %q %v", p.revision, p.next, p.hasNext, p.err, c.revision, c.next, c.hasNext)
			}
		})
	}
	if p := scanPage([]byte(`not json`)); p.err == nil {
		t.Fatal("a body that is not JSON reads as a page")
	}
}
