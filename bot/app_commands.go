package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/commands"
	"github.com/porchbot/porchbot/bot/ingress"
	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/words"
)

// CommandRunner runs the /porch commands of one comment (commands.Runner).
type CommandRunner interface {
	Handle(ctx context.Context, ev commands.CommentEvent) error
}

// Commands turns issue_comment events into commands.CommentEvents.
type Commands struct{ Runner CommandRunner }

// OnComment runs the commands of a new comment.
func (c *Commands) OnComment(ctx context.Context, installationID int64, ev *github.IssueCommentEvent) error {
	if ev.GetAction() != "created" {
		return nil
	}
	r, issue, comment := ev.GetRepo(), ev.GetIssue(), ev.GetComment()
	return c.Runner.Handle(ctx, commands.CommentEvent{
		Repo:          repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch()),
		Number:        issue.GetNumber(),
		IsPullRequest: issue.IsPullRequest(),
		CommentID:     comment.GetID(),
		Author:        comment.GetUser().GetLogin(),
		AuthorType:    comment.GetUser().GetType(),
		Body:          comment.GetBody(),
		CreatedAt:     comment.GetCreatedAt().Time,
		DeliveryID:    ingress.DeliveryFrom(ctx),
	})
}

// CommandOps is the commands' Lifecycle over the lifecycle steps: the
// drafts half from commands.DraftOps, the proposals half adapted here.
type CommandOps struct {
	commands.DraftOps
	App *App
}

// userMistakes are the lifecycle's sentinel refusals of what was asked,
// with what the commenter is told ("" for the error's own text).
var userMistakes = []struct {
	err error
	msg string
}{
	{approval.ErrNoDraftBranch, ""},
	{approval.ErrNothingToPropose, ""},
	{approval.ErrNotProposal, "This pull request is not a proposal: proposals are pull requests into the deployment " +
		"branch that add, change or remove a package (`/porch propose` opens one for a draft)."},
	{proposals.ErrDeletionNoPackage, "There is no such package on the deployment branch; `/porch list` lists the packages."},
	{publish.ErrNoPackage, "There is no such package to publish; `/porch list` lists the packages."},
}

// userError turns the lifecycle's refusals of what was asked into
// messages for the commenter; any other error stays porchbot's own.
func userError(err error) error {
	for _, m := range userMistakes {
		if errors.Is(err, m.err) {
			msg := m.msg
			if msg == "" {
				msg = err.Error()
			}
			return &commands.UserError{Msg: msg}
		}
	}
	return err
}

// OpenProposal is /porch propose.
func (o CommandOps) OpenProposal(ctx context.Context, s *core.Session, pkg, workspace, by string) (commands.Outcome, error) {
	pr, err := proposals.OpenProposal(ctx, s, o.App.proposalAPI(s.Hub), pkg, workspace, by)
	if err != nil {
		return commands.Outcome{}, userError(err)
	}
	return commands.Outcome{Text: fmt.Sprintf("Proposed %s.", mdquote.Code(pkg+"/"+workspace)), PullRequest: pr.Number}, nil
}

// RecordApproval is /porch approve: the pull request's head when the
// comment was written (approval.HeadAtComment, one REST call), the record
// at that head, then the evaluation. An approval of an older head counts
// for the current one only when the packages' content is the same (the
// policy's carry-over rule). A head that cannot be established is not
// approved: the reply says why and what to do.
func (o CommandOps) RecordApproval(ctx context.Context, s *core.Session, number int, at time.Time, login string, orphans bool) (commands.Outcome, error) {
	api := o.App.proposalAPI(s.Hub)
	pr, err := s.Hub.GetPull(ctx, s.Repo.Owner, s.Repo.Name, number)
	if err != nil {
		return commands.Outcome{}, err
	}
	if pr.State != "open" || !approval.IntoDeployment(s, pr) {
		return commands.Outcome{}, &commands.UserError{Msg: fmt.Sprintf("#%d is not an open proposal", number)}
	}
	seen, err := approval.HeadAtComment(ctx, s.Hub, pr, at)
	if err != nil {
		return commands.Outcome{}, err
	}
	if seen.Commit == "" {
		s.Log.WithFields(logrus.Fields{"pull_request": number, "user": login, "written": at, "why": seen.Why}).
			Info("/porch approve not recorded: the head it was written on is unknown")
		return commands.Outcome{}, &commands.UserError{Msg: "This approval does not count: porchbot cannot tell which commit " +
			"the pull request's head was when you wrote it (" + seen.Why + "). Approve with a review (it names its commit), " +
			"or comment `/porch approve` again."}
	}
	rec, err := approval.RecordCommandApprovalOf(ctx, s, api, number, approval.CommandApproval{User: login,
		Head: plumbing.NewHash(seen.Commit), OrphanDownstreams: orphans})
	if err != nil {
		return commands.Outcome{}, userError(err)
	}
	out, err := approval.EvaluateApproval(ctx, s, api, pr)
	if err != nil {
		return commands.Outcome{}, userError(err)
	}
	if out == nil {
		return commands.Outcome{}, &commands.UserError{Msg: fmt.Sprintf("#%d is not an open proposal", number)}
	}
	if why := approvalNotCounted(out.Result, login); why != "" {
		// Not counted: said plainly in the reply, without the green mark,
		// and the record goes (one comment for the command, not two).
		approval.WithdrawApprovalRecord(ctx, s, api, rec)
		return commands.Outcome{}, &commands.UserError{Msg: "This approval does not count: " + why + ". " +
			mdquote.Quiet(out.Result.Summary)}
	}
	text := "Approval recorded. "
	if orphans {
		text = orphanAckText(out.Packages)
	}
	if head := strings.ToLower(pr.Head.SHA); seen.Commit != head {
		text = fmt.Sprintf("Approval recorded for %s, the head when you wrote the comment; the head is now %s, "+
			"which it covers only if the packages' content is the same. ", words.ShortSHA(seen.Commit), words.ShortSHA(head))
	}
	return commands.Outcome{Text: text + out.Result.Summary, PullRequest: number}, nil
}

// orphanAckText opens the reply to /porch approve --orphan-downstreams:
// what it acknowledged, or that the proposal deletes no package (the
// acknowledgement then changes nothing; the approval counts as any).
func orphanAckText(changes []approval.PackageChange) string {
	var deleted []string
	for _, p := range changes {
		if p.Kind == core.LandingDeleted {
			deleted = append(deleted, mdquote.Code(p.Name))
		}
	}
	if len(deleted) == 0 {
		return "Approval recorded (this proposal deletes no package, so " + mdquote.Code("--"+approval.OrphanFlag) +
			" changes nothing). "
	}
	return "Approval recorded, acknowledging that deleting " + strings.Join(deleted, ", ") +
		" leaves the packages that track it without their upstream. "
}

// approvalNotCounted says why login's /porch approve can never count in
// the verdict, because of who gave it ("" otherwise): the policy's reason
// and detail (self-approval, not an approver, not a member of the
// approvers' team), mentions defused.
func approvalNotCounted(r approval.Result, login string) string {
	for _, a := range r.Approvers {
		if strings.EqualFold(a.User, login) {
			return ""
		}
	}
	for _, ig := range r.Ignored {
		// Only who approved decides these; a stale or superseded approval
		// is still the approval of the head it was written on.
		who := ig.Reason == approval.IgnoredSelf || ig.Reason == approval.IgnoredNotApprover
		if who && strings.EqualFold(ig.User, login) && ig.Source == approval.VoteFromCommand {
			why := string(ig.Reason)
			if ig.Detail != "" {
				why += " (" + ig.Detail + ")"
			}
			return mdquote.Quiet(why)
		}
	}
	return ""
}

// Reject is /porch reject.
func (o CommandOps) Reject(ctx context.Context, s *core.Session, number int, login, reason string) (commands.Outcome, error) {
	pr, err := s.Hub.GetPull(ctx, s.Repo.Owner, s.Repo.Name, number)
	if err != nil {
		return commands.Outcome{}, err
	}
	switch {
	case pr.Merged:
		return commands.Outcome{}, &commands.UserError{Msg: fmt.Sprintf("#%d is already merged: there is nothing to reject. "+
			"To undo it, `/porch rollback <package> v<N>` drafts an earlier revision.", number)}
	case pr.State == "closed":
		return commands.Outcome{}, &commands.UserError{Msg: fmt.Sprintf("#%d is already closed: there is nothing to reject.", number)}
	}
	if err := proposals.Reject(ctx, s, o.App.proposalAPI(s.Hub), pr, login, reason); err != nil {
		return commands.Outcome{}, userError(err)
	}
	out := commands.Outcome{Text: fmt.Sprintf("Proposal #%d closed. %s", number, proposals.RejectedBranchNote(s, pr)),
		PullRequest: number}
	if !rendercheck.IsForkPullRequest(s.Repo, pr) {
		out.Branch = pr.Head.Ref
	}
	return out, nil
}

// Render is /porch render: the draft is rendered again now.
func (o CommandOps) Render(ctx context.Context, s *core.Session, pkg, workspace, headSHA string) (commands.Outcome, error) {
	branch := packages.DraftBranch(pkg, workspace)
	out, err := rendercheck.RenderDraft(ctx, s, o.App.renderChecks(s), rendercheck.RenderRequest{Branch: branch,
		Head: plumbing.NewHash(headSHA), Options: o.App.Render})
	if err != nil {
		return commands.Outcome{}, userError(err)
	}
	text := fmt.Sprintf("Rendered %s: %s.", mdquote.Code(pkg), out.Conclusion)
	if out.Pushed {
		text += " The rendered result was pushed as a new commit."
	}
	return commands.Outcome{Text: text, Branch: branch}, nil
}

// RenderFork is /porch render in a pull request from a fork: every
// package it changes is rendered with built-in functions only and reported
// on porchbot/render at the fork's head; nothing is pushed (a fork is not
// writable). The head is fetched as refs/pull/<N>/head.
func (o CommandOps) RenderFork(ctx context.Context, s *core.Session, number int, headSHA, headRepo string) (commands.Outcome, error) {
	pr := hub.Pull{Number: number,
		Head: hub.Branch{SHA: headSHA, RepoFullName: headRepo},
		Base: hub.Branch{SHA: s.DeploymentHead.String(), Ref: s.DeploymentBranch}}
	if _, err := rendercheck.EnsurePullHead(ctx, s, pr); err != nil {
		return commands.Outcome{}, err
	}
	outs, err := rendercheck.RenderForkPullRequest(ctx, s, o.App.renderChecks(s), pr, o.App.Render)
	if err != nil {
		return commands.Outcome{}, err
	}
	if len(outs) == 0 {
		return commands.Outcome{Text: "This pull request changes no package: nothing to render."}, nil
	}
	parts := make([]string, len(outs))
	for i, out := range outs {
		parts[i] = fmt.Sprintf("%s: %s", mdquote.Code(out.Package), out.Conclusion)
	}
	return commands.Outcome{Text: "Rendered from a fork with built-in functions only (exec functions never run for forks; " +
		"nothing is pushed, a fork is not writable): " + strings.Join(parts, ", ") + "."}, nil
}

// ProposeDeletion is /porch delete.
func (o CommandOps) ProposeDeletion(ctx context.Context, s *core.Session, pkg, by string) (commands.Outcome, error) {
	api := proposals.NewDeletionAPI(s.Hub)
	api.RecordKey = o.App.RecordKey
	pr, err := proposals.ProposeDeletion(ctx, s, api, pkg, by)
	if err != nil {
		return commands.Outcome{}, userError(err)
	}
	return commands.Outcome{Text: fmt.Sprintf("Proposed the deletion of %s.", mdquote.Code(pkg)), PullRequest: pr.Number}, nil
}

// Publish is /porch publish [<package>]: in a merged pull request (its
// draft's package unless named), or anywhere with a package (its latest
// landing on the deployment branch). Anyone with write access publishes
// landings that met the approval policy (publish.PublishPackage); an
// allowed approver's command also counts as the approval of the landing it
// publishes (publish.PublishApproved).
func (o CommandOps) Publish(ctx context.Context, s *core.Session, number int, pkg, by string) (commands.Outcome, error) {
	commit := s.DeploymentHead
	if number > 0 {
		pr, err := s.Hub.GetPull(ctx, s.Repo.Owner, s.Repo.Name, number)
		if err != nil {
			return commands.Outcome{}, err
		}
		if !pr.Merged {
			return commands.Outcome{}, &commands.UserError{Msg: fmt.Sprintf("#%d is not merged: merge it first", number)}
		}
		if pkg == "" {
			draftPkg, _, ok := packages.ParseDraftBranchName(pr.Head.Ref)
			if !ok {
				return commands.Outcome{}, &commands.UserError{Msg: fmt.Sprintf("#%d is not a proposal of a draft branch: name the package, `/porch publish <package>`", number)}
			}
			pkg = draftPkg
		}
		commit = plumbing.NewHash(pr.MergeCommitSHA)
	}
	if pkg == "" {
		return commands.Outcome{}, &commands.UserError{Msg: "name the package: `/porch publish <package>` (in a merged pull request, its draft's package is the default)"}
	}
	api := publish.NewAPI(s.Hub)
	api.Approval = o.App.proposalAPI(s.Hub)
	var out *publish.Outcome
	var err error
	approver, note := false, ""
	if s.Config.Approvals.Required > 0 {
		var rerr error
		approver, note, rerr = approval.NewApproverResolver(api.Approval, s.Repo, s.Config.Approvals.Approvers).Allowed(ctx, by)
		if rerr != nil {
			return commands.Outcome{}, rerr
		}
	}
	switch {
	case approver:
		out, err = publish.PublishApproved(ctx, s, api, pkg, commit, by)
	case s.Config.Approvals.Required <= 0:
		// No approval required: whoever may publish adopts tags too.
		out, err = publish.PublishAdopting(ctx, s, api, pkg, commit, by)
	default:
		// Anyone with write access publishes what met the policy.
		out, err = publish.PublishPackage(ctx, s, api, pkg, commit)
	}
	if err != nil {
		return commands.Outcome{}, userError(err)
	}
	if err := o.App.updatesAfterPublish(ctx, s, out); err != nil {
		s.Log.WithError(err).Warn("update pull requests after /porch publish")
	}
	tags := out.Tags()
	if len(tags) == 0 {
		why := strings.TrimSpace(out.Skipped)
		for _, r := range out.Refused {
			why = strings.TrimSpace(why + " " + r.Reason + ".")
		}
		if why == "" {
			why = "no unpublished landing of " + mdquote.Code(pkg) + "."
		}
		if len(out.Refused) > 0 && note != "" {
			why += " Only an approver's `/porch publish` counts as the approval it lacks (" + note + ")."
		}
		return commands.Outcome{Text: "Nothing to publish: " + why, PullRequest: number}, nil
	}
	text := "Published " + strings.Join(tags, ", ") + "."
	if adopted := out.AdoptedTags(); len(adopted) > 0 {
		text += " Adopted as porchbot's revisions (tags porchbot did not make, now signed on the same commits): " + strings.Join(adopted, ", ") + "."
	}
	for _, r := range out.Refused {
		text += " " + r.Reason + "."
	}
	return commands.Outcome{Text: text, Tag: tags[len(tags)-1], PullRequest: number}, nil
}
