package provisioner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
)

// The subjects of the protocol (docs/protocol.md).
const (
	// VerbSubject is the verb's subject: request/reply, one page per request.
	VerbSubject = "mesh-provisioner.provisioning"
	// FeedPrefix starts every feed subject: <FeedPrefix>.<what>.<key>.
	FeedPrefix = "mesh-provisioner.feed"
	// ServiceName is the micro service's name ($SRV.PING, $SRV.INFO, $SRV.STATS).
	ServiceName = "mesh-provisioner"
)

// Client asks mesh-provisioner over a connection the caller made. It is safe
// for concurrent use.
type Client struct {
	nc          *nats.Conn
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
// allows replies only under NodeInboxPrefix(node). Connecting with
// nats.CustomInboxPrefix does the same for every request of the connection.
func WithInboxPrefix(prefix string) Option { return func(c *Client) { c.inboxPrefix = prefix } }

// WithSeatCheck is how often a watch asks $SRV.STATS who holds the seat (only
// the holder publishes the feed); default 5 s, 0 never.
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
	return c
}

// inbox is a fresh reply subject under the client's prefix, or the connection's.
func (c *Client) inbox() string {
	if c.inboxPrefix != "" {
		return c.inboxPrefix + "." + nuid.Next()
	}
	return c.nc.NewInbox()
}

// ask sends one request to the verb and returns the reply's body, or a
// *VerbError when the reply is a service error.
func (c *Client) ask(ctx context.Context, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var (
		m   *nats.Msg
		err error
	)
	if c.inboxPrefix == "" {
		m, err = c.nc.RequestWithContext(ctx, VerbSubject, body)
	} else {
		m, err = c.requestUnder(ctx, body)
	}
	if err != nil {
		return nil, fmt.Errorf("mesh-provisioner: no answer from %s (is mesh-provisioner serve running, and may this user ask it?): %w", VerbSubject, err)
	}
	if code := m.Header.Get("Nats-Service-Error-Code"); code != "" {
		n, convErr := strconv.Atoi(code)
		if convErr != nil {
			n = 500
		}
		msg := m.Header.Get("Nats-Service-Error")
		if msg == "" {
			msg = "error"
		}
		return nil, &VerbError{Code: n, Message: msg}
	}
	return m.Data, nil
}

// requestUnder is a request whose reply comes to an inbox under the client's
// own prefix: subscribed before the request is published, so the reply
// cannot come first.
func (c *Client) requestUnder(ctx context.Context, body []byte) (*nats.Msg, error) {
	inbox := c.inbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return nil, err
	}
	defer sub.Unsubscribe()
	if err := sub.AutoUnsubscribe(1); err != nil {
		return nil, err
	}
	if err := c.nc.PublishRequest(VerbSubject, inbox, body); err != nil {
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
