package handlers

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/ingress"
)

// ReviewReactor acts on a review (approval re-evaluation).
type ReviewReactor interface {
	OnReview(ctx context.Context, installationID int64, ev *github.PullRequestReviewEvent) error
}

// PullRequestReviewHandler handles pull_request_review events: an approval
// (or its dismissal) re-evaluates the porchbot/approval check of a
// proposal. It reacts through React when it is set (the App); without it,
// it only logs the review.
type PullRequestReviewHandler struct{ React ReviewReactor }

// Handle logs a *github.PullRequestReviewEvent and hands it to React.
func (h *PullRequestReviewHandler) Handle(ctx context.Context, ev *ingress.Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	event, ok := payload.(*github.PullRequestReviewEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	review := event.GetReview()
	ingress.LoggerFrom(ctx).WithFields(logrus.Fields{
		"number":    event.GetPullRequest().GetNumber(),
		"review_id": review.GetID(),
		"state":     review.GetState(),
		"reviewer":  review.GetUser().GetLogin(),
		"commit":    review.GetCommitID(),
	}).Info("pull request review event")
	if h.React != nil {
		return h.React.OnReview(ctx, ev.InstallationID, event)
	}
	return nil
}
