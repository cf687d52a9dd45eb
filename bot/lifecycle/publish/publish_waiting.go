package publish

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

// A landing without a pull request (a direct push to the deployment
// branch) was reviewed by nobody: with approvals required it waits for an
// allowed approver's /porch publish <package>. The pushed commit says so
// with a porchbot/publish check run, posted on push (AwaitApproverOnPush)
// and by the resync when the push webhook was lost (resyncAwaitingChecks).

// AwaitApproverOnPush posts porchbot/publish (action_required) on commit,
// just pushed to the deployment branch, for every package it adds or
// changes, when approvals are required, publishOn is merge and no pull
// request landed commit. A merge commit is left to its pull_request event
// (a merge pushed by hand is marked by the resync), so a pull request's
// merge costs nothing here; a single-parent commit (a direct push, or a
// squash or rebase merge) costs one pull request lookup, then one call
// per package; none when the push changes no package.
//
// pusher is who pushed (the push event's sender, which the signed webhook
// vouches for): the check run records it, so that their own /porch publish
// of what they pushed counts only where allowSelfApproval says so.
func AwaitApproverOnPush(ctx context.Context, s *core.Session, api API, commit plumbing.Hash, pusher string) ([]string, error) {
	if s.Config.Approvals.Required <= 0 || s.Config.Lifecycle.PublishOn != config.PublishOnMerge {
		return nil, nil
	}
	p := NewPublisher(s, api, &Outcome{Commit: commit}, false)
	if ok, err := p.onDeploymentBranch(ctx, commit); err != nil || !ok {
		return nil, err
	}
	changed, err := core.ChangedPackages(ctx, s, commit)
	if err != nil {
		return nil, fmt.Errorf("direct push %s: %w", words.ShortSHA(commit.String()), err)
	}
	var pkgs []string
	for _, l := range changed {
		if l.IsMerge() {
			return nil, nil
		}
		if l.Kind != core.LandingDeleted {
			pkgs = append(pkgs, l.Package)
		}
	}
	if len(pkgs) == 0 {
		return nil, nil
	}
	pr, err := p.LookupPR(ctx, commit)
	if err != nil || pr != nil {
		return nil, err
	}
	for _, pkg := range pkgs {
		if err := p.awaitingStatus(ctx, pkg, commit, pusher); err != nil {
			return nil, err
		}
	}
	s.Log.WithFields(logrus.Fields{"commit": commit.String(), "packages": pkgs}).
		Info("direct push: waiting for an approver's /porch publish")
	return pkgs, nil
}

// waitingPusher precedes, in the external id of a waiting porchbot/publish
// check run ("<package> pusher=<login>"), who pushed the landing.
const waitingPusher = " pusher="

// waitingRecord reads a waiting porchbot/publish check run's external id:
// the package and who pushed ("" when not known, e.g. marked by a resync).
func waitingRecord(externalID string) (pkg, pusher string) {
	pkg, pusher, _ = strings.Cut(externalID, waitingPusher)
	return pkg, pusher
}

// awaitingStatus posts porchbot/publish (action_required) on commit for
// pkg: it waits for an approver's /porch publish; the run records pusher.
func (p *Publisher) awaitingStatus(ctx context.Context, pkg string, commit plumbing.Hash, pusher string) error {
	if p.API.Checks == nil {
		return nil
	}
	owner, repo := p.Owner()
	now := time.Now().UTC()
	summary := fmt.Sprintf("%s changed on %s without a pull request (a direct push, or the state porchbot "+
		"found it in), so nobody approved it and it is not published.\n\nIt waits for an allowed approver's "+
		"%s (in any issue or pull request comment), which publishes it and names them as its approver.",
		mdquote.Code(pkg), mdquote.Code(p.Session.DeploymentBranch), mdquote.Code("/porch publish "+pkg))
	_, err := p.API.Checks.CreateCheckRun(ctx, owner, repo, hub.CheckRunWrite{
		Name: CheckName, HeadSHA: commit.String(), ExternalID: waitingExternalID(pkg, pusher),
		Status: "completed", Conclusion: "action_required", CompletedAt: now,
		Output: &hub.CheckOutput{Title: "Waiting for an approver: " + pkg,
			Summary: summary}})
	if err != nil {
		return fmt.Errorf("check run %s on %s: %w", CheckName, commit, err)
	}
	return nil
}

// ResyncAwaitingChecks gives every landing the resync left unpublished
// for want of a pull request its porchbot/publish check run, unless the
// commit already has one for the package (one check-runs call per such
// landing, one more to post).
func (p *Publisher) ResyncAwaitingChecks(ctx context.Context, checks ResyncChecks, appID int64, refused []RefusedLanding) error {
	if p.Session.Config.Approvals.Required <= 0 || checks == nil {
		return nil
	}
	owner, repo := p.Owner()
	for _, r := range refused {
		if !r.Unreviewed {
			continue // it had a pull request: the pull request was told
		}
		opts := hub.CheckQuery{Name: CheckName, Page: hub.Page{PerPage: 100}}
		if appID != 0 {
			opts.AppID = appID
		}
		res, _, err := checks.ListCheckRuns(ctx, owner, repo, r.Commit.String(), opts)
		if err != nil {
			return fmt.Errorf("check runs of %s: %w", words.ShortSHA(r.Commit.String()), err)
		}
		posted := false
		for _, cr := range res.Runs {
			if pkg, _ := waitingRecord(cr.ExternalID); pkg == r.Package {
				posted = true
			}
		}
		if posted {
			continue
		}
		if err := p.awaitingStatus(ctx, r.Package, r.Commit, ""); err != nil {
			return err
		}
		p.Log.WithFields(logrus.Fields{"package": r.Package, "commit": r.Commit.String()}).
			Info("resync: direct push marked as waiting for an approver")
	}
	return nil
}

func waitingExternalID(pkg, pusher string) string {
	if pusher == "" {
		return pkg
	}
	return pkg + waitingPusher + pusher
}

// landingPusher is who pushed landing l straight to the deployment branch,
// as the App's own porchbot/publish check run on it recorded ("" when no
// such record: a push whose webhook was lost, the state found at install).
// One check-runs call.
func (p *Publisher) landingPusher(ctx context.Context, l core.Landing) (string, error) {
	return p.recordedPusher(ctx, l.Commit, l.Package)
}

// recordedPusher is the pusher the App's first porchbot/publish check run
// on commit recorded for subject (a package, or a tag name for a tag
// pushed by hand), "" when none did.
func (p *Publisher) recordedPusher(ctx context.Context, commit plumbing.Hash, subject string) (string, error) {
	lister := p.API.Approval.CheckList
	if lister == nil {
		return "", nil
	}
	owner, repo := p.Owner()
	res, _, err := lister.ListCheckRuns(ctx, owner, repo, commit.String(),
		hub.CheckQuery{Name: CheckName, Page: hub.Page{PerPage: 100}})
	if err != nil {
		return "", fmt.Errorf("check runs of %s: %w", words.ShortSHA(commit.String()), err)
	}
	pusher, first := "", int64(0)
	for _, cr := range res.Runs {
		if !p.API.Approval.IsOwnRun(cr) {
			continue
		}
		if what, who := waitingRecord(cr.ExternalID); what == subject && who != "" && (first == 0 || cr.ID < first) {
			pusher, first = who, cr.ID
		}
	}
	return pusher, nil
}

// ResyncChecks is the check-runs call (a part of s.Hub).
type ResyncChecks interface {
	ListCheckRuns(ctx context.Context, owner, repo, ref string, q hub.CheckQuery) (hub.CheckRuns, hub.Next, error)
}
