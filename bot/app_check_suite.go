package bot

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/packages"
)

// maxSuiteRuns bounds the check runs of a suite read on "Re-run all
// checks" (porchbot makes a handful per commit).
const maxSuiteRuns = 100

// OnCheckSuite runs porchbot's checks of a suite again when someone asks
// ("Re-run all checks", check_suite rerequested): each distinct check the
// suite holds, once, as its own "Re-run" would; a draft branch's suite
// without a render check is rendered. GitHub sends the App one
// check_suite event for it, not one check_run per run. REST calls: one
// list of the suite's runs, then each check's own. Requested and
// completed suites need nothing: porchbot checks on push.
func (a *App) OnCheckSuite(ctx context.Context, installationID int64, ev *github.CheckSuiteEvent) error {
	if ev.GetAction() != "rerequested" {
		return nil
	}
	suite, r := ev.GetCheckSuite(), ev.GetRepo()
	repo := repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch())
	s, err := a.open(ctx, repo)
	if err != nil {
		return err
	}
	runs, _, err := s.Hub.ListSuiteCheckRuns(ctx, repo.Owner, repo.Name, suite.GetID(),
		hub.CheckQuery{Filter: "latest", Page: hub.Page{PerPage: maxSuiteRuns}})
	if err != nil {
		return fmt.Errorf("check runs of suite %d: %w", suite.GetID(), err)
	}
	prs := make([]int, 0, len(suite.PullRequests))
	for _, pr := range suite.PullRequests {
		prs = append(prs, pr.GetNumber())
	}
	base := checkRerun{head: plumbing.NewHash(suite.GetHeadSHA()), branch: suite.GetHeadBranch(), pulls: prs}
	return a.rerunSuite(ctx, repo, base, suiteCheckNames(runs.Runs, suite.GetHeadBranch()))
}

// suiteCheckNames are the distinct checks to run again, in the suite's
// order; a draft branch's render is always among them.
func suiteCheckNames(runs []hub.CheckRun, branch string) []string {
	seen := map[string]bool{}
	var names []string
	for _, run := range runs {
		if n := run.Name; !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if _, _, draft := packages.ParseDraftBranchName(branch); draft && !seen[core.RenderCheckName] {
		names = append(names, core.RenderCheckName)
	}
	return names
}

// rerunSuite runs each named check again, going past failures.
func (a *App) rerunSuite(ctx context.Context, repo core.Repo, base checkRerun, names []string) error {
	var errs []error
	for _, n := range names {
		c := base
		c.name = n
		if err := a.rerunCheck(ctx, repo, c); err != nil {
			errs = append(errs, fmt.Errorf("re-run %s: %w", n, err))
		}
	}
	return errors.Join(errs...)
}
