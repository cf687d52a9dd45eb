package bot

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/packages"
)

// OnCheckRun runs a porchbot check again when someone asks ("Re-run"),
// and notes finished renders for the approval verdict (app_renders.go).
func (a *App) OnCheckRun(ctx context.Context, installationID int64, ev *github.CheckRunEvent) error {
	if ev.GetAction() == "created" || ev.GetAction() == "completed" {
		if err := a.onCheckRunReport(ctx, installationID, ev); err != nil {
			return err
		}
		if err := a.automergeUpdate(ctx, installationID, ev); err != nil {
			return err
		}
		return a.onRenderRun(ctx, installationID, ev)
	}
	if ev.GetAction() != "rerequested" {
		return nil
	}
	run := ev.GetCheckRun()
	r := ev.GetRepo()
	repo := repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch())
	prs := make([]int, 0, len(run.PullRequests))
	for _, pr := range run.PullRequests {
		prs = append(prs, pr.GetNumber())
	}
	return a.rerunCheck(ctx, repo, checkRerun{name: run.GetName(), head: plumbing.NewHash(run.GetHeadSHA()),
		branch: run.GetCheckSuite().GetHeadBranch(), pulls: prs})
}

// checkRerun is one porchbot check to run again: its name, the commit and
// branch it is on, and the pull requests whose head that commit is.
type checkRerun struct {
	name   string
	head   plumbing.Hash
	branch string
	pulls  []int
}

// rerunCheck runs one of porchbot's checks again: the render of a draft
// branch, the configuration check, or the approval verdict of the pull
// request. Other checks are not porchbot's to run.
func (a *App) rerunCheck(ctx context.Context, repo core.Repo, c checkRerun) error {
	switch c.name {
	case core.RenderCheckName:
		pkg, _, ok := packages.ParseDraftBranchName(c.branch)
		if !ok {
			return nil
		}
		s, err := a.open(ctx, repo)
		if err != nil {
			return err
		}
		_, err = rendercheck.RenderCheck(ctx, s, a.renderChecks(s), c.head, pkg, false, a.Render)
		return err
	case core.ConfigCheckName:
		s, err := a.open(ctx, repo)
		if err != nil {
			return err
		}
		_, err = rendercheck.ConfigCheck(ctx, s, s.Hub, c.head, a.Render.Limits)
		return err
	case approval.CheckName:
		if len(c.pulls) == 0 {
			return nil
		}
		s, err := a.open(ctx, repo)
		if err != nil {
			return err
		}
		pr, err := s.Hub.GetPull(ctx, repo.Owner, repo.Name, c.pulls[0])
		if err != nil {
			return err
		}
		_, err = approval.EvaluateApproval(ctx, s, a.proposalAPI(s.Hub), pr)
		return err
	}
	return nil
}
