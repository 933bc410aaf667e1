package provisioner

// Which feed events a request covers, by the verb's own rules: an entry
// belongs when each filter equals its field; a key out of shape (or a
// delete, which carries only its key) belongs when none of its readable
// tokens contradicts a filter. And which feed subjects carry them: a request
// for one node subscribes to that node's keys only, so a node's client hears
// its own changes, not the mesh's.

// covers reports whether ev belongs to what the filters of a request for the
// bucket what ask.
func covers(what What, filters map[string]string, ev *FeedEvent) bool {
	if len(filters) == 0 {
		return true
	}
	if ev.Entry != nil {
		for f, v := range filters {
			if got, ok := field(ev.Entry, f); !ok || got != v {
				return false
			}
		}
		return true
	}
	s := parseKey(what, ev.Key, nil)
	readable := s.readable
	if s.ok {
		readable = s.fields
	}
	return !readableContradicts(readable, filters)
}

// feedSubjects are the subjects that carry every event covers keeps. The
// node is a validated plain token, so it cannot widen them.
func feedSubjects(what What, filters map[string]string) []string {
	node, ok := filters["node"]
	if !ok {
		return []string{FeedPrefix + "." + string(what) + ".>"}
	}
	// The node's keys, and a key of one token that is the node's name (out of
	// shape, but readable as its node).
	return []string{FeedPrefix + "." + string(what) + "." + node + ".>", FeedPrefix + "." + string(what) + "." + node}
}
