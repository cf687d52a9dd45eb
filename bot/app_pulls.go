package bot

import (
	"bytes"
	"context"
	"errors"

	ghclient "github.com/porchbot/porchbot/internal/github"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/packages"
)

// OnPullRequest keeps proposals' labels and checks current (SPEC §5),
// forks' included (rendered with built-in functions only, SPEC §9), and
// judges edits of the repository config (porchbot/config).
func (a *App) OnPullRequest(ctx context.Context, installationID int64, ev *github.PullRequestEvent) error {
	pr := ghclient.PullOf(ev.GetPullRequest())
	r := ev.GetRepo()
	repo := repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch())
	switch ev.GetAction() {
	case "opened", "reopened", "synchronize", "ready_for_review":
		s, err := a.open(ctx, repo)
		if errors.Is(err, core.ErrNotOnboarded) && !rendercheck.IsForkPullRequest(repo, pr) {
			// Not set up yet: of a pull request (the onboarding one among
			// them) only the configuration it proposes is judged.
			if s, uerr := a.Opener.OpenUnconfigured(ctx, repo); uerr == nil {
				if cerr := a.checkConfigEdit(ctx, s, pr); cerr != nil {
					return cerr
				}
			}
			return err
		}
		if err != nil {
			return err
		}
		fork := rendercheck.IsForkPullRequest(repo, pr)
		if fork {
			// A fork's head is no branch of the repository: fetch it
			// (refs/pull/N/head) before reading anything there.
			if _, err := rendercheck.EnsurePullHead(ctx, s, pr); err != nil {
				return err
			}
		}
		if err := a.checkConfigEdit(ctx, s, pr); err != nil {
			return err
		}
		// Rendered before the approval is judged, so the verdict sees the
		// render (drafts render on push).
		if fork {
			// Rendered with built-ins only (SPEC §9), never pushed to.
			if _, err = rendercheck.RenderForkPullRequest(ctx, s, a.renderChecks(s), pr, a.Render); err != nil {
				return err
			}
		} else if err := a.renderBranchPullRequest(ctx, s, pr); err != nil {
			return err
		}
		api := a.proposalAPI(s.Hub)
		api.Opened = ev.GetAction() == "opened"
		_, err = proposals.OnProposalEvent(ctx, s, api, pr)
		return err
	case "closed":
		_, update := packages.ParseUpdateBranchName(pr.Head.Ref)
		if !pr.Merged && !update {
			return nil
		}
		s, err := a.open(ctx, repo)
		if err != nil {
			return err
		}
		if pr.Merged {
			if err := a.publishMerged(ctx, s, pr); err != nil {
				return err
			}
		}
		if update {
			// A slot under updates.prConcurrentLimit is free.
			return a.Updates.OpenWaiting(ctx, s)
		}
		return nil
	}
	return nil
}

// renderBranchPullRequest renders an open pull request into the
// deployment branch from a branch of the repository that is not a draft
// (issue #12), when it changes a package: reported without pushing to a
// branch porchbot does not own.
func (a *App) renderBranchPullRequest(ctx context.Context, s *core.Session, pr hub.Pull) error {
	if _, _, draft := approval.ParseProposal(s, pr); draft || !approval.IntoDeployment(s, pr) ||
		pr.State != "open" || pr.Draft {
		return nil
	}
	changes, err := approval.PullRequestChanges(ctx, s, pr)
	if err != nil {
		return err
	}
	return a.renderBranchProposal(ctx, s, pr.Head.SHA, changes)
}

// renderBranchProposal reports porchbot/render on head for every package
// of changes it adds or changes.
func (a *App) renderBranchProposal(ctx context.Context, s *core.Session, head string, changes []approval.PackageChange) error {
	h := plumbing.NewHash(head)
	for _, p := range changes {
		if p.Kind == core.LandingDeleted {
			continue
		}
		if _, err := rendercheck.RenderCheck(ctx, s, a.renderChecks(s), h, p.Name, false, a.Render); err != nil {
			return err
		}
	}
	return nil
}

// checkConfigEdit runs porchbot/config on a head whose config differs
// from the base's (read from the git cache: no API call).
func (a *App) checkConfigEdit(ctx context.Context, s *core.Session, pr hub.Pull) error {
	head := plumbing.NewHash(pr.Head.SHA)
	base := plumbing.NewHash(pr.Base.SHA)
	hv, hok, err := s.ReadFile(ctx, head, config.Path)
	if err != nil {
		return err
	}
	bv, bok, err := s.ReadFile(ctx, base, config.Path)
	if err != nil {
		return err
	}
	if hok == bok && bytes.Equal(hv, bv) {
		return nil
	}
	_, err = rendercheck.ConfigCheck(ctx, s, s.Hub, head, a.Render.Limits)
	return err
}

// OnReview re-evaluates a proposal's approval.
func (a *App) OnReview(ctx context.Context, installationID int64, ev *github.PullRequestReviewEvent) error {
	r := ev.GetRepo()
	repo := repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch())
	s, err := a.open(ctx, repo)
	if err != nil {
		return err
	}
	_, err = approval.EvaluateApproval(ctx, s, a.proposalAPI(s.Hub), ghclient.PullOf(ev.GetPullRequest()))
	return err
}

// publishMerged tags what a merged pull request landed (SPEC §5).
func (a *App) publishMerged(ctx context.Context, s *core.Session, pr hub.Pull) error {
	if pr.Base.Ref != s.DeploymentBranch || pr.MergeCommitSHA == "" {
		return nil
	}
	// What was reviewed is compared with what landed: a fork's head is
	// fetched from refs/pull/N/head when the cache lacks it.
	if rendercheck.IsForkPullRequest(s.Repo, pr) {
		if _, err := rendercheck.EnsurePullHead(ctx, s, pr); err != nil {
			return err
		}
	}
	api := publish.NewAPI(s.Hub)
	api.Approval = a.proposalAPI(s.Hub)
	out, err := publish.Publish(ctx, s, api, plumbing.NewHash(pr.MergeCommitSHA), &pr)
	if err != nil {
		return err
	}
	return a.updatesAfterPublish(ctx, s, out)
}
