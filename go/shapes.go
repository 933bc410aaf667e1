package provisioner

import (
	"slices"
	"strings"
)

// The key shape of each bucket (docs/protocol.md, "Keys"), as the service
// reads it: a key fits its bucket's shape and yields its fields, or is out of
// shape, with the tokens that are still readable. The client needs the
// readable tokens to decide whether a feed event of a key out of shape (or a
// delete) belongs to what a watch asked for; why a key is out of shape is the
// service's to say (OutOfShape.Reason).

// shape is a key read by its bucket's shape: ok with fields, or the readable tokens.
type shape struct {
	ok       bool
	fields   map[string]string
	readable map[string]string
}

var (
	needsFields   = []string{"node", "module", "kind", "name"}
	appliedFields = []string{"node", "module"}
	collectFields = []string{"node", "collection", "contributor"}
)

// isPlainToken reports whether t is a plain token: non-empty, only A-Z a-z 0-9 - _ / =.
func isPlainToken(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; !unescaped[c] && c != '=' {
			return false
		}
	}
	return true
}

// readableOf: with too few tokens the leading ones are read at their places;
// with too many only the node is (the extra dots could belong to any later
// token, and claiming a later field could hide the key from a filter it
// matches; the node is safe, a node's grant being <node>.>).
func readableOf(tokens, fields []string, collectionAt int) map[string]string {
	r := map[string]string{}
	upto := len(tokens)
	if len(tokens) > len(fields) {
		upto = 1
	}
	for i := 0; i < upto; i++ {
		t := tokens[i]
		if i == collectionAt {
			if name, reason := decodeName(t); reason == "" {
				r[fields[i]] = name
			}
		} else if isPlainToken(t) {
			r[fields[i]] = t
		}
	}
	return r
}

// keyShape reads key as the tokens fields name; the token at collectionAt
// (-1: none) is an escaped collection name.
func keyShape(key string, fields []string, collectionAt int) shape {
	t := strings.Split(key, ".")
	if len(t) != len(fields) {
		return shape{readable: readableOf(t, fields, collectionAt)}
	}
	f := make(map[string]string, len(fields))
	for i, tok := range t {
		if i == collectionAt {
			name, reason := decodeName(tok)
			if reason != "" {
				return shape{readable: readableOf(t, fields, collectionAt)}
			}
			f[fields[i]] = name
		} else if isPlainToken(tok) {
			f[fields[i]] = tok
		} else {
			return shape{readable: readableOf(t, fields, collectionAt)}
		}
	}
	return shape{ok: true, fields: f}
}

func registryKeyShape(key string, knownKinds []string) shape {
	switch {
	case strings.Contains(key, ".") || !isPlainToken(key):
		return shape{readable: map[string]string{}}
	case !slices.Contains(knownKinds, key):
		return shape{readable: map[string]string{"kind": key}}
	}
	return shape{ok: true, fields: map[string]string{"kind": key}}
}

// parseKey reads key by the shape of the bucket what. knownKinds matters only
// for the registry (the kinds of the service's compiled table).
func parseKey(what What, key string, knownKinds []string) shape {
	switch what {
	case Needs:
		return keyShape(key, needsFields, -1)
	case Applied:
		return keyShape(key, appliedFields, -1)
	case Collect:
		return keyShape(key, collectFields, 1)
	default:
		return registryKeyShape(key, knownKinds)
	}
}

// readableContradicts: some filter names a field the key reads as another value.
func readableContradicts(readable map[string]string, filters map[string]string) bool {
	for f, v := range filters {
		if seen, ok := readable[f]; ok && seen != v {
			return true
		}
	}
	return false
}
