package bot

import (
	"context"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/packages"
)

// OnPush renders drafts (SPEC §3), reports a broken config pushed to the
// deployment branch, marks a direct push there that changes a package
// as waiting for an approver (porchbot/publish), and reports a revision
// tag pushed by someone else (porchbot/publish).
func (a *App) OnPush(ctx context.Context, installationID int64, ev *github.PushEvent) error {
	if ev.GetDeleted() {
		return nil
	}
	r := ev.GetRepo()
	repo := repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch())
	if repo.Owner == "" {
		repo.Owner = r.GetOwner().GetName()
	}
	if tag, isTag := strings.CutPrefix(ev.GetRef(), "refs/tags/"); isTag {
		return a.tagPushed(ctx, repo, tag, ev.GetSender().GetLogin())
	}
	branch, isBranch := strings.CutPrefix(ev.GetRef(), "refs/heads/")
	if !isBranch {
		return nil
	}
	if _, _, ok := packages.ParseDraftBranchName(branch); ok {
		if a.ownRenderCommit(ev) {
			return nil // the bot's own "Render" commit: already checked when it was made
		}
		s, err := a.open(ctx, repo)
		if err != nil {
			return err
		}
		if _, err = rendercheck.RenderDraft(ctx, s, a.renderChecks(s), rendercheck.RenderRequest{Branch: branch,
			Head: plumbing.NewHash(ev.GetAfter()), Options: a.Render}); err != nil {
			return err
		}
		return a.reevaluateRendered(ctx, s)
	}
	if !a.isDeploymentBranch(repo, branch) {
		return nil // a feature branch: nothing to do, no fetch
	}
	s, err := a.open(ctx, repo)
	if err != nil {
		return err
	}
	if branch == s.DeploymentBranch {
		a.refreshDownstreamsOnPush(ctx, s, ev)
		a.variantsOnPush(ctx, s, ev)
		if _, err = rendercheck.ReportBrokenDeploymentConfig(ctx, s, s.Hub); err != nil {
			return err
		}
		// A direct push that changes a package waits for an approver.
		api := publish.NewAPI(s.Hub)
		api.Approval = a.proposalAPI(s.Hub)
		_, err = publish.AwaitApproverOnPush(ctx, s, api, plumbing.NewHash(ev.GetAfter()), ev.GetSender().GetLogin())
	}
	return err
}

// tagPushed reports a revision tag <pkg>/v<N> that someone other than
// porchbot pushed and that is not porchbot's signed revision
// (publish.ReportTagPush); porchbot's own tag pushes cost nothing.
func (a *App) tagPushed(ctx context.Context, repo core.Repo, tag, sender string) error {
	if _, _, ok := packages.ParseTagName(tag); !ok || sender == a.botLogin() {
		return nil
	}
	s, err := a.open(ctx, repo)
	if err != nil {
		return err
	}
	_, err = publish.ReportTagPush(ctx, s, publish.NewAPI(s.Hub), tag, sender)
	return err
}

// ownRenderCommit: a push by the bot whose head is its own Render commit.
func (a *App) ownRenderCommit(ev *github.PushEvent) bool {
	if ev.GetSender().GetLogin() != a.botLogin() {
		return false
	}
	t, ok := packages.FindTrailer(ev.GetHeadCommit().GetMessage())
	return ok && t.Task != nil && t.Task.Type == "render"
}

// isDeploymentBranch: the default branch, or the packages.deploymentBranch
// of the last good config read for the repository (a session reads the
// config from the default branch first, so that one is always known).
func (a *App) isDeploymentBranch(repo core.Repo, branch string) bool {
	if branch == repo.DefaultBranch {
		return true
	}
	cfg, _ := a.Opener.Configs.Good(repo.FullName())
	return cfg != nil && cfg.Packages.DeploymentBranch == branch
}
