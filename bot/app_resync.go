package bot

import (
	"context"
	"fmt"

	ghclient "github.com/porchbot/porchbot/internal/github"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/internal/hub"
)

// RenderDraft is the resync's hook for a draft head without a finished
// render check: a retry, which counts the attempts that never finished.
func (a *App) RenderDraft(ctx context.Context, s *core.Session, branch string, head plumbing.Hash) error {
	if _, err := rendercheck.RenderDraft(ctx, s, a.renderChecks(s), rendercheck.RenderRequest{Branch: branch, Head: head, Options: a.Render,
		Retry: true}); err != nil {
		return err
	}
	return a.reevaluateRendered(ctx, s)
}

// ResyncAPI is the resync's API of a session: publishing judges approvals
// with the same bot login and record key as the webhook path
// (proposalAPI), so a record without a valid signature counts in neither.
func (a *App) ResyncAPI(s *core.Session) resync.API {
	api := resync.NewAPI(s.Hub)
	api.Publish.Approval = a.proposalAPI(s.Hub)
	return api
}

// EvaluateProposal is the resync's hook for an open proposal.
// (A fork's head is fetched as refs/pull/N/head.) A proposal from a
// branch that is not a draft that gets its label here (its opened webhook
// was lost) is rendered as the event would have rendered it.
func (a *App) EvaluateProposal(ctx context.Context, s *core.Session, pr hub.Pull) error {
	fork := rendercheck.IsForkPullRequest(s.Repo, pr)
	out, err := proposals.OnProposalEvent(ctx, s, a.proposalAPI(s.Hub), pr)
	if err != nil || out == nil || !out.Labelled || out.Workspace != "" {
		return err
	}
	if fork {
		_, err = rendercheck.RenderForkPullRequest(ctx, s, a.renderChecks(s), pr, a.Render)
	} else {
		err = a.renderBranchProposal(ctx, s, out.Head, out.Packages)
	}
	if err != nil {
		return err
	}
	return a.reevaluateRendered(ctx, s)
}

// AppInstallations lists installations through the App's JWT client, and
// remembers which installation covers each repository listed.
type AppInstallations interface {
	App(ctx context.Context) *github.Client
	Installation(ctx context.Context, installationID int64) (*github.Client, error)
	RememberRepoInstallation(fullName string, id int64)
}

// InstalledRepos lists every repository of every installation of the App,
// for the periodic resync. The listing says which installation covers each
// repository and its visibility: both are remembered (the clients, and the
// App's flow rule when a is not nil), so the pass asks GitHub for neither.
func (a *App) InstalledRepos(clients AppInstallations) func(ctx context.Context) ([]core.Repo, error) {
	var seen func(*github.Repository)
	if a != nil && a.Flows != nil {
		seen = func(r *github.Repository) { a.Flows.Remember(ghclient.RepositoryOf(r)) }
	}
	return installedRepos(clients, seen)
}

func installedRepos(clients AppInstallations, seen func(*github.Repository)) func(ctx context.Context) ([]core.Repo, error) {
	return func(ctx context.Context) ([]core.Repo, error) {
		var out []core.Repo
		opts := &github.ListOptions{PerPage: 100}
		for {
			insts, resp, err := clients.App(ctx).Apps.ListInstallations(ctx, opts)
			if err != nil {
				return out, fmt.Errorf("list installations: %w", err)
			}
			for _, inst := range insts {
				repos, err := installationRepos(ctx, clients, inst.GetID(), seen)
				if err != nil {
					return out, err
				}
				out = append(out, repos...)
			}
			if resp.NextPage == 0 {
				return out, nil
			}
			opts.Page = resp.NextPage
		}
	}
}

func installationRepos(ctx context.Context, clients AppInstallations, id int64, seen func(*github.Repository)) ([]core.Repo, error) {
	gh, err := clients.Installation(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []core.Repo
	opts := &github.ListOptions{PerPage: 100}
	for {
		list, resp, err := gh.Apps.ListRepos(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("list repositories of installation %d: %w", id, err)
		}
		for _, r := range list.Repositories {
			clients.RememberRepoInstallation(r.GetFullName(), id)
			if seen != nil {
				seen(r)
			}
			out = append(out, core.Repo{Owner: r.GetOwner().GetLogin(), Name: r.GetName(),
				InstallationID: id, DefaultBranch: r.GetDefaultBranch(), OpenIssues: r.OpenIssuesCount})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
