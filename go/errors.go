package provisioner

import (
	"errors"
	"fmt"
)

// The refusals a caller can act on, one sentinel each: match them with
// errors.Is, never by a message's wording, which may change. Each is the
// same refusal in every client of the protocol (the TypeScript client's
// ProvisionerError code is named beside it).
var (
	// ErrBadRequest: the request cannot be served as it is; fix it (400, E_BAD_REQUEST).
	ErrBadRequest = errors.New("mesh-provisioner: bad request")
	// ErrRequestTooLarge: the request's body is over the verb's bound; it is
	// also an ErrBadRequest (400, E_REQUEST_BOUND). The client refuses such a
	// request before sending it; a service's reply says only 400, so a
	// refusal from the wire matches ErrBadRequest alone.
	ErrRequestTooLarge error = &finerError{"mesh-provisioner: request too large", ErrBadRequest}
	// ErrForbidden: the verb subject asked does not reach what was asked, e.g.
	// another node's entries on a node's own subject (403, E_FORBIDDEN).
	ErrForbidden = errors.New("mesh-provisioner: forbidden on this subject")
	// ErrNotSynced: the projection has not finished its first sync; ask again
	// in a moment (503, E_NOT_SYNCED).
	ErrNotSynced = errors.New("mesh-provisioner: not synced yet")
	// ErrRevisionTimeout: MinRevision was not reached within the service's
	// --max-wait; ask again (504, E_REVISION_TIMEOUT).
	ErrRevisionTimeout = errors.New("mesh-provisioner: revision not reached in time")
	// ErrInternal: the answer could not be built; ask again (500, E_INTERNAL).
	ErrInternal = errors.New("mesh-provisioner: internal error")
	// ErrInvalidKey: a token or a collection name cannot go into a key; it is
	// also an ErrBadRequest (E_BAD_REQUEST).
	ErrInvalidKey error = &finerError{"mesh-provisioner: invalid key", ErrBadRequest}
)

// finerError is a sentinel that is a kind of a broader one: errors.Is
// matches both.
type finerError struct {
	msg     string
	broader error
}

func (e *finerError) Error() string { return e.msg }
func (e *finerError) Unwrap() error { return e.broader }

// VerbError is a refusal of the verb: a reply carrying
// Nats-Service-Error-Code, or a request the client refused before sending
// it (Local). It matches the sentinel of its Code with errors.Is
// (ErrBadRequest for a 400, ErrForbidden for a 403, and so on).
type VerbError struct {
	// Code is the protocol's: 400, 403, 503, 504 or 500.
	Code int
	// Message says what was wrong, for people; it may be reworded.
	Message string
	// Local is true when the client refused the request before sending it.
	Local bool
	// Stale is the staleness the error's body carried: the asked projection
	// had heard nothing from its stream for longer than the service's
	// --stale-after (a 504 from a site cut off from its hub says since when,
	// and the revision it holds).
	Stale *Staleness
	// kind is the sentinel the error matches when it is finer than its
	// Code's (a local ErrRequestTooLarge).
	kind error
}

func (e *VerbError) Error() string {
	return fmt.Sprintf("mesh-provisioner: %s (%d)", e.Message, e.Code)
}

// Unwrap is the sentinel the error matches.
func (e *VerbError) Unwrap() error {
	if e.kind != nil {
		return e.kind
	}
	switch e.Code {
	case 400:
		return ErrBadRequest
	case 403:
		return ErrForbidden
	case 503:
		return ErrNotSynced
	case 504:
		return ErrRevisionTimeout
	case 500:
		return ErrInternal
	}
	return nil
}

// Retryable reports whether asking again later may succeed: 503, 504 and 500.
func (e *VerbError) Retryable() bool {
	return e.Code == 503 || e.Code == 504 || e.Code == 500
}

// KeyError is a token or a collection name that cannot go into a key. It
// matches ErrInvalidKey (and so ErrBadRequest) with errors.Is.
type KeyError struct {
	// Field is what was refused: node, module, kind, name, contributor,
	// collection, or escaped collection (DecodeCollection's token).
	Field string
	// Value is the refused text.
	Value string
	// Message says why, for people; it may be reworded.
	Message string
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("mesh-provisioner: %s %q: %s", e.Field, e.Value, e.Message)
}

// Unwrap is ErrInvalidKey.
func (e *KeyError) Unwrap() error { return ErrInvalidKey }

// localRefusal is a 400 the client gives before sending, as the service would.
func localRefusal(format string, args ...any) *VerbError {
	return &VerbError{Code: 400, Message: fmt.Sprintf(format, args...), Local: true}
}
