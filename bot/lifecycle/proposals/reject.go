package proposals

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
)

// rejectMarker records a /porch reject in the bot's comment.
type rejectMarker struct {
	User   string `json:"user"`
	Head   string `json:"head"`
	Reason string `json:"reason,omitempty"`
}

// Reject handles `/porch reject [reason]` on a proposal: it comments who
// rejected it and why, closes the pull request and removes its proposal
// label (three REST calls). Any proposal: a draft's, a feature branch's or
// a fork's whose head changes a package (IntoDeployment, ProposalChanges).
// Its branch stays: pushing to it and proposing again (a draft:
// `/porch propose`; any other branch: reopening the pull request) reopens
// the lifecycle. A closed pull request is left alone (nil: a redelivered
// command does nothing twice); a pull request that is not a proposal gives
// ErrNotProposal.
func Reject(ctx context.Context, s *core.Session, api approval.ProposalAPI, pr hub.Pull, user, reason string) error {
	n := pr.Number
	pkg, ws, draft := approval.ParseProposal(s, pr)
	var pkgs []string
	if draft {
		pkgs = []string{pkg}
	} else {
		var err error
		if pkgs, err = rejectChangedPackages(ctx, s, pr); err != nil {
			return fmt.Errorf("reject #%d: %w", n, err)
		}
		if len(pkgs) == 0 {
			return fmt.Errorf("reject #%d: %w", n, approval.ErrNotProposal)
		}
	}
	log := s.Log.WithFields(logrus.Fields{"pull_request": n, "packages": pkgs, "workspace": ws, "user": user})
	if pr.State == "closed" {
		log.Info("reject: the proposal is already closed")
		return nil
	}
	user = strings.TrimPrefix(strings.TrimSpace(user), "@")
	reason = strings.TrimSpace(reason)
	var b strings.Builder
	fmt.Fprintf(&b, "Proposal rejected by @%s", user)
	if reason != "" {
		fmt.Fprintf(&b, ":\n\n> %s\n\n", strings.ReplaceAll(reason, "\n", "\n> "))
	} else {
		b.WriteString(".\n\n")
	}
	b.WriteString(RejectedBranchNote(s, pr) + "\n\n")
	b.WriteString(approval.FormatBotMarker("reject", rejectMarker{User: user, Head: pr.Head.SHA, Reason: reason}) + "\n")
	if _, err := api.Issues.CreateComment(ctx, s.Repo.Owner, s.Repo.Name, n, b.String()); err != nil {
		return fmt.Errorf("reject #%d: comment: %w", n, err)
	}
	closed, err := api.Pulls.EditPull(ctx, s.Repo.Owner, s.Repo.Name, n, hub.PullEdit{State: "closed"})
	if err != nil {
		return fmt.Errorf("reject #%d: close: %w", n, err)
	}
	labels := pr.Labels
	if closed.Labels != nil {
		labels = closed.Labels
	}
	for _, label := range []string{packages.LabelProposed, packages.LabelDeletionProposed} {
		// Unknown labels (nil): try porch/proposed, a missing label is a 404.
		if !(labels == nil && label == packages.LabelProposed || hub.HasLabel(labels, label)) {
			continue
		}
		if err := api.Issues.RemoveLabel(ctx, s.Repo.Owner, s.Repo.Name, n, label); err != nil && !hub.IsNotFound(err) {
			return fmt.Errorf("reject #%d: remove label %s: %w", n, label, err)
		}
		labels = propWithoutLabel(labels, label)
	}
	log.Info("proposal rejected")
	return nil
}

// RejectedBranchNote says which branch a rejected proposal leaves and how
// to propose it again.
func RejectedBranchNote(s *core.Session, pr hub.Pull) string {
	if pkg, ws, ok := approval.ParseProposal(s, pr); ok {
		return fmt.Sprintf("The draft branch %s stays: push to it and run %s to propose it again.",
			mdquote.Code(packages.DraftBranch(pkg, ws)), mdquote.Code("/porch propose "+pkg+"/"+ws))
	}
	if rendercheck.IsForkPullRequest(s.Repo, pr) {
		return fmt.Sprintf("The fork's branch %s stays: push to it and reopen the pull request to propose it again.",
			mdquote.Code(pr.Head.Label))
	}
	return fmt.Sprintf("The branch %s stays: push to it and reopen the pull request to propose it again.",
		mdquote.Code(pr.Head.Ref))
}

// rejectChangedPackages are the packages a pull request that is not a
// draft's changes (none: it is no proposal). A fork's head is fetched as
// refs/pull/N/head.
func rejectChangedPackages(ctx context.Context, s *core.Session, pr hub.Pull) ([]string, error) {
	if head := pr.Head.SHA; !approval.IntoDeployment(s, pr) || len(head) != 40 || !plumbing.IsHash(head) {
		return nil, nil
	}
	changes, err := approval.PullRequestChanges(ctx, s, pr)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(changes))
	for i, c := range changes {
		names[i] = c.Name
	}
	return names, nil
}

func propWithoutLabel(labels []string, name string) []string {
	out := labels[:0:0]
	for _, l := range labels {
		if !strings.EqualFold(l, name) {
			out = append(out, l)
		}
	}
	return out
}
