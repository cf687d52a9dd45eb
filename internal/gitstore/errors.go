package gitstore

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

var (
	// ErrLeaseBroken reports that the remote ref was not at the value the push
	// leased (PushRequest.Old): someone else moved, created or deleted it. The
	// caller should fetch, rebuild on the new head and push again.
	ErrLeaseBroken = errors.New("lease broken: the remote ref is not at the expected value")
	// ErrRejected reports that the remote refused a push for another reason
	// than a moved ref (protected branch, hook, permissions on the ref).
	ErrRejected = errors.New("push rejected by the remote")
	// ErrAuthFailed reports that the remote refused the credentials (HTTP 401)
	// or the operation (HTTP 403). The underlying go-git error stays wrapped.
	ErrAuthFailed = errors.New("authentication failed")
	// ErrNotFound reports a ref, commit or directory that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrTreeTooLarge reports a tree over Options.MaxTreeFiles or
	// Options.MaxTreeBytes.
	ErrTreeTooLarge = errors.New("tree exceeds limits")
	// ErrNoChanges reports a commit that would leave the parent's tree as it
	// is (see CommitRequest.AllowEmpty).
	ErrNoChanges = errors.New("nothing to commit")
	// ErrClosed reports use of a closed Store.
	ErrClosed = errors.New("gitstore: store closed")
)

// LeaseError is the detailed form of ErrLeaseBroken.
type LeaseError struct {
	Repository string
	Ref        plumbing.ReferenceName
	// Expected is the lease (ZeroHash: the ref was expected not to exist).
	Expected plumbing.Hash
	// Actual is the remote value seen after the refusal (ZeroHash: the ref
	// does not exist). When Reason is set and Actual is zero, the value could
	// not be read again and only the server's reason is known.
	Actual plumbing.Hash
	// Reason is the server's refusal message, if the server refused.
	Reason string

	actualUnknown bool
}

func (e *LeaseError) Error() string {
	actual := describeHash(e.Actual)
	if e.actualUnknown {
		actual = "unknown"
	}
	msg := fmt.Sprintf("gitstore: lease broken on %s %s: expected %s, remote is %s",
		e.Repository, e.Ref, describeHash(e.Expected), actual)
	if e.Reason != "" {
		msg += " (remote said: " + e.Reason + ")"
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrLeaseBroken) true.
func (e *LeaseError) Unwrap() error { return ErrLeaseBroken }

func describeHash(h plumbing.Hash) string {
	if h.IsZero() {
		return "absent"
	}
	return h.String()
}
