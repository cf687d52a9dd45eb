package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
)

// Identity is who the bot's commits are by.
type Identity struct{ Name, Email string }

// DefaultIdentity is the App's bot user, as GitHub shows App commits.
var DefaultIdentity = Identity{Name: "porchbot[bot]", Email: "porchbot[bot]@users.noreply.github.com"}

// PackageCommit is one bot commit of a package, pushed under a lease.
type PackageCommit struct {
	// Branch is the branch name (no refs/heads/ prefix).
	Branch string
	// Parent is the commit built on; ZeroHash for none.
	Parent plumbing.Hash
	// Lease is the value the remote branch must have now (ZeroHash: the
	// branch must not exist). Usually Parent, or ZeroHash for a new branch.
	Lease plumbing.Hash
	// Dir is the package directory; Files its complete new content (nil
	// deletes the package).
	Dir   string
	Files map[string][]byte
	// Message is the subject and body; Trailer is appended as Porch does.
	Message string
	Trailer packages.Trailer
	// AllowEmpty makes a commit even when the tree does not change.
	AllowEmpty bool
	// Exclusive, with Lease ZeroHash, reports gitstore.ErrLeaseBroken when
	// the branch already holds the very same commit (another replica made
	// it in the same second): only one caller learns it created the branch.
	Exclusive bool
}

// CommitPackage commits and pushes a package change under a lease. It
// returns gitstore.ErrNoChanges (wrapped) when nothing changes and
// gitstore.ErrLeaseBroken when the branch moved: the caller re-reads and
// tries again, never forces.
func (s *Session) CommitPackage(ctx context.Context, id Identity, c PackageCommit) (plumbing.Hash, error) {
	if id.Name == "" {
		id = DefaultIdentity
	}
	sig := object.Signature{Name: id.Name, Email: id.Email, When: time.Now().UTC()}
	msg := packages.AppendTrailer(c.Message, c.Trailer)
	h, err := s.Git.Commit(ctx, gitstore.CommitRequest{Parent: c.Parent, Dir: c.Dir, Files: c.Files,
		Message: msg, Author: sig, Committer: sig, AllowEmpty: c.AllowEmpty})
	if err != nil {
		if errors.Is(err, gitstore.ErrNoChanges) {
			return c.Parent, err
		}
		return plumbing.ZeroHash, fmt.Errorf("commit %s on %s: %w", c.Dir, c.Branch, err)
	}
	ref := plumbing.NewBranchReferenceName(c.Branch)
	if err := s.Git.Push(ctx, gitstore.PushRequest{Ref: ref, New: h, Old: c.Lease, Exclusive: c.Exclusive}); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("push %s: %w", c.Branch, err)
	}
	s.Log.WithField("ref", c.Branch).WithField("commit", h.String()).Info("pushed")
	return h, nil
}
