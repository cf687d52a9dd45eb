package dashboard

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/config"
)

// Bounds of a dashboard refresh: the drafts and proposals looked at in
// detail (each costs up to one and two REST calls).
const (
	dashboardMaxDrafts    = 20
	dashboardMaxProposals = 20
)

// Gather reads what the dashboard shows. REST calls: one open
// pull request list (List), one per draft and open update pull request
// whose render this process did not report (a check-runs list), two per
// proposal (its reviews and comments, for the approval verdict; more only
// for "@org/team" approvers) and one more pull request list for updates
// waiting for a slot; packages, drafts and unpublished landings are read
// from the git cache. Drafts and proposals beyond their bounds are listed
// without detail.
func Gather(ctx context.Context, s *core.Session, api approval.ProposalAPI, web string, id core.Identity) (*Facts, error) {
	l, err := proposals.List(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("dashboard of %s: %w", s.Repo.FullName(), err)
	}
	f := &Facts{Repo: s.Repo.FullName(), Web: web, DeploymentBranch: s.DeploymentBranch,
		Packages: l.Packages, Truncated: l.PullsTruncated, UnverifiedTags: l.Unverified}
	if s.ConfigErr != nil {
		f.ConfigError, f.ConfigInForce = s.ConfigErr.Error(), s.ConfigVersion()
	}
	var errs []error
	if f.HasConfig, err = hasConfigFile(ctx, s); err != nil {
		errs = append(errs, err)
	}
	for i, d := range l.Drafts {
		if d.Merged || d.Empty {
			continue
		}
		dd := Draft{Package: d.Package, Workspace: d.Workspace, Pull: d.Pull}
		if i < dashboardMaxDrafts {
			st, err := approval.RenderStateAt(ctx, s, api, d.Head.String())
			if err != nil {
				errs = append(errs, err)
			}
			dd.Render = st
		} else {
			f.Truncated = true
		}
		f.Drafts = append(f.Drafts, dd)
	}
	for i, p := range l.Proposals {
		dp := Proposal{Number: p.Number, Title: p.Title, Package: p.Package, Workspace: p.Workspace}
		if i < dashboardMaxProposals && p.Pull != nil {
			dp = dashboardProposal(ctx, s, api, p, dp)
		} else {
			dp.Problem = "not looked at: too many open proposals"
			f.Truncated = true
		}
		f.Proposals = append(f.Proposals, dp)
	}
	if f.Landings, err = dashboardLandings(ctx, s); err != nil {
		errs = append(errs, err)
	}
	for _, u := range l.Updates {
		du := Update{Package: u.Package, Pull: u.Number, State: UpdateOpen}
		if u.Pull != nil {
			st, err := approval.RenderStateAt(ctx, s, api, u.Pull.Head.SHA)
			if err != nil {
				errs = append(errs, err)
			}
			if st == rendercheck.RenderFailed {
				du.State = UpdateFailed
			}
		}
		f.Updates = append(f.Updates, du)
	}
	if api.Pulls != nil {
		waiting, _, err := updates.WaitingUpdates(ctx, s, api.Pulls, id)
		if err != nil {
			errs = append(errs, err)
		}
		for _, pkg := range waiting {
			f.Updates = append(f.Updates, Update{Package: pkg, State: UpdateWaiting})
		}
	}
	return f, errors.Join(errs...)
}

// dashboardProposal judges one proposal as its porchbot/approval check
// does (the same verdict), without posting the check.
func dashboardProposal(ctx context.Context, s *core.Session, api approval.ProposalAPI, p proposals.PullStatus, dp Proposal) Proposal {
	pr := *p.Pull
	head := strings.ToLower(pr.Head.SHA)
	fail := func(err error) Proposal {
		s.Log.WithError(err).WithField("pull_request", p.Number).Warn("dashboard: approval not judged")
		dp.Problem = "could not be judged now; see its porchbot/approval check"
		return dp
	}
	if err := approval.EnsurePullRequestHead(ctx, s, pr); err != nil {
		return fail(err)
	}
	base, err := approval.ProposalBase(ctx, s, pr)
	if err != nil {
		return fail(err)
	}
	facts, err := approval.GatherProposalFacts(ctx, s, api, pr, head, base)
	if err != nil {
		return fail(err)
	}
	if dp.Package == "" && len(facts.Changes) > 0 {
		dp.Package = facts.Changes[0].Name
	}
	res, in, err := approval.Verdict(ctx, s.Config.Approvals, facts)
	if err != nil {
		return fail(err)
	}
	dp.Verdict = &res
	dp.StillNeeded = StillNeeded(res, approverNames(s.Config.Approvals.Approvers), in.Author, s.Config.Approvals.AllowSelfApproval)
	return dp
}

// approverNames are the configured approvers as written ("alice",
// "@org/team").
func approverNames(us []config.UserOrTeam) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.String()
	}
	return out
}

// dashboardLandings are the packages landed on the deployment branch and
// not published (git only): with publishOn: never every landing waits for
// /porch publish; with merge, those the publish refused (no pull request,
// or not approved).
func dashboardLandings(ctx context.Context, s *core.Session) ([]Landing, error) {
	if s.DeploymentHead.IsZero() {
		return nil, nil
	}
	tags, err := core.ReadRevisionTags(ctx, s)
	if err != nil {
		return nil, err
	}
	hists, err := core.UntaggedLandings(ctx, s, s.DeploymentHead, tags)
	if err != nil {
		return nil, err
	}
	var out []Landing
	for _, h := range hists {
		if len(h.Pending) == 0 {
			continue
		}
		out = append(out, Landing{Package: h.Package, Commit: h.Pending[len(h.Pending)-1].Commit.String(), Count: len(h.Pending)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Package < out[j].Package })
	return out, nil
}

// hasConfigFile reports .github/porchbot.yaml on the deployment branch
// (git only).
func hasConfigFile(ctx context.Context, s *core.Session) (bool, error) {
	if s.DeploymentHead.IsZero() {
		return false, nil
	}
	has := false
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		c, err := repo.CommitObject(s.DeploymentHead)
		if err != nil {
			return fmt.Errorf("commit %s: %w", s.DeploymentHead, err)
		}
		blob, err := configBlob(c)
		has = !blob.IsZero()
		return err
	})
	return has, err
}
