package handlers

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/ingress"
)

// DeploymentStatusReactor acts on a deployment status event: a GitHub
// deployment's report on a downstream commit steps the rollouts it
// concerns (bot/fleet, through the App).
type DeploymentStatusReactor interface {
	OnDeploymentStatus(ctx context.Context, installationID int64, ev *github.DeploymentStatusEvent) error
}

// DeploymentStatusHandler handles deployment_status events. It reacts
// through React when it is set (the App); without it, it only logs.
type DeploymentStatusHandler struct{ React DeploymentStatusReactor }

// Handle logs a *github.DeploymentStatusEvent and hands it to React.
func (h *DeploymentStatusHandler) Handle(ctx context.Context, ev *ingress.Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	event, ok := payload.(*github.DeploymentStatusEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	ingress.LoggerFrom(ctx).WithFields(logrus.Fields{
		"sha":         event.GetDeployment().GetSHA(),
		"environment": event.GetDeployment().GetEnvironment(),
		"state":       event.GetDeploymentStatus().GetState(),
		"sender":      event.GetSender().GetLogin(),
	}).Info("deployment status event")
	if h.React != nil {
		return h.React.OnDeploymentStatus(ctx, ev.InstallationID, event)
	}
	return nil
}
