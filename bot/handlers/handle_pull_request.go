package handlers

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/ingress"
)

// PullRequestReactor acts on a pull request event (proposals, publish on merge).
type PullRequestReactor interface {
	OnPullRequest(ctx context.Context, installationID int64, ev *github.PullRequestEvent) error
}

// PullRequestHandler handles pull_request events: proposals are opened,
// synchronized (checks re-run), closed (rejected) or merged (published).
// It reacts through React when it is set (the App); without it, it only
// logs the pull request.
type PullRequestHandler struct{ React PullRequestReactor }

// Handle logs a *github.PullRequestEvent and hands it to React.
func (h *PullRequestHandler) Handle(ctx context.Context, ev *ingress.Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	event, ok := payload.(*github.PullRequestEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	pr := event.GetPullRequest()
	ingress.LoggerFrom(ctx).WithFields(logrus.Fields{
		"number":   event.GetNumber(),
		"head_ref": pr.GetHead().GetRef(),
		"head_sha": pr.GetHead().GetSHA(),
		"base_ref": pr.GetBase().GetRef(),
		"draft":    pr.GetDraft(),
		"merged":   pr.GetMerged(),
		"author":   pr.GetUser().GetLogin(),
		"sender":   event.GetSender().GetLogin(),
	}).Info("pull request event")
	if h.React != nil {
		return h.React.OnPullRequest(ctx, ev.InstallationID, event)
	}
	return nil
}
