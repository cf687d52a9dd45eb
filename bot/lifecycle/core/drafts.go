package core

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/internal/packages"
)

// mirrorPrefix is where the session's git cache mirrors the remote's
// branches.
const mirrorPrefix = "refs/remotes/origin/"

// DraftBranch is a draft branch (drafts/<package>/<workspace>) as the
// session's fetch saw it.
type DraftBranch struct {
	Branch, Package, Workspace string
	Head                       plumbing.Hash
}

// DraftBranches are the repository's draft branches, from the git cache
// (no API call), in ref order.
func (s *Session) DraftBranches(ctx context.Context) ([]DraftBranch, error) {
	refs, err := s.Git.ListRefs(ctx, mirrorPrefix+"drafts/")
	if err != nil {
		return nil, fmt.Errorf("list draft branches: %w", err)
	}
	var out []DraftBranch
	for _, r := range refs {
		branch := strings.TrimPrefix(r.Name().String(), mirrorPrefix)
		if pkg, ws, ok := packages.ParseDraftBranchName(branch); ok {
			out = append(out, DraftBranch{Branch: branch, Package: pkg, Workspace: ws, Head: r.Hash()})
		}
	}
	return out, nil
}

// TopLevelPackages lists the packages at the deployment head (none when
// the repository has no commit).
func (s *Session) TopLevelPackages(ctx context.Context) ([]string, error) {
	if s.DeploymentHead.IsZero() {
		return nil, nil
	}
	var names []string
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		var err error
		names, err = s.Walker(ctx, repo).TopLevelPackages(s.DeploymentHead)
		return err
	})
	return names, err
}
