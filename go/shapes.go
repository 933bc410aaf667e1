package provisioner

import "strings"

// The key shape of each bucket (docs/protocol.md, "Keys"), as the service
// reads it: a key fits its bucket's shape and yields its fields, or is out of
// shape with a reason and the tokens that are still readable. The client needs
// the readable tokens to decide whether a feed event of a key out of shape (or
// a delete) belongs to what a watch asked for; the reasons are the service's,
// word for word, which the shared vectors check.

// shape is a key read by its bucket's shape: ok with fields, or a reason and
// the readable tokens.
type shape struct {
	ok       bool
	fields   map[string]string
	reason   string
	readable map[string]string
}

const tokenChars = "A-Z a-z 0-9 - _ / ="

var (
	needsFields   = []string{"node", "module", "kind", "name"}
	appliedFields = []string{"node", "module"}
	collectFields = []string{"node", "collection", "contributor"}
)

const (
	needsCount    = "needs keys have 4 tokens: <node>.<module>.<kind>.<name>"
	appliedCount  = "applied keys have 2 tokens: <node>.<module>"
	collectCount  = "collect keys have 3 tokens: <node>.<collection>.<contributor>"
	registryCount = "registry keys have 1 token: <kind>"
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

func plainProblem(i int, field, t string) string {
	if t == "" {
		return "token " + itoa(i+1) + " (" + field + ") is empty"
	}
	return "token " + itoa(i+1) + " (" + field + ") " + jsQuote(t) + " is not a plain token (only " + tokenChars + " are allowed)"
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

func plainKey(key string, fields []string, count string) shape {
	t := strings.Split(key, ".")
	if len(t) != len(fields) {
		return shape{reason: count, readable: readableOf(t, fields, -1)}
	}
	var problems []string
	for i, tok := range t {
		if !isPlainToken(tok) {
			problems = append(problems, plainProblem(i, fields[i], tok))
		}
	}
	if problems != nil {
		return shape{reason: strings.Join(problems, "; "), readable: readableOf(t, fields, -1)}
	}
	f := make(map[string]string, len(fields))
	for i, name := range fields {
		f[name] = t[i]
	}
	return shape{ok: true, fields: f}
}

func collectKeyShape(key string) shape {
	t := strings.Split(key, ".")
	if len(t) != 3 {
		return shape{reason: collectCount, readable: readableOf(t, collectFields, 1)}
	}
	node, escaped, contributor := t[0], t[1], t[2]
	name, reason := decodeName(escaped)
	if isPlainToken(node) && reason == "" && isPlainToken(contributor) {
		return shape{ok: true, fields: map[string]string{"node": node, "collection": name, "contributor": contributor}}
	}
	var problems []string
	if !isPlainToken(node) {
		problems = append(problems, plainProblem(0, "node", node))
	}
	if reason != "" {
		if escaped == "" {
			problems = append(problems, "token 2 (collection) is empty")
		} else {
			problems = append(problems, "token 2 (collection) "+jsQuote(escaped)+": "+reason)
		}
	}
	if !isPlainToken(contributor) {
		problems = append(problems, plainProblem(2, "contributor", contributor))
	}
	return shape{reason: strings.Join(problems, "; "), readable: readableOf(t, collectFields, 1)}
}

func registryKeyShape(key string, knownKinds []string) shape {
	known := false
	for _, k := range knownKinds {
		if k == key {
			known = true
			break
		}
	}
	switch {
	case known && isPlainToken(key):
		return shape{ok: true, fields: map[string]string{"kind": key}}
	case strings.Contains(key, "."):
		return shape{reason: registryCount, readable: map[string]string{}}
	case key == "":
		return shape{reason: "registry key is empty", readable: map[string]string{}}
	case !isPlainToken(key):
		return shape{reason: "registry key " + jsQuote(key) + " is not a plain token (only " + tokenChars + " are allowed)", readable: map[string]string{}}
	}
	list := "none"
	if len(knownKinds) > 0 {
		list = strings.Join(knownKinds, ", ")
	}
	return shape{reason: "registry key " + jsQuote(key) + " is not a known kind (known: " + list + ")", readable: map[string]string{"kind": key}}
}

// parseKey reads key by the shape of the bucket what. knownKinds matters only
// for the registry (the kinds of the service's compiled table).
func parseKey(what What, key string, knownKinds []string) shape {
	switch what {
	case Needs:
		return plainKey(key, needsFields, needsCount)
	case Applied:
		return plainKey(key, appliedFields, appliedCount)
	case Collect:
		return collectKeyShape(key)
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
