package bot

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"
)

// PullRequestHandler handles pull_request events: proposals are opened,
// synchronized (checks re-run), closed (rejected) or merged (published).
// Today it logs the pull request.
type PullRequestHandler struct{}

// Handle logs a *github.PullRequestEvent.
func (h *PullRequestHandler) Handle(ctx context.Context, ev *Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	event, ok := payload.(*github.PullRequestEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	pr := event.GetPullRequest()
	LoggerFrom(ctx).WithFields(logrus.Fields{
		"number":   event.GetNumber(),
		"head_ref": pr.GetHead().GetRef(),
		"head_sha": pr.GetHead().GetSHA(),
		"base_ref": pr.GetBase().GetRef(),
		"draft":    pr.GetDraft(),
		"merged":   pr.GetMerged(),
		"author":   pr.GetUser().GetLogin(),
		"sender":   event.GetSender().GetLogin(),
	}).Info("pull request event")
	return nil
}
