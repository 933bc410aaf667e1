package provisioner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
)

// The subjects of the protocol (docs/protocol.md).
const (
	// VerbSubject is the verb's subject for the whole mesh: request/reply, one
	// page per request. A node asks on NodeVerbSubject(node), a provider on
	// NeedsVerbSubject (docs/protocol.md, "Who may read what").
	VerbSubject = "mesh-provisioner.provisioning"
	// NeedsVerbSubject answers the registry and every node's needs: the
	// subject a provider's grant allows.
	NeedsVerbSubject = "mesh-provisioner.provisioning-needs"
	// FeedPrefix starts every feed subject: <FeedPrefix>.<what>.<key>.
	FeedPrefix = "mesh-provisioner.feed"
	// ServiceName is the micro service's name ($SRV.PING, $SRV.INFO, $SRV.STATS).
	ServiceName = "mesh-provisioner"
)

// NodeVerbSubject answers the registry and node's own needs, applied and
// collect: the subject a node's grant allows.
func NodeVerbSubject(node string) string { return VerbSubject + "." + node }

// Client asks mesh-provisioner over a connection the caller made. It is safe
// for concurrent use.
type Client struct {
	nc *nats.Conn
	// node is the node whose grant the connection holds (WithNode), needsOnly
	// a provider's (WithNeedsScope); neither: the whole mesh's.
	node        string
	needsOnly   bool
	timeout     time.Duration
	pageSize    int
	inboxPrefix string
	seatCheck   time.Duration
	onError     func(error)
	// onEvent, when set (by tests), sees every feed message a watch receives.
	onEvent func(subject string)
	// onTake, when set (by tests), sees each snapshot a watch starts, and why.
	onTake func(why string)
	// feedPending is how many feed messages a watch's subscription holds
	// before it drops (a slow consumer); feedBuffer how many wait for the
	// watch's loop. Tests make them small.
	feedPending, feedBuffer int
}

// Option configures a Client.
type Option func(*Client)

// WithTimeout is how long to wait for each page (default 10 s). A MinRevision
// request waits up to the service's --max-wait (5 s by default) before its
// 504, so keep this above that.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithPageSize is how many entries to ask per page (default: as many as fit
// the service's connection's max payload).
func WithPageSize(n int) Option { return func(c *Client) { c.pageSize = n } }

// WithInboxPrefix makes the client receive its replies (the verb's pages and
// $SRV.STATS) under this prefix instead of the connection's: a node's grant
// allows replies only under NodeInboxPrefix(node), a provider's only under
// ProviderInboxPrefix (WithNode and WithNeedsScope default to them).
// Connecting with nats.CustomInboxPrefix does the same for every request of
// the connection.
func WithInboxPrefix(prefix string) Option { return func(c *Client) { c.inboxPrefix = prefix } }

// WithNode says the connection holds node's grant (`mesh-provisioner
// permissions --role node --node <node>`): every request is asked on
// NodeVerbSubject(node), a request of needs, applied or collect that names
// no node is asked for node's, and replies come under NodeInboxPrefix(node)
// unless WithInboxPrefix says otherwise. node must be a plain token (every
// request fails with a 400 otherwise). The last of WithNode and
// WithNeedsScope given wins.
func WithNode(node string) Option {
	return func(c *Client) { c.node, c.needsOnly = node, false }
}

// WithNeedsScope says the connection holds a provider's grant (`mesh-provisioner
// permissions --role provider`): every request is asked on NeedsVerbSubject,
// which answers the registry and the needs (applied and collect are refused
// with a 403), and replies come under ProviderInboxPrefix unless
// WithInboxPrefix says otherwise. The last of WithNode and WithNeedsScope
// given wins.
func WithNeedsScope() Option {
	return func(c *Client) { c.node, c.needsOnly = "", true }
}

// WithSeatCheck is how often a watch asks $SRV.STATS who holds the seat (only
// the holder publishes the feed), and takes a fresh snapshot while its view
// is stale; default 5 s, 0 never.
func WithSeatCheck(d time.Duration) Option { return func(c *Client) { c.seatCheck = d } }

// WithErrorHandler is called when a watch's snapshot fails and is tried again,
// or a feed event cannot be read (the view stays as it was meanwhile).
func WithErrorHandler(fn func(error)) Option { return func(c *Client) { c.onError = fn } }

// NewClient is a client over nc.
func NewClient(nc *nats.Conn, opts ...Option) *Client {
	c := &Client{nc: nc, timeout: 10 * time.Second, seatCheck: 5 * time.Second, feedPending: 1 << 20, feedBuffer: 1024}
	for _, o := range opts {
		o(c)
	}
	if c.inboxPrefix == "" {
		switch {
		case c.node != "":
			c.inboxPrefix = NodeInboxPrefix(c.node)
		case c.needsOnly:
			c.inboxPrefix = ProviderInboxPrefix
		}
	}
	return c
}

// scoped is r as the client's scope asks it: a node's client asks for its own
// node's entries when r names no node.
func (c *Client) scoped(r Request) Request {
	if c.node != "" && r.Node == "" && r.what() != Registry {
		r.Node = c.node
	}
	return r
}

// scopeError is the local 400 every request of a client given WithNode gets when
// the node is not a plain token: no subject token could name it.
func (c *Client) scopeError() error {
	if c.node == "" || isPlainToken(c.node) {
		return nil
	}
	return localRefusal("node %q (WithNode) is %s, so no verb subject can name it", c.node, notPlain)
}

// refused is the 403 the client's subject answers r with (r as scoped), nil
// where it answers: a node's subject answers the registry and its own node's
// entries, the providers' the registry and the needs.
func (c *Client) refused(r Request) error {
	what := r.what()
	switch {
	case what == Registry:
		return nil
	case c.needsOnly && what != Needs:
		return &VerbError{Code: 403, Local: true, Message: fmt.Sprintf("%s answers the registry and the needs only, not %s: ask %s with a grant that allows it", NeedsVerbSubject, what, VerbSubject)}
	case c.node != "" && r.Node != c.node:
		return &VerbError{Code: 403, Local: true, Message: fmt.Sprintf("%s answers node %s's entries only, not node %s's: each node asks on its own subject, %s", NodeVerbSubject(c.node), c.node, r.Node, NodeVerbSubject(r.Node))}
	}
	return nil
}

// subjectFor is the verb subject r is asked on: the scope's, except that a
// client of the whole mesh asks a request naming a node on that node's
// subject (the same answer, and what a node's grant allows).
func (c *Client) subjectFor(r Request) string {
	switch {
	case c.node != "":
		return NodeVerbSubject(c.node)
	case c.needsOnly:
		return NeedsVerbSubject
	case r.Node != "" && isPlainToken(r.Node):
		return NodeVerbSubject(r.Node)
	default:
		return VerbSubject
	}
}

// inbox is a fresh reply subject under the client's prefix, or the connection's.
func (c *Client) inbox() string {
	if c.inboxPrefix != "" {
		return c.inboxPrefix + "." + nuid.Next()
	}
	return c.nc.NewInbox()
}

// ask sends one request to the verb on subject and returns the reply's body,
// or a *VerbError when the reply is a service error.
func (c *Client) ask(ctx context.Context, subject string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var (
		m   *nats.Msg
		err error
	)
	if c.inboxPrefix == "" {
		m, err = c.nc.RequestWithContext(ctx, subject, body)
	} else {
		m, err = c.requestUnder(ctx, subject, body)
	}
	if err != nil {
		return nil, fmt.Errorf("mesh-provisioner: no answer from %s (is mesh-provisioner serve running, and may this user ask it?): %w", subject, err)
	}
	if err := serviceError(m.Header, m.Data); err != nil {
		return nil, err
	}
	return m.Data, nil
}

// serviceError is the *VerbError a reply's headers carry, with the staleness
// its body carries (a body that is not JSON, or carries none, gives none), or
// nil when the reply is not a service error. A code that is not a number is
// a 500.
func serviceError(h nats.Header, body []byte) error {
	code := h.Get("Nats-Service-Error-Code")
	if code == "" {
		return nil
	}
	n, err := strconv.Atoi(code)
	if err != nil {
		n = 500
	}
	msg := h.Get("Nats-Service-Error")
	if msg == "" {
		msg = "error"
	}
	ve := &VerbError{Code: n, Message: msg}
	if bytes.Contains(body, []byte(`"stale"`)) {
		var b struct {
			Stale json.RawMessage `json:"stale"`
		}
		if json.Unmarshal(body, &b) == nil {
			ve.Stale = readStaleness(b.Stale)
		}
	}
	return ve
}

// requestUnder is a request whose reply comes to an inbox under the client's
// own prefix: subscribed before the request is published, so the reply
// cannot come first.
func (c *Client) requestUnder(ctx context.Context, subject string, body []byte) (*nats.Msg, error) {
	inbox := c.inbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return nil, err
	}
	defer sub.Unsubscribe()
	if err := sub.AutoUnsubscribe(1); err != nil {
		return nil, err
	}
	if err := c.nc.PublishRequest(subject, inbox, body); err != nil {
		return nil, err
	}
	m, err := sub.NextMsgWithContext(ctx)
	if err != nil {
		return nil, err
	}
	if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
		return nil, nats.ErrNoResponders
	}
	return m, nil
}

// isContextErr reports whether err is ctx ending.
func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
