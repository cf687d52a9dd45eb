package rendercheck

// Pull requests from forks (SPEC §9): their head is not a branch of the
// repository, so it is never a draft; one that changes a package is a
// proposal like any other (labelled, porchbot/approval by the same
// verdict), and porchbot reports porchbot/render on it for every package it
// changes, rendered with built-in functions only — exec functions never run
// on a fork's content, and nothing is pushed to the fork.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	git "github.com/go-git/go-git/v5"
	gogitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/words"
)

// IsForkPullRequest reports a pull request whose head is in another
// repository than repo (a fork). As in ParseProposal, a head whose
// repository is not given counts as the repository's own.
func IsForkPullRequest(repo core.Repo, pr hub.Pull) bool {
	return pr.Head.RepoFullName != "" && !strings.EqualFold(pr.Head.RepoFullName, repo.FullName())
}

// EnsurePullHead makes sure the session's cache has the pull request's head
// commit: a fork's head is no branch of the repository, so it is fetched as
// GitHub publishes it, refs/pull/<N>/head (one fetch, only when missing).
func EnsurePullHead(ctx context.Context, s *core.Session, pr hub.Pull) (plumbing.Hash, error) {
	sha := strings.ToLower(pr.Head.SHA)
	if len(sha) != 40 || !plumbing.IsHash(sha) {
		return plumbing.ZeroHash, fmt.Errorf("pull request #%d: head sha %q is not a commit id", pr.Number, sha)
	}
	head := plumbing.NewHash(sha)
	if _, err := s.ResolveRef(ctx, sha); err == nil {
		return head, nil
	} else if !errors.Is(err, gitstore.ErrNotFound) {
		return head, fmt.Errorf("pull request #%d: head %s: %w", pr.Number, sha, err)
	}
	ref := fmt.Sprintf("refs/pull/%d/head", pr.Number)
	if err := s.Git.Fetch(ctx, gogitconfig.RefSpec(fmt.Sprintf("+%s:refs/porchbot/pull/%d/head", ref, pr.Number))); err != nil {
		return head, fmt.Errorf("pull request #%d: fetch %s: %w", pr.Number, ref, err)
	}
	if _, err := s.ResolveRef(ctx, sha); err != nil {
		return head, fmt.Errorf("pull request #%d: head %s after fetching %s: %w", pr.Number, sha, ref, err)
	}
	return head, nil
}

// ChangedPackagesBetween lists the top-level packages present at head
// whose directory differs from the merge base of base and head (base when
// there is none in the cache): the packages a pull request changes,
// whatever landed on the base branch since it was branched.
func ChangedPackagesBetween(ctx context.Context, s *core.Session, base, head plumbing.Hash) ([]string, error) {
	root := s.Config.Packages.Root
	var out []string
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		from := base
		hc, err := repo.CommitObject(head)
		if err != nil {
			return fmt.Errorf("read %s: %w", head, err)
		}
		if bc, err := repo.CommitObject(base); err == nil {
			if mbs, err := hc.MergeBase(bc); err == nil && len(mbs) > 0 {
				from = mbs[0].Hash
			}
		}
		w := core.NewLandingWalker(ctx, repo, root)
		names, err := w.TopLevelPackages(head)
		if err != nil {
			return err
		}
		for _, name := range names {
			dir := core.PackageDir(root, name)
			now, err := w.State(head, dir)
			if err != nil {
				return err
			}
			was, err := w.State(from, dir)
			if err != nil && !errors.Is(err, core.ErrLandingCommitMissing) {
				return err
			}
			if now != was {
				out = append(out, name)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("packages changed between %s and %s: %w", words.ShortSHA(base.String()), words.ShortSHA(head.String()), err)
	}
	return out, nil
}

// RenderForkPullRequest reports porchbot/render on a fork's pull request
// head for each package it changes, with built-in functions only
// (RenderCheck with fork set). The head must be in the cache
// (EnsurePullHead).
func RenderForkPullRequest(ctx context.Context, s *core.Session, api CheckRunAPI, pr hub.Pull, opts RenderOptions) ([]*RenderOutcome, error) {
	head := plumbing.NewHash(strings.ToLower(pr.Head.SHA))
	base := plumbing.NewHash(strings.ToLower(pr.Base.SHA))
	pkgs, err := ChangedPackagesBetween(ctx, s, base, head)
	if err != nil {
		return nil, fmt.Errorf("fork pull request #%d: %w", pr.Number, err)
	}
	var outs []*RenderOutcome
	for _, pkg := range pkgs {
		out, err := RenderCheck(ctx, s, api, head, pkg, true, opts)
		if err != nil {
			return outs, fmt.Errorf("fork pull request #%d: %w", pr.Number, err)
		}
		outs = append(outs, out)
	}
	s.Log.WithFields(map[string]any{"pull_request": pr.Number, "head_repo": pr.Head.RepoFullName,
		"packages": pkgs}).Info("fork pull request rendered with built-in functions only")
	return outs, nil
}
