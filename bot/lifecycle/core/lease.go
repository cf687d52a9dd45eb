package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/words"
)

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
