package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/packages"
)

// rejectMarker records a /porch reject in the bot's comment.
type rejectMarker struct {
	User   string `json:"user"`
	Head   string `json:"head"`
	Reason string `json:"reason,omitempty"`
}

// Reject handles `/porch reject [reason]` on a proposal: it comments who
// rejected it and why, closes the pull request and removes the label
// porch/proposed (three REST calls). The draft branch stays: pushing to
// it and proposing again reopens the lifecycle. A closed pull request is
// left alone (nil: a redelivered command does nothing twice); a pull
// request that is not a proposal gives ErrNotProposal.
func Reject(ctx context.Context, s *Session, api ProposalAPI, pr *github.PullRequest, user, reason string) error {
	pkg, ws, ok := ParseProposal(s, pr)
	if !ok {
		return fmt.Errorf("reject #%d: %w", pr.GetNumber(), ErrNotProposal)
	}
	n := pr.GetNumber()
	log := s.Log.WithFields(logrus.Fields{"pull_request": n, "package": pkg, "workspace": ws, "user": user})
	if pr.GetState() == "closed" {
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
	fmt.Fprintf(&b, "The draft branch `%s` stays: push to it and run `/porch propose %s/%s` to propose it again.\n\n",
		packages.DraftBranch(pkg, ws), pkg, ws)
	b.WriteString(formatBotMarker("reject", rejectMarker{User: user, Head: pr.GetHead().GetSHA(), Reason: reason}) + "\n")
	if _, _, err := api.Issues.CreateComment(ctx, s.Repo.Owner, s.Repo.Name, n, &github.IssueComment{Body: github.String(b.String())}); err != nil {
		return fmt.Errorf("reject #%d: comment: %w", n, err)
	}
	closed, _, err := api.Pulls.Edit(ctx, s.Repo.Owner, s.Repo.Name, n, &github.PullRequest{State: github.String("closed")})
	if err != nil {
		return fmt.Errorf("reject #%d: close: %w", n, err)
	}
	labels := pr.Labels
	if closed != nil {
		pr.State = closed.State
		if closed.Labels != nil {
			labels = closed.Labels
		}
	}
	// Unknown labels (nil): try, a missing label is a 404.
	if labels == nil || propHasLabel(labels, packages.LabelProposed) {
		resp, err := api.Issues.RemoveLabelForIssue(ctx, s.Repo.Owner, s.Repo.Name, n, packages.LabelProposed)
		var er *github.ErrorResponse
		if err != nil && !(errors.As(err, &er) && resp != nil && resp.StatusCode == http.StatusNotFound) {
			return fmt.Errorf("reject #%d: remove label %s: %w", n, packages.LabelProposed, err)
		}
		pr.Labels = propWithoutLabel(labels, packages.LabelProposed)
	}
	log.Info("proposal rejected")
	return nil
}

func propWithoutLabel(labels []*github.Label, name string) []*github.Label {
	out := labels[:0:0]
	for _, l := range labels {
		if !strings.EqualFold(l.GetName(), name) {
			out = append(out, l)
		}
	}
	return out
}
