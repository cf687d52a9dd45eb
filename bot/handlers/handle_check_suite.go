package handlers

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/ingress"
)

// CheckSuiteReactor acts on a check_suite event ("Re-run all checks").
type CheckSuiteReactor interface {
	OnCheckSuite(ctx context.Context, installationID int64, ev *github.CheckSuiteEvent) error
}

// CheckSuiteHandler handles check_suite events: a re-requested suite runs
// porchbot's checks of its head commit again. It reacts through React when
// it is set (the App); without it, it only logs.
type CheckSuiteHandler struct{ React CheckSuiteReactor }

// Handle logs a *github.CheckSuiteEvent and hands it to React.
func (h *CheckSuiteHandler) Handle(ctx context.Context, ev *ingress.Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	event, ok := payload.(*github.CheckSuiteEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	suite := event.GetCheckSuite()
	ingress.LoggerFrom(ctx).WithFields(logrus.Fields{
		"check_suite_id": suite.GetID(),
		"status":         suite.GetStatus(),
		"conclusion":     suite.GetConclusion(),
		"head_branch":    suite.GetHeadBranch(),
		"head_sha":       suite.GetHeadSHA(),
		"pull_requests":  len(suite.PullRequests),
	}).Info("check suite event")
	if h.React != nil {
		return h.React.OnCheckSuite(ctx, ev.InstallationID, event)
	}
	return nil
}
