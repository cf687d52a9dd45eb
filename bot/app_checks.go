package bot

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle"
	"github.com/porchbot/porchbot/internal/packages"
)

// OnCheckRun runs a porchbot check again when someone asks ("Re-run"),
// and notes finished renders for the approval verdict (app_renders.go).
func (a *App) OnCheckRun(ctx context.Context, installationID int64, ev *github.CheckRunEvent) error {
	if ev.GetAction() == "created" || ev.GetAction() == "completed" {
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
	head := plumbing.NewHash(run.GetHeadSHA())
	switch run.GetName() {
	case lifecycle.RenderCheckName:
		branch := run.GetCheckSuite().GetHeadBranch()
		pkg, _, ok := packages.ParseDraftBranchName(branch)
		if !ok {
			return nil
		}
		s, err := a.open(ctx, repo)
		if err != nil {
			return err
		}
		_, err = lifecycle.RenderCheck(ctx, s, a.renderChecks(s), head, pkg, false, a.Render)
		return err
	case lifecycle.ConfigCheckName:
		s, err := a.open(ctx, repo)
		if err != nil {
			return err
		}
		_, err = lifecycle.ConfigCheck(ctx, s, s.GH.Checks, head, a.Render.Limits)
		return err
	case lifecycle.ApprovalCheckName:
		if len(run.PullRequests) == 0 {
			return nil
		}
		s, err := a.open(ctx, repo)
		if err != nil {
			return err
		}
		pr, _, err := s.GH.PullRequests.Get(ctx, repo.Owner, repo.Name, run.PullRequests[0].GetNumber())
		if err != nil {
			return err
		}
		_, err = lifecycle.EvaluateApproval(ctx, s, a.proposalAPI(s.GH), pr)
		return err
	}
	return nil
}
