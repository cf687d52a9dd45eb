package handlers

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/ingress"
)

// CheckRunReactor acts on a check run event: a re-requested porchbot
// check (render, config, approval) runs again; a finished render judges
// the approvals waiting for it and lets an update pull request automerge.
// Requested actions (check run buttons) are not used: porchbot's checks
// have none.
type CheckRunReactor interface {
	OnCheckRun(ctx context.Context, installationID int64, ev *github.CheckRunEvent) error
}

// CheckRunHandler handles check_run events. It reacts through React when
// it is set (the App); without it, it only logs.
type CheckRunHandler struct{ React CheckRunReactor }

// Handle logs a *github.CheckRunEvent and hands it to React.
func (h *CheckRunHandler) Handle(ctx context.Context, ev *ingress.Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	event, ok := payload.(*github.CheckRunEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	run := event.GetCheckRun()
	var requestedAction string
	if ra := event.GetRequestedAction(); ra != nil {
		requestedAction = ra.Identifier
	}
	ingress.LoggerFrom(ctx).WithFields(logrus.Fields{
		"check_run_id":     run.GetID(),
		"name":             run.GetName(),
		"status":           run.GetStatus(),
		"conclusion":       run.GetConclusion(),
		"head_sha":         run.GetHeadSHA(),
		"app":              run.GetApp().GetSlug(),
		"requested_action": requestedAction,
	}).Info("check run event")
	if h.React != nil {
		return h.React.OnCheckRun(ctx, ev.InstallationID, event)
	}
	return nil
}
