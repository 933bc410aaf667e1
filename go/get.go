package provisioner

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"runtime"
)

// Paging (docs/protocol.md, "Paging"): ask again with After set to the
// page's Next until a page has none. Every page after the first is asked with
// MinRevision at least the first page's revision, so no page comes from an
// instance that is behind it, and the first (lowest) revision is where a
// watch's feed takes over.
//
// The pages are fetched one ahead of the decoding: the next request goes out
// as soon as the page's Next is read from its body, and the body is
// decoded while the service builds the next page. A page's Next and revision
// are read first, by decoding only those two fields, and checked against the
// decoded page.

// rawPage is a reply's body with its head and tail read.
type rawPage struct {
	data     []byte
	revision uint64
	next     string
	hasNext  bool
	err      error
}

// fetch sends the pages of r, in order, on the returned channel, one ahead of
// the reader; it stops at the last page, an error (sent last), or ctx's end.
func (c *Client) fetch(ctx context.Context, r Request) <-chan rawPage {
	r = c.scoped(r)
	subject := c.subjectFor(r)
	out := make(chan rawPage, 1)
	go func() {
		defer close(out)
		send := func(p rawPage) bool {
			select {
			case out <- p:
				return true
			case <-ctx.Done():
				return false
			}
		}
		if err := c.scopeError(); err != nil {
			send(rawPage{err: err})
			return
		}
		if err := r.Validate(); err != nil {
			send(rawPage{err: err})
			return
		}
		if c.pageSize > 0 && r.Limit == 0 {
			r.Limit = c.pageSize
		}
		for first := true; ; first = false {
			body, err := r.body()
			if err == nil {
				body, err = c.ask(ctx, subject, body)
			}
			if err != nil {
				send(rawPage{err: err})
				return
			}
			p := scanPage(body)
			if !send(p) || p.err != nil || !p.hasNext {
				return
			}
			if first && p.revision > r.MinRevision {
				r.MinRevision = p.revision
			}
			r.After = p.next
		}
	}()
	return out
}

// scanPage reads a reply's revision and next, decoding only those two fields,
// so the next page can be asked before this one is decoded whole.
func scanPage(data []byte) rawPage {
	p := rawPage{data: data}
	var head struct {
		Revision uint64  `json:"revision"`
		Next     *string `json:"next"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		p.err = fmt.Errorf("mesh-provisioner: a reply that is not a page: %w", err)
		return p
	}
	p.revision = head.Revision
	if head.Next != nil {
		p.next, p.hasNext = *head.Next, true
	}
	return p
}

// pages decodes the fetched pages, each in a goroutine of its own (a few at
// a time: decoding costs about what fetching does, and a second core takes
// it), and yields them in order, each checked against its scan.
func (c *Client) pages(ctx context.Context, r Request) iter.Seq2[*Page, error] {
	return func(yield func(*Page, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		what := r.what()
		queue := make(chan chan decoded, runtime.GOMAXPROCS(0))
		go func() {
			defer close(queue)
			for raw := range c.fetch(ctx, r) {
				done := make(chan decoded, 1)
				select {
				case queue <- done:
				case <-ctx.Done():
					return
				}
				go func() { done <- decodeRaw(what, raw) }()
			}
		}()
		for done := range queue {
			d := <-done
			if !yield(d.page, d.err) || d.err != nil {
				return
			}
		}
		if err := ctx.Err(); err != nil {
			yield(nil, fmt.Errorf("mesh-provisioner: %w", err))
		}
	}
}

type decoded struct {
	page *Page
	err  error
}

func decodeRaw(what What, raw rawPage) decoded {
	if raw.err != nil {
		return decoded{err: raw.err}
	}
	p, err := decodePage(what, raw.data)
	if err == nil && (p.Revision != raw.revision || p.HasNext != raw.hasNext || p.Next != raw.next) {
		err = fmt.Errorf("mesh-provisioner: a page's head or tail read %d/%q, its whole %d/%q", raw.revision, raw.next, p.Revision, p.Next)
	}
	return decoded{page: p, err: err}
}

// Get asks for r and merges every page: the entries and the keys out of shape
// in key order, the highest revision a page was answered at, and the
// staleness of the page whose Since is the oldest (nil when none was stale).
func (c *Client) Get(ctx context.Context, r Request) (*Answer, error) {
	a, _, err := c.getWithLowest(ctx, r)
	return a, err
}

// getWithLowest is Get, and the lowest revision a page was answered at (where
// a watch's feed must take over).
func (c *Client) getWithLowest(ctx context.Context, r Request) (*Answer, uint64, error) {
	a := &Answer{What: r.what(), Entries: []Entry{}, OutOfShape: []OutOfShape{}}
	var lowest uint64
	first := true
	for p, err := range c.pages(ctx, r) {
		if err != nil {
			return nil, 0, err
		}
		if first || p.Revision < lowest {
			lowest = p.Revision
		}
		first = false
		a.Revision = max(a.Revision, p.Revision)
		a.Entries = append(a.Entries, p.Entries...)
		a.OutOfShape = append(a.OutOfShape, p.OutOfShape...)
		a.Stale = oldestStaleness(a.Stale, p.Stale)
	}
	return a, lowest, nil
}

// List yields the entries of r across pages, in key order. It stops at the
// first error, which it yields with a nil entry; breaking out of the loop
// stops the paging.
func (c *Client) List(ctx context.Context, r Request) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		for p, err := range c.pages(ctx, r) {
			if err != nil {
				yield(nil, err)
				return
			}
			for _, e := range p.Entries {
				if !yield(e, nil) {
					return
				}
			}
		}
	}
}

// Page asks for one page: r as it is, with its Limit (or the client's page
// size) and After. The next page is r with After set to the page's Next.
func (c *Client) Page(ctx context.Context, r Request) (*Page, error) {
	r = c.scoped(r)
	if err := c.scopeError(); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if c.pageSize > 0 && r.Limit == 0 {
		r.Limit = c.pageSize
	}
	body, err := r.body()
	if err == nil {
		body, err = c.ask(ctx, c.subjectFor(r), body)
	}
	if err != nil {
		return nil, err
	}
	return decodePage(r.what(), body)
}
