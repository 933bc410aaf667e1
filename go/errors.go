package provisioner

import "fmt"

// VerbError is a service error of the verb: the reply carried
// Nats-Service-Error-Code. Code is the protocol's (400: fix the request; 403:
// the verb subject asked does not reach what was asked, e.g. another node's
// entries on a node's own subject; 503: the projection has not synced yet;
// 504: MinRevision was not reached in the service's --max-wait; 500: the
// answer could not be built). Messages are for people and may be reworded;
// match on Code, with errors.As.
type VerbError struct {
	Code    int
	Message string
	// Local is true when the client refused the request before sending it,
	// with the message the service would have answered.
	Local bool
}

func (e *VerbError) Error() string {
	return fmt.Sprintf("mesh-provisioner: %s (%d)", e.Message, e.Code)
}

// Retryable reports whether asking again later may succeed: 503, 504 and 500.
func (e *VerbError) Retryable() bool {
	return e.Code == 503 || e.Code == 504 || e.Code == 500
}
