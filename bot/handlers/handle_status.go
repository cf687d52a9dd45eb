package handlers

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/ingress"
)

// StatusReactor acts on a commit status event: a deployer's report on a
// downstream commit steps the rollouts it concerns (bot/fleet, through the
// App).
type StatusReactor interface {
	OnStatus(ctx context.Context, installationID int64, ev *github.StatusEvent) error
}

// StatusHandler handles status events. It reacts through React when it is
// set (the App); without it, it only logs.
type StatusHandler struct{ React StatusReactor }

// Handle logs a *github.StatusEvent and hands it to React.
func (h *StatusHandler) Handle(ctx context.Context, ev *ingress.Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	event, ok := payload.(*github.StatusEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	ingress.LoggerFrom(ctx).WithFields(logrus.Fields{
		"sha":     event.GetSHA(),
		"context": event.GetContext(),
		"state":   event.GetState(),
		"sender":  event.GetSender().GetLogin(),
	}).Info("status event")
	if h.React != nil {
		return h.React.OnStatus(ctx, ev.InstallationID, event)
	}
	return nil
}
