package provisioner

import (
	"errors"
	"fmt"
	"testing"
)

// Each refusal matches its sentinel with errors.Is, through wrapping, and no
// other: callers branch on these, never on a message.
func TestRefusalsMatchTheirSentinelsOnly(t *testing.T) {
	all := []error{ErrBadRequest, ErrRequestTooLarge, ErrForbidden, ErrNotSynced, ErrRevisionTimeout, ErrInternal, ErrInvalidKey}
	tooLarge := Request{After: string(make([]byte, maxRequestBytes))}.Validate()
	_, badKey := NeedsKey("n1", "web.api", "config", "port")
	cases := []struct {
		name    string
		err     error
		matches []error
	}{
		{"a 400 from the service", &VerbError{Code: 400, Message: "x"}, []error{ErrBadRequest}},
		{"a 403", &VerbError{Code: 403, Message: "x"}, []error{ErrForbidden}},
		{"a 503", &VerbError{Code: 503, Message: "x"}, []error{ErrNotSynced}},
		{"a 504", &VerbError{Code: 504, Message: "x"}, []error{ErrRevisionTimeout}},
		{"a 500", &VerbError{Code: 500, Message: "x"}, []error{ErrInternal}},
		{"a code the protocol does not name", &VerbError{Code: 418, Message: "x"}, nil},
		{"a request over the body bound", tooLarge, []error{ErrRequestTooLarge, ErrBadRequest}},
		{"a filter that is not a plain token", Request{What: Needs, Node: "n1.*"}.Validate(), []error{ErrBadRequest}},
		{"a key token with a dot", badKey, []error{ErrInvalidKey, ErrBadRequest}},
		{"a wrapped 503", fmt.Errorf("watch: %w", &VerbError{Code: 503, Message: "x"}), []error{ErrNotSynced}},
	}
	for _, c := range cases {
		for _, sentinel := range all {
			want := false
			for _, m := range c.matches {
				want = want || m == sentinel
			}
			if got := errors.Is(c.err, sentinel); got != want {
				t.Errorf("%s (%v): errors.Is(%v) = %v, want %v", c.name, c.err, sentinel, got, want)
			}
		}
	}
}

// A key's refusal names the field and the value it refused.
func TestKeyErrorNamesTheRefusedToken(t *testing.T) {
	_, err := CollectKey("n1", "shell", "we.b")
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Field != "contributor" || ke.Value != "we.b" {
		t.Fatalf("CollectKey with contributor %q: %#v", "we.b", err)
	}
}
