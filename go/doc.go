// Package provisioner is the Go client of mesh-provisioner, the provisioning
// service of a NATS mesh: it asks the verb (one page, every page merged, or
// entries as an iterator) and keeps a live
// view of what was asked from the feed mesh-provisioner.feed.<what>.<key>.
//
// It speaks protocol version 1, as docs/protocol.md describes it, and follows
// the TypeScript client (mesh-provisioner/client) rule for rule: the key
// builders, the =hex codec, the request's checks and the watch's recipe are
// held to the same shared test vectors (../vectors), so the two cannot drift.
//
// The client never makes its own connection: pass a *nats.Conn connected with
// the user's credentials, and say whose grant they are. A node's grant
// (mesh-provisioner permissions --role node --node n1) lets it ask only its own
// verb subject, NodeVerbSubject("n1"), which answers the registry and n1's
// entries, and receive replies only under its own inbox prefix,
// NodeInboxPrefix("n1"): give the client WithNode("n1"), which does both. A
// provider's grant allows NeedsVerbSubject: give it WithNeedsScope(). Without
// either, the client asks VerbSubject, which the provisioner's grant (operators)
// allows, and a request naming a node on that node's subject.
package provisioner
