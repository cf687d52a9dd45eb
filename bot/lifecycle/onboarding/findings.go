package onboarding

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/packages"
)

// Findings are what porchbot found in a repository it is not set up in,
// for the onboarding pull request to say.
type Findings struct {
	// Branch is the default branch the packages were found on.
	Branch string
	// Packages are the top-level packages there.
	Packages []string
	// Drafts are the draft branches (drafts/<package>/<workspace>).
	Drafts []string
	// OrgPreset names the organisation's porchbot.yaml in its .github
	// repository ("" when it has none, or porchbot cannot read it): the
	// proposed file extends it.
	OrgPreset string
}

// Find reads the findings from the session's git cache (no API call).
func Find(ctx context.Context, s *core.Session) (Findings, error) {
	f := Findings{Branch: s.DeploymentBranch}
	if !s.DeploymentHead.IsZero() {
		err := s.Git.With(ctx, func(repo *git.Repository) error {
			var err error
			f.Packages, err = s.Walker(ctx, repo).TopLevelPackages(s.DeploymentHead)
			return err
		})
		if err != nil {
			return f, fmt.Errorf("packages on %s: %w", f.Branch, err)
		}
	}
	const mirror = "refs/remotes/origin/"
	refs, err := s.Git.ListRefs(ctx, mirror+"drafts/")
	if err != nil {
		return f, fmt.Errorf("draft branches: %w", err)
	}
	for _, r := range refs {
		branch := strings.TrimPrefix(r.Name().String(), mirror)
		if _, _, ok := packages.ParseDraftBranchName(branch); ok {
			f.Drafts = append(f.Drafts, branch)
		}
	}
	sort.Strings(f.Packages)
	sort.Strings(f.Drafts)
	if name, found, err := s.OrgPreset(ctx); err == nil && found {
		f.OrgPreset = name
	}
	return f, nil
}
