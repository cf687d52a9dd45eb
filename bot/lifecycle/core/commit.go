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
	"github.com/porchbot/porchbot/internal/words"
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
	// Onto, when set, makes a merge commit of Parent and Onto whose tree
	// is Onto's with Dir replaced (gitstore.CommitRequest.Onto): a draft
	// rebased on a published revision.
	Onto plumbing.Hash
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
		Message: msg, Author: sig, Committer: sig, AllowEmpty: c.AllowEmpty, Onto: c.Onto})
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

// BuildCommit builds the commit to push on a branch whose head is head
// (ZeroHash: the branch does not exist). It returns nil when there is
// nothing to commit at that head (the work is done, or someone else did
// it). Branch and Lease of the commit are set by CommitUnderLease.
type BuildCommit func(ctx context.Context, head plumbing.Hash) (*PackageCommit, error)

// LeaseResult is what CommitUnderLease did.
type LeaseResult struct {
	// Head is the pushed commit, or the branch head build declined to
	// commit on (ZeroHash: no branch).
	Head plumbing.Hash
	// Pushed is true when a commit was pushed.
	Pushed bool
	// Attempts counts the calls of build.
	Attempts int
}

// CommitUnderLease is the one "commit under a lease, refetch, retry" loop:
// it builds a commit from the branch's head as the cache last saw it and
// pushes it with that head as the lease. When the branch moved meanwhile
// (gitstore.ErrLeaseBroken), it fetches the branch again and rebuilds from
// its new head, at most attempts times in all: a commit somebody else
// pushed is built upon or left alone, never overwritten. A branch deleted
// meanwhile comes back to build as ZeroHash.
//
// Errors: those of build, as they are; gitstore.ErrNoChanges (wrapped) when
// the commit changes nothing, with Head the commit it was built on; an error
// wrapping gitstore.ErrLeaseBroken when the branch still moved on the last
// attempt.
func (s *Session) CommitUnderLease(ctx context.Context, id Identity, branch string, head plumbing.Hash, attempts int, build BuildCommit) (LeaseResult, error) {
	var res LeaseResult
	for {
		res.Attempts++
		c, err := build(ctx, head)
		if err != nil || c == nil {
			res.Head = head
			return res, err
		}
		c.Branch, c.Lease = branch, head
		pushed, err := s.CommitPackage(ctx, id, *c)
		switch {
		case err == nil:
			res.Head, res.Pushed = pushed, true
			return res, nil
		case errors.Is(err, gitstore.ErrNoChanges):
			res.Head = pushed
			return res, err
		case !errors.Is(err, gitstore.ErrLeaseBroken):
			return res, err
		case res.Attempts >= attempts:
			return res, fmt.Errorf("%s moved under the lease (%s): %w", branch, words.Count(res.Attempts, "attempt", "attempts"), err)
		}
		moved, err := s.refetchBranch(ctx, branch)
		if err != nil {
			return res, err
		}
		s.Log.WithFields(map[string]any{"ref": branch, "lease": head.String(), "head": moved.String()}).
			Info("branch moved under the lease; building again on its new head")
		head = moved
	}
}

// refetchBranch fetches one branch and returns its head (ZeroHash when it
// no longer exists).
func (s *Session) refetchBranch(ctx context.Context, branch string) (plumbing.Hash, error) {
	if err := s.Git.Fetch(ctx, gitstore.BranchRefSpec(branch)); err != nil {
		if errors.Is(err, gitstore.ErrNotFound) {
			return plumbing.ZeroHash, nil
		}
		return plumbing.ZeroHash, fmt.Errorf("fetch %s after a broken lease: %w", branch, err)
	}
	h, err := s.ResolveRef(ctx, plumbing.NewBranchReferenceName(branch).String())
	if errors.Is(err, gitstore.ErrNotFound) || errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	return h, err
}
