package handlers

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/ingress"
)

// IssuesReactor acts on an issues event: the "Package dashboard" issue's
// ticked boxes (edited) and its closing by a person (closed).
type IssuesReactor interface {
	OnIssues(ctx context.Context, installationID int64, ev *github.IssuesEvent) error
}

// IssuesHandler handles issues events. It reacts through React when it is
// set (the App); without it, it only logs.
type IssuesHandler struct{ React IssuesReactor }

// Handle logs a *github.IssuesEvent and hands it to React.
func (h *IssuesHandler) Handle(ctx context.Context, ev *ingress.Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	event, ok := payload.(*github.IssuesEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	issue := event.GetIssue()
	ingress.LoggerFrom(ctx).WithFields(logrus.Fields{
		"number": issue.GetNumber(),
		"state":  issue.GetState(),
		"sender": event.GetSender().GetLogin(),
	}).Info("issues event")
	if h.React != nil {
		return h.React.OnIssues(ctx, ev.InstallationID, event)
	}
	return nil
}
