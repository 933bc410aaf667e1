// Package provisioner is the Go client of mesh-provisioner, the provisioning
// service of a NATS mesh: it asks the verb (one page, every page merged, or
// entries as an iterator) and keeps a live view of what was asked from the
// feed mesh-provisioner.feed.<what>.<key>.
//
// It speaks protocol version 1, as docs/protocol.md describes it, and follows
// the TypeScript client (mesh-provisioner-client) rule for rule: the key
// builders, the =hex codec, the request's checks, the subject each scope asks
// on and the watch's recipe are held to the same shared test vectors
// (../vectors), so the two cannot drift.
//
// The client never makes its own connection: pass a *nats.Conn connected with
// the user's credentials, and say whose grant they are, for the verb has one
// subject per read scope:
//
//   - A node's grant (mesh-provisioner permissions --role node --node n1)
//     lets it ask only its own verb subject, NodeVerbSubject("n1"), which
//     answers the registry and n1's needs, applied and collect (another
//     node's are refused with a 403), and receive replies only under its own
//     inbox prefix, NodeInboxPrefix("n1"). Give the client WithNode("n1"),
//     which does both and asks a request of needs, applied or collect that
//     names no node for n1's. The grant does not let it open a node bucket
//     (jetstream.KeyValue asks for the stream's info, which would list every
//     node's keys): a node writes its own keys with a JetStream publish on
//     PutSubject(what, key, domain), e.g. js.Publish(ctx,
//     PutSubject(Needs, key, ""), value), whose PubAck.Sequence is the
//     revision to pass as MinRevision. At a site's leaf server the domain is
//     the hub's: PutSubject(Needs, key, "hub").
//   - A provider's grant (--role provider) allows NeedsVerbSubject, which
//     answers the registry and every node's needs, and replies under
//     ProviderInboxPrefix: give the client WithNeedsScope().
//   - Without either, the client asks VerbSubject, the whole mesh, which the
//     provisioner's grant (operators) allows; a request naming a node is
//     asked on that node's subject (the same answer).
//
// Staleness: an instance whose projection has heard nothing from its
// bucket's stream for longer than its --stale-after (a site cut off from its
// hub) still answers, and says so: Page.Stale, Answer.Stale (the page's
// whose Since is the oldest), View.Stale (the last snapshot's) and
// VerbError.Stale are a *Staleness, nil when current. One the client cannot
// read is ignored, and the answer stands.
//
// Errors: match a refusal with errors.Is against its sentinel, never by its
// message, which is for people and may be reworded. ErrBadRequest (400: fix
// the request; ErrRequestTooLarge and ErrInvalidKey are finer kinds of it),
// ErrForbidden (403: the subject does not reach what was asked),
// ErrNotSynced (503), ErrRevisionTimeout (504) and ErrInternal (500). A
// refusal of the verb is a *VerbError (errors.As) with the protocol's Code,
// Local when the client refused before sending, and Retryable for 503, 504
// and 500; a key the builders or the =hex codec refuse is a *KeyError naming
// the Field and Value. Each sentinel is the same refusal, by the same code,
// in the TypeScript client.
package provisioner
