package provisioner

import "strconv"

// Building a node's own keys, every token checked: a key built here is in its
// bucket's shape, or the call fails saying which token is wrong (a dot or a
// wildcard in a token would change the key's shape, or widen a subscription).
// The messages are the TypeScript client's.

// KeyError is a token or a collection name that cannot go into a key.
type KeyError struct {
	Message string
}

func (e *KeyError) Error() string { return e.Message }

func itoa(i int) string { return strconv.Itoa(i) }

func tokenProblem(t string) string {
	if t == "" {
		return "empty token"
	}
	if isPlainToken(t) {
		return ""
	}
	return "token " + jsQuote(t) + " has characters outside " + tokenChars
}

func token(field, value string) error {
	if p := tokenProblem(value); p != "" {
		return &KeyError{Message: field + ` "` + value + `" cannot be a key token: ` + p}
	}
	return nil
}

func tokens(pairs ...string) error {
	for i := 0; i < len(pairs); i += 2 {
		if err := token(pairs[i], pairs[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// NeedsKey is <node>.<module>.<kind>.<name> in the needs bucket.
func NeedsKey(node, module, kind, name string) (string, error) {
	if err := tokens("node", node, "module", module, "kind", kind, "name", name); err != nil {
		return "", err
	}
	return node + "." + module + "." + kind + "." + name, nil
}

// AppliedKey is <node>.<module> in the applied bucket.
func AppliedKey(node, module string) (string, error) {
	if err := tokens("node", node, "module", module); err != nil {
		return "", err
	}
	return node + "." + module, nil
}

// CollectKey is <node>.<collection, =hex escaped>.<contributor> in the collect bucket.
func CollectKey(node, collection, contributor string) (string, error) {
	if collection == "" {
		return "", &KeyError{Message: "a collection's name must not be empty"}
	}
	if err := token("node", node); err != nil {
		return "", err
	}
	escaped, err := EncodeCollection(collection)
	if err != nil {
		return "", err
	}
	if err := token("contributor", contributor); err != nil {
		return "", err
	}
	return node + "." + escaped + "." + contributor, nil
}

// ProviderInboxPrefix is the inbox prefix a provider's grant lets it receive
// replies under (what `mesh-provisioner permissions --role provider` prints).
const ProviderInboxPrefix = "_INBOX_mesh-provider"

// NodeInboxPrefix is the inbox prefix a node's grant lets it receive replies
// under (what `mesh-provisioner permissions --role node --node <node>` prints).
func NodeInboxPrefix(node string) string {
	return "_INBOX_mesh-node_" + node
}
