package publish

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/words"
)

// The decision on one landing: publish it, refuse it (the package differs
// from what was approved), or leave it waiting for an approver.

// LandingVerdict is the decision on one landing.
type LandingVerdict struct {
	publish bool
	// refused: the package differs from the approved head, or the pull
	// request did not meet the approval policy.
	refused bool
	// unreviewed: refused because no pull request landed it.
	unreviewed bool
	reason     string
	PR         *hub.Pull
	head       plumbing.Hash
	// approvers are the approvals that covered the published tree (nil:
	// no pull request, or none required).
	approvers []string
	// adopted: a tag pushed by hand, adopted by an approver's /porch
	// publish (revision_adopt.go).
	adopted bool
	// requester is who asked for the pull request (its author, or for one
	// porchbot opened, the requester its record names), as the approval
	// policy read it ("" when not read).
	requester string
}

// baseURL is the web page of the verdict's pull request's base
// repository ("" when not known).
func (v LandingVerdict) baseURL() string {
	if v.PR == nil {
		return ""
	}
	return v.PR.Base.RepoHTMLURL
}

// PRNumber is the number of the verdict's pull request (0: none).
func (v LandingVerdict) PRNumber() int {
	if v.PR == nil {
		return 0
	}
	return v.PR.Number
}

// checkApproval refuses v unless its pull request met the approval policy
// at its head (publish_approval.go); with approvals required, a landing
// without a pull request (a direct push, the state porchbot found the
// package in) was reviewed by nobody and is refused too.
func (p *Publisher) checkApproval(ctx context.Context, l core.Landing, v LandingVerdict) (LandingVerdict, error) {
	if !v.publish {
		return v, nil
	}
	if v.PR == nil {
		if p.Session.Config.Approvals.Required > 0 {
			v.publish, v.refused, v.unreviewed = false, true, true
			v.reason = fmt.Sprintf("it landed without a pull request (a direct push to %s, or the state porchbot found it in), so nobody approved it", p.Session.DeploymentBranch)
		}
		return v, nil
	}
	res, requester, ok, err := p.landingApproval(ctx, l, v.PR)
	if err != nil {
		return v, err
	}
	v.requester = requester
	if res.Required > 0 {
		v.approvers = countedLogins(res)
	}
	switch {
	case !ok && renderRunning(res):
		// Met but for a render still running on the head (another
		// replica's, or one whose push was heard after the merge): not
		// refused, whatever the timing; judged again when this process
		// sees the render finish (App.reevaluate), by the replica that
		// rendered it, and by the resync.
		v.publish = false
		v.reason = fmt.Sprintf("its pull request #%d's head %s is still being rendered", v.PR.Number, words.CommitOrUnknown(v.PR.Head.SHA))
		p.API.Approval.Renders.Wait(p.Session.Repo.FullName(), strings.ToLower(v.PR.Head.SHA), v.PR.Number)
	case !ok:
		v.publish, v.refused = false, true
		v.head = plumbing.NewHash(v.PR.Head.SHA)
		v.reason = approvalRefusalReason(v.PR, res)
	}
	return v, nil
}

// renderRunning says whether res falls short only because the render
// check has not finished on the head.
func renderRunning(res approval.Result) bool {
	return res.RenderProblem == rendercheck.RenderProblem(rendercheck.RenderPending) && len(res.Approvers) >= res.Required &&
		len(res.MissingGates) == 0 && res.OrphanProblem == ""
}

// verdict decides whether landing l may be published; last is the package
// tree the previous published landing left.
func (p *Publisher) verdict(ctx context.Context, l core.Landing, pr *hub.Pull, last plumbing.Hash) (LandingVerdict, error) {
	if p.approvedBy != "" && l.Commit == p.approveCommit {
		return p.approvedVerdict(ctx, l, pr)
	}
	if l.Kind == core.LandingReviewed {
		if l.Tree == last {
			return LandingVerdict{reason: "unchanged since the last published revision"}, nil
		}
		if pr != nil {
			st, err := p.stateAt(ctx, plumbing.NewHash(pr.Head.SHA), l.Dir)
			if err != nil || st.Tree != l.Tree {
				return LandingVerdict{reason: "the pull request did not approve this package state"}, nil
			}
			return p.checkApproval(ctx, l, LandingVerdict{publish: true, PR: pr})
		}
		var err error
		if p.Session.Config.Lifecycle.Releases || p.Session.Config.Approvals.Required > 0 {
			if pr, err = p.LookupPR(ctx, l.Commit); err != nil {
				return LandingVerdict{}, err
			}
		}
		return p.checkApproval(ctx, l, LandingVerdict{publish: true, PR: pr})
	}

	var err error
	if pr == nil && !l.IsMerge() {
		// A single-parent landing is a direct push, or a squash or rebase
		// merge: only the pull request knows what was approved.
		if pr, err = p.LookupPR(ctx, l.Commit); err != nil {
			return LandingVerdict{}, err
		}
	}
	v := LandingVerdict{PR: pr}
	switch {
	case pr != nil:
		v.head = plumbing.NewHash(pr.Head.SHA)
		st, err := p.stateAt(ctx, v.head, l.Dir)
		switch {
		case errors.Is(err, core.ErrLandingCommitMissing):
			v.refused, v.reason = true, fmt.Sprintf("the approved head %s is not available to compare with", words.ShortSHA(v.head.String()))
		case err != nil:
			return v, err
		case st.Tree != l.Tree:
			v.refused, v.reason = true, "the merged package differs from the approved head"
		default:
			v.publish = true
		}
	case l.IsMerge():
		v.head = l.Merged[0]
		v.refused, v.reason = true, "the merged package differs from the merged branch"
		for _, t := range l.MergedTrees {
			if t == l.Tree {
				v.publish, v.refused, v.reason = true, false, ""
			}
		}
	default:
		v.publish = true // a direct push: nothing was reviewed, it is what landed
	}
	if v.PR == nil && (v.publish && (p.Session.Config.Lifecycle.Releases || p.Session.Config.Approvals.Required > 0) || v.refused && p.event) {
		if v.PR, err = p.LookupPR(ctx, l.Commit); err != nil {
			return v, err
		}
	}
	return p.checkApproval(ctx, l, v)
}

// stateAt reads the package state at commit.
func (p *Publisher) stateAt(ctx context.Context, commit plumbing.Hash, dir string) (core.LandingState, error) {
	var st core.LandingState
	err := p.Session.Git.With(ctx, func(repo *git.Repository) error {
		var err error
		st, err = p.Session.Walker(ctx, repo).State(commit, dir)
		return err
	})
	return st, err
}

// LookupPR finds the merged pull request whose merge landed commit on the
// deployment branch (nil: a direct push). One call per commit.
func (p *Publisher) LookupPR(ctx context.Context, commit plumbing.Hash) (*hub.Pull, error) {
	if pr, ok := p.prs[commit]; ok {
		return pr, nil
	}
	owner, repo := p.Owner()
	prs, _, err := p.API.Pulls.ListPullsWithCommit(ctx, owner, repo, commit.String(), hub.Page{PerPage: 100})
	if err != nil {
		return nil, fmt.Errorf("find the pull request of %s: %w", commit, err)
	}
	var found *hub.Pull
	for _, pr := range prs {
		if !pr.MergedAt.IsZero() && pr.MergeCommitSHA == commit.String() &&
			(pr.Base.Ref == "" || pr.Base.Ref == p.Session.DeploymentBranch) {
			found = &pr
			break
		}
	}
	p.prs[commit] = found
	return found, nil
}
