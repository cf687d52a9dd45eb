package updates

import (
	"context"
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/packages"
)

// Update pull requests beyond updates.prConcurrentLimit wait as pushed
// branches without a pull request: durable, and the same for every
// replica. When an update pull request closes, the waiting ones are opened,
// oldest package name first, as the limit allows.

// WaitingUpdates lists the packages of s whose update branch is porchbot's
// and has no open pull request, at most limit of them ("" none).
func WaitingUpdates(ctx context.Context, s *core.Session, pulls approval.ProposalPulls, id core.Identity) ([]string, int, error) {
	refs, err := s.Git.ListRefs(ctx, "refs/remotes/origin/"+packages.UpdateBranch(""))
	if err != nil {
		return nil, 0, err
	}
	var prs []hub.Pull
	if !s.NoOpenPulls {
		if prs, _, err = pulls.ListPulls(ctx, s.Repo.Owner, s.Repo.Name, proposals.OpenPullsOptions()); err != nil {
			return nil, 0, fmt.Errorf("list pull requests: %w", err)
		}
	}
	open := map[string]bool{}
	for _, pr := range prs {
		if pr.Base.Ref != s.DeploymentBranch {
			continue
		}
		if _, ok := packages.ParseUpdateBranchName(pr.Head.Ref); ok && !rendercheck.IsForkPullRequest(s.Repo, pr) {
			open[pr.Head.Ref] = true
		}
	}
	var waiting []string
	for _, r := range refs {
		branch := strings.TrimPrefix(r.Name().String(), "refs/remotes/origin/")
		pkg, ok := packages.ParseUpdateBranchName(branch)
		if !ok || open[branch] {
			continue
		}
		st, err := updateBranchState(ctx, s, r.Hash(), &Plan{Package: pkg, Dir: rendercheck.PackageDir(s.Config, pkg)}, id)
		if err != nil {
			return nil, 0, err
		}
		if st.own && st.revision > 0 {
			waiting = append(waiting, pkg)
		}
	}
	return waiting, len(open), nil
}

// OpenWaiting opens the pull requests of waiting updates of ds (after an
// update pull request closed), through Upgrade: each is planned again on
// the current deployment branch, to the upstream's latest revision.
func (f *Fanout) OpenWaiting(ctx context.Context, ds *core.Session) error {
	if f == nil || f.Open == nil {
		return nil
	}
	api := f.API(ds)
	waiting, open, err := WaitingUpdates(ctx, ds, api.Proposal.Pulls, api.Identity)
	if err != nil {
		return err
	}
	limit := ds.Config.Updates.PRConcurrentLimit
	ds.Log.WithFields(map[string]any{"waiting": waiting, "open_updates": open, "limit": limit}).Info("update pull requests waiting")
	for _, pkg := range waiting {
		if limit > 0 && open >= limit {
			break
		}
		out, _, err := f.Upgrade(ctx, ds, pkg, 0, Options{})
		if err != nil {
			ds.Log.WithError(err).WithField("package", pkg).Warn("could not open a waiting update")
			continue
		}
		if out.PR != nil && (out.State == Opened || out.State == Current) {
			open++
		}
	}
	return nil
}
