package provisioner

// Building a node's own keys, every token checked: a key built here is in its
// bucket's shape, or the call fails with a *KeyError naming the token (a dot
// or a wildcard in a token would change the key's shape, or widen a
// subscription).

const notPlain = "not a plain token (only A-Z a-z 0-9 - _ / = are allowed)"

// token checks that value can be the key's field as it is.
func token(field, value string) error {
	switch {
	case value == "":
		return &KeyError{Field: field, Value: value, Message: "empty token"}
	case !isPlainToken(value):
		return &KeyError{Field: field, Value: value, Message: notPlain}
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
		return "", &KeyError{Field: "collection", Message: "empty name"}
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

// PutSubject is the subject of a node's write of key to what's bucket: a
// JetStream publish there is a KV put (with the header KV-Operation: DEL, a
// delete), and its PubAck.Sequence the revision to ask with MinRevision. A
// node writes so because its grant does not let it open the bucket
// (jetstream.KeyValue asks for the stream's info, which would list every
// node's keys).
//
// domain is the JetStream domain of the buckets when they are not the
// connection's own: a node at a site's leaf server writes to the hub's
// buckets behind the hub's domain, $JS.<domain>.API.$KV.<bucket>.<key>,
// which the hub's servers map back to the bucket (nats.go's KeyValue puts so
// for a jetstream.NewWithDomain); a plain $KV.<bucket>.<key> from a leaf
// server finds no stream. "" is the connection's own: $KV.<bucket>.<key>.
func PutSubject(what What, key, domain string) string {
	subject := "$KV.mesh-provisioner_" + string(what) + "." + key
	if domain == "" {
		return subject
	}
	return "$JS." + domain + ".API." + subject
}

// ProviderInboxPrefix is the inbox prefix a provider's grant lets it receive
// replies under (what `mesh-provisioner permissions --role provider` prints).
const ProviderInboxPrefix = "_INBOX_mesh-provider"

// NodeInboxPrefix is the inbox prefix a node's grant lets it receive replies
// under (what `mesh-provisioner permissions --role node --node <node>` prints).
func NodeInboxPrefix(node string) string {
	return "_INBOX_mesh-node_" + node
}
