package publish

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

// Publishing re-checks the approval at landing (issue #8): a landing that
// came with a pull request is tagged only if the pull request's head met
// the approval policy in force on the deployment branch (the same Verdict
// as the porchbot/approval check, its changes taken against the landing's
// first parent) and the landed package equals the package at that head.
// Neither an admin merge without approval nor a push after the approval
// that changed what was approved publishes anything; the landing is
// refused (publish_refusal.go) with a porchbot/publish check run on the
// landing commit (a check run rather than a commit status: only the App
// can write it). With approvals.required: 0 every landing publishes.

// CheckName is the check run a refused landing gets.
const CheckName = "porchbot/publish"

// landingApproval is the approval verdict on pull request pr (merged as
// landing l) at its head. ok is true when approvals.required is 0.
func (p *Publisher) landingApproval(ctx context.Context, l core.Landing, pr *hub.Pull) (approval.Result, string, bool, error) {
	policy := p.Session.Config.Approvals
	if policy.Required <= 0 {
		return approval.Result{Satisfied: true, Required: policy.Required}, "", true, nil
	}
	head := strings.ToLower(pr.Head.SHA)
	api := p.API.Approval
	api.Opened = false
	facts, err := approval.GatherProposalFacts(ctx, p.Session, api, *pr, head, l.Parent)
	if err != nil {
		return approval.Result{}, "", false, fmt.Errorf("approval of #%d at landing %s: %w", pr.Number, words.ShortSHA(l.Commit.String()), err)
	}
	res, _, err := approval.Verdict(ctx, policy, facts)
	if err != nil {
		return approval.Result{}, "", false, fmt.Errorf("approval of #%d at landing %s: %w", pr.Number, words.ShortSHA(l.Commit.String()), err)
	}
	return res, facts.Requester(), res.Satisfied, nil
}

// approvalRefusalReason says why a landing's pull request did not meet
// the policy, for the comment and the status.
func approvalRefusalReason(pr *hub.Pull, res approval.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "its pull request #%d did not meet the approval policy at its head %s: %s",
		pr.Number, words.CommitOrUnknown(pr.Head.SHA), strings.TrimSuffix(res.Summary, "."))
	for i, ig := range res.Ignored {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(res.Ignored)-i)
			break
		}
		fmt.Fprintf(&b, "; @%s's approval: %s (%s)", ig.User, ig.Reason, ig.Detail)
	}
	return b.String()
}

// countedLogins are the users whose approvals counted.
func countedLogins(res approval.Result) []string {
	out := make([]string, len(res.Approvers))
	for i, a := range res.Approvers {
		out[i] = a.User
	}
	return out
}

// refusalStatus posts porchbot/publish (failure) on a refused landing,
// saying why.
func (p *Publisher) refusalStatus(ctx context.Context, l core.Landing, reason string) error {
	if p.API.Checks == nil {
		return nil
	}
	owner, repo := p.Owner()
	now := time.Now().UTC()
	_, err := p.API.Checks.CreateCheckRun(ctx, owner, repo, hub.CheckRunWrite{
		Name: CheckName, HeadSHA: l.Commit.String(), ExternalID: l.Package,
		Status: "completed", Conclusion: "failure", CompletedAt: now,
		Output: &hub.CheckOutput{Title: "Not published: " + l.Package,
			Summary: fmt.Sprintf("%s was not published: %s.\n\nAn approver publishes it with %s.", mdquote.Code(l.Package), reason, mdquote.Code("/porch publish "+l.Package))}})
	if err != nil {
		return fmt.Errorf("check run %s on %s: %w", CheckName, l.Commit, err)
	}
	return nil
}

// approvedVerdict publishes landing l as approved by p.approvedBy
// (/porch publish <package>), unless they asked for the change themselves
// and self-approval is not allowed.
func (p *Publisher) approvedVerdict(ctx context.Context, l core.Landing, pr *hub.Pull) (LandingVerdict, error) {
	var err error
	if pr == nil {
		if pr, err = p.LookupPR(ctx, l.Commit); err != nil {
			return LandingVerdict{}, err
		}
	}
	v := LandingVerdict{PR: pr, approvers: []string{p.approvedBy}}
	if pr == nil && p.Session.Config.Approvals.Required > 0 {
		// a direct push: who pushed it asked for it
		pusher, err := p.landingPusher(ctx, l)
		if err != nil {
			return v, err
		}
		if self, detail := approval.SelfExcluded(p.Session.Config.Approvals, pusher, p.approvedBy); pusher != "" && self {
			v.refused, v.reason = true, fmt.Sprintf("@%s's /porch publish does not count: they pushed it (%s)", p.approvedBy, detail)
			return v, nil
		}
	}
	if pr != nil && p.Session.Config.Approvals.Required > 0 {
		requester := pr.User.Login
		if p.API.Approval.IsBot(pr.User) {
			comments, err := approval.ListAllComments(ctx, p.Session, p.API.Approval, pr.Number)
			if err != nil {
				return v, err
			}
			requester = approval.ProposalRequesterIn(p.API.Approval, p.Session.Repo.FullName(), *pr, comments,
				approval.OwnCommitsOf(ctx, p.Session, pr.Head.SHA, l.Parent))
		}
		if self, detail := approval.SelfExcluded(p.Session.Config.Approvals, requester, p.approvedBy); self {
			v.refused, v.reason = true, fmt.Sprintf("@%s's /porch publish does not count: %s", p.approvedBy, detail)
			return v, nil
		}
	}
	v.publish = true
	return v, nil
}
