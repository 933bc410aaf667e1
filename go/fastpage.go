package provisioner

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A page of a node bucket is read by a scanner made for it rather than by
// encoding/json, which spends several times as long on the same bytes (a
// million entries are 150 pages of 1 MiB): one pass, values sliced out of
// the reply's own bytes (no copy; the page's buffer lives as long as its
// entries), strings copied once. It reads any valid JSON page; anything it
// does not expect (a malformed body, a string that is not UTF-8) sends the
// page to encoding/json instead, so the two always agree (a test holds them
// to it on every shared reply vector).

var errFast = errors.New("not a page the scanner reads")

type scanner struct {
	d []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.d) {
		switch s.d[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.d) {
		return s.d[s.i]
	}
	return 0
}

func (s *scanner) take(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

// stringEnd is the end (after the closing quote) of the string at s.i, and
// whether it holds an escape.
func (s *scanner) stringEnd() (int, bool, bool) {
	if s.peek() != '"' {
		return 0, false, false
	}
	escaped := false
	for j := s.i + 1; j < len(s.d); j++ {
		switch c := s.d[j]; {
		case c == '"':
			return j + 1, escaped, true
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

func (s *scanner) str() (string, bool) {
	end, escaped, ok := s.stringEnd()
	if !ok {
		return "", false
	}
	raw := s.d[s.i:end]
	s.i = end
	body := raw[1 : len(raw)-1]
	if !escaped {
		for _, c := range body {
			if c >= 0x80 {
				if !utf8.Valid(body) {
					return "", false
				}
				break
			}
		}
		return string(body), true
	}
	var out string
	return out, json.Unmarshal(raw, &out) == nil
}

func (s *scanner) uint() (uint64, bool) {
	s.ws()
	j := s.i
	for j < len(s.d) && s.d[j] >= '0' && s.d[j] <= '9' {
		j++
	}
	if j == s.i || (j < len(s.d) && (s.d[j] == '.' || s.d[j] == 'e' || s.d[j] == 'E')) || (s.d[s.i] == '0' && j > s.i+1) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s.d[s.i:j]), 10, 64)
	s.i = j
	return n, err == nil
}

func (s *scanner) boolean() (bool, bool) {
	s.ws()
	switch {
	case len(s.d)-s.i >= 4 && string(s.d[s.i:s.i+4]) == "true":
		s.i += 4
		return true, true
	case len(s.d)-s.i >= 5 && string(s.d[s.i:s.i+5]) == "false":
		s.i += 5
		return false, true
	}
	return false, false
}

// value slices out the JSON value at s.i (no copy), checked with json.Valid
// (a string only for UTF-8: stringEnd checked its form).
func (s *scanner) value() (json.RawMessage, bool) {
	s.ws()
	start := s.i
	if start >= len(s.d) {
		return nil, false
	}
	switch s.d[start] {
	case '"':
		end, escaped, ok := s.stringEnd()
		if !ok {
			return nil, false
		}
		s.i = end
		v := s.d[start:end:end]
		if escaped {
			return v, json.Valid(v)
		}
		return v, utf8.Valid(v)
	case '{', '[':
		depth := 0
		for s.i < len(s.d) {
			switch s.d[s.i] {
			case '"':
				end, _, ok := s.stringEnd()
				if !ok {
					return nil, false
				}
				s.i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				v := s.d[start:s.i:s.i]
				return v, json.Valid(v)
			}
		}
		return nil, false
	}
	for s.i < len(s.d) {
		switch s.d[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			v := s.d[start:s.i:s.i]
			return v, json.Valid(v)
		}
		s.i++
	}
	return nil, false
}

// object reads an object, calling field for each key with the scanner at its value.
func (s *scanner) object(field func(key string) bool) bool {
	if !s.take('{') {
		return false
	}
	if s.take('}') {
		return true
	}
	for {
		key, ok := s.str()
		if !ok || !s.take(':') || !field(key) {
			return false
		}
		if s.take(',') {
			continue
		}
		return s.take('}')
	}
}

func (s *scanner) array(item func() bool) bool {
	if !s.take('[') {
		return false
	}
	if s.take(']') {
		return true
	}
	for {
		if !item() {
			return false
		}
		if s.take(',') {
			continue
		}
		return s.take(']')
	}
}

// skip reads the value of a field nobody asked for. A key that differs from
// a known one only in case gives up: encoding/json would read it as that
// field (it matches names case-insensitively), and the two must agree.
func (s *scanner) skip(key string, known ...string) bool {
	for _, k := range known {
		if strings.EqualFold(key, k) {
			return false
		}
	}
	_, ok := s.value()
	return ok
}

var commonFields = []string{"value", "revision", "valueTooLarge", "valueBytes"}

// common reads the fields every node entry has; false when key is not one.
func (s *scanner) common(key string, value *json.RawMessage, revision *uint64, tooLarge *bool, valueBytes *int) (bool, bool) {
	switch key {
	case "value":
		v, ok := s.value()
		*value = v
		return true, ok
	case "revision":
		n, ok := s.uint()
		*revision = n
		return true, ok
	case "valueTooLarge":
		b, ok := s.boolean()
		*tooLarge = b
		return true, ok
	case "valueBytes":
		n, ok := s.uint()
		*valueBytes = int(n)
		return true, ok && n <= 1<<40
	}
	return false, true
}

func (s *scanner) stringField(into *string) bool {
	v, ok := s.str()
	*into = v
	return ok
}

func (s *scanner) needs(e *NeedsEntry) bool {
	return s.object(func(key string) bool {
		if done, ok := s.common(key, &e.Value, &e.Revision, &e.ValueTooLarge, &e.ValueBytes); done {
			return ok
		}
		switch key {
		case "key":
			return s.stringField(&e.Key)
		case "node":
			return s.stringField(&e.Node)
		case "module":
			return s.stringField(&e.Module)
		case "kind":
			return s.stringField(&e.Kind)
		case "name":
			return s.stringField(&e.Name)
		case "answered":
			b, ok := s.boolean()
			e.Answered = &b
			return ok
		}
		return s.skip(key, append(commonFields, "key", "node", "module", "kind", "name", "answered")...)
	})
}

func (s *scanner) applied(e *AppliedEntry) bool {
	return s.object(func(key string) bool {
		if done, ok := s.common(key, &e.Value, &e.Revision, &e.ValueTooLarge, &e.ValueBytes); done {
			return ok
		}
		switch key {
		case "key":
			return s.stringField(&e.Key)
		case "node":
			return s.stringField(&e.Node)
		case "module":
			return s.stringField(&e.Module)
		}
		return s.skip(key, append(commonFields, "key", "node", "module")...)
	})
}

func (s *scanner) collect(e *CollectEntry) bool {
	return s.object(func(key string) bool {
		if done, ok := s.common(key, &e.Value, &e.Revision, &e.ValueTooLarge, &e.ValueBytes); done {
			return ok
		}
		switch key {
		case "key":
			return s.stringField(&e.Key)
		case "node":
			return s.stringField(&e.Node)
		case "collection":
			return s.stringField(&e.Collection)
		case "contributor":
			return s.stringField(&e.Contributor)
		}
		return s.skip(key, append(commonFields, "key", "node", "collection", "contributor")...)
	})
}

// fastPage reads a page of a node bucket whose entries entry reads into T.
func fastPage[T any, P interface {
	*T
	Entry
}](data []byte, entry func(*scanner, *T) bool) (*Page, error) {
	s := &scanner{d: data}
	p := &Page{}
	var entries []T
	ok := s.object(func(key string) bool {
		switch key {
		case "what":
			var w string
			ok := s.stringField(&w)
			p.What = What(w)
			return ok
		case "revision":
			n, ok := s.uint()
			p.Revision = n
			return ok
		case "next":
			p.HasNext = true
			return s.stringField(&p.Next)
		case "entries":
			entries = entries[:0]
			return s.array(func() bool {
				var zero T
				entries = append(entries, zero)
				return entry(s, &entries[len(entries)-1])
			})
		case "outOfShape":
			p.OutOfShape = []OutOfShape{}
			return s.array(func() bool {
				var o OutOfShape
				ok := s.object(func(key string) bool {
					switch key {
					case "key":
						return s.stringField(&o.Key)
					case "reason":
						return s.stringField(&o.Reason)
					}
					return s.skip(key, "key", "reason")
				})
				p.OutOfShape = append(p.OutOfShape, o)
				return ok
			})
		}
		return s.skip(key, "what", "revision", "next", "entries", "outOfShape")
	})
	if s.ws(); !ok || s.i != len(s.d) {
		return nil, errFast
	}
	p.Entries = make([]Entry, len(entries))
	for i := range entries {
		p.Entries[i] = P(&entries[i])
	}
	return p, nil
}
