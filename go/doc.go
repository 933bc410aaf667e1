// Package provisioner is the Go client of mesh-provisioner, the provisioning
// service of a NATS mesh: it asks the verb mesh-provisioner.provisioning
// (one page, every page merged, or entries as an iterator) and keeps a live
// view of what was asked from the feed mesh-provisioner.feed.<what>.<key>.
//
// It speaks protocol version 1, as docs/protocol.md describes it, and follows
// the TypeScript client (mesh-provisioner/client) rule for rule: the key
// builders, the =hex codec, the request's checks and the watch's recipe are
// held to the same shared test vectors (../vectors), so the two cannot drift.
//
// The client never makes its own connection: pass a *nats.Conn connected with
// the user's credentials. A node's grant lets it receive replies only under its
// own inbox prefix (NodeInboxPrefix), so connect with
// nats.CustomInboxPrefix(provisioner.NodeInboxPrefix("n1")), or give the
// client WithInboxPrefix.
package provisioner
