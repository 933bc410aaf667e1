package provisioner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The page scanner reads every page as encoding/json does, or gives up and
// lets encoding/json read it: on the shared reply vectors, on them cut short
// anywhere, and with bytes changed at random.

func slowPage(what What, data []byte) (*Page, error) {
	switch what {
	case Needs:
		return decodeTyped[NeedsEntry](data)
	case Applied:
		return decodeTyped[AppliedEntry](data)
	default:
		return decodeTyped[CollectEntry](data)
	}
}

func scanned(what What, data []byte) (*Page, error) {
	switch what {
	case Needs:
		return fastPage(data, (*scanner).needs)
	case Applied:
		return fastPage(data, (*scanner).applied)
	default:
		return fastPage(data, (*scanner).collect)
	}
}

func nodeReplies(t *testing.T) [][]byte {
	var v struct {
		Replies []struct{ Reply json.RawMessage }
	}
	readVectors(t, "replies.json", &v)
	var out [][]byte
	for _, r := range v.Replies {
		var compact bytes.Buffer
		_ = json.Compact(&compact, r.Reply)
		if !bytes.Contains(compact.Bytes(), []byte(`{"what":"registry"`)) {
			out = append(out, compact.Bytes())
		}
	}
	// And the same, spaced out: a reader must not depend on the compact form.
	for _, b := range out[:len(out):len(out)] {
		var spaced bytes.Buffer
		_ = json.Indent(&spaced, b, " ", "\t")
		out = append(out, spaced.Bytes())
	}
	return out
}

func whatOf(data []byte) What {
	var h struct{ What What }
	_ = json.Unmarshal(data, &h)
	return h.What
}

func TestScannerReadsWhatEncodingJSONReads(t *testing.T) {
	replies := nodeReplies(t)
	if len(replies) < 20 {
		t.Fatalf("%d node replies", len(replies))
	}
	for _, data := range replies {
		what := whatOf(data)
		fast, err := scanned(what, data)
		if err != nil {
			t.Fatalf("the scanner gave up on a page the service sends: %s", data)
		}
		slow, err := slowPage(what, data)
		if err != nil || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("the scanner read\n%+v\nencoding/json\n%+v\nfrom %s", fast, slow, data)
		}
		// Cut short anywhere: never a page.
		for cut := 0; cut < len(data); cut++ {
			if p, err := scanned(what, data[:cut]); err == nil {
				t.Fatalf("a page cut at %d read as %+v", cut, p)
			}
		}
	}
}

func TestScannerAgreesOnChangedBytes(t *testing.T) {
	alphabet := []byte(`{}[]",:\ 0123456789.eE-+tfnul` + "\x00\x1f\x7f\xc3\xa9\xff")
	agreed, refused := 0, 0
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(23, seed))
		changeEach(t, rng, alphabet, &agreed, &refused)
	}
	t.Logf("%d changed pages read alike, %d left to encoding/json", agreed, refused)
}

func changeEach(t *testing.T, rng *rand.Rand, alphabet []byte, agreed, refused *int) {
	t.Helper()
	for _, data := range nodeReplies(t) {
		what := whatOf(data)
		for range 300 {
			b := bytes.Clone(data)
			for range 1 + rng.IntN(3) {
				b[rng.IntN(len(b))] = alphabet[rng.IntN(len(alphabet))]
			}
			fast, err := scanned(what, b)
			if err != nil {
				*refused++
				continue
			}
			slow, serr := slowPage(what, b)
			if serr != nil || !reflect.DeepEqual(fast, slow) {
				diff := ""
				if serr == nil && len(fast.Entries) == len(slow.Entries) {
					for i := range fast.Entries {
						if !reflect.DeepEqual(fast.Entries[i], slow.Entries[i]) {
							diff = fmt.Sprintf("entry %d: %+v against %+v", i, fast.Entries[i], slow.Entries[i])
							break
						}
					}
				}
				t.Fatalf("on %s\nthe scanner read %+v\nencoding/json %+v, %v\n%s", b, fast, slow, serr, diff)
			}
			*agreed++
		}
	}
}

func BenchmarkDecodeNeedsPage(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"what":"needs","revision":1000000,"entries":[`)
	for i := range 6700 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"key":"n%d.web.config.k%d","node":"n%d","module":"web","kind":"config","name":"k%d","value":{"default":8080,"note":"a need"},"revision":%d}`, i%10000, i, i%10000, i, i+1)
	}
	sb.WriteString(`],"outOfShape":[],"next":"n1.web.config.k6699"}`)
	data := []byte(sb.String())
	for _, c := range []struct {
		name string
		read func() error
	}{
		{"scanner", func() error { _, err := decodePage(Needs, data); return err }},
		{"encoding/json", func() error { _, err := decodeTyped[NeedsEntry](data); return err }},
		{"encoding/json next only", func() error {
			var head struct {
				Entries []struct{}
				Next    *string
			}
			return json.Unmarshal(data, &head)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := c.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
