package onboarding

import (
	"context"
	"fmt"
	"sort"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
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

// Find reads the findings from the session's git cache (no API call)
// and whether the organisation has its configuration.
func Find(ctx context.Context, s *core.Session) (Findings, error) {
	f := Findings{Branch: s.DeploymentBranch}
	var err error
	if f.Packages, err = s.TopLevelPackages(ctx); err != nil {
		return f, fmt.Errorf("packages on %s: %w", f.Branch, err)
	}
	drafts, err := s.DraftBranches(ctx)
	if err != nil {
		return f, err
	}
	for _, d := range drafts {
		f.Drafts = append(f.Drafts, d.Branch)
	}
	sort.Strings(f.Packages)
	sort.Strings(f.Drafts)
	if name, found, err := s.OrgPreset(ctx); err == nil && found {
		f.OrgPreset = name
	}
	return f, nil
}
