package bot

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"
)

// CheckRunHandler handles check_run events: a re-requested porchbot/render
// or porchbot/approval check runs again, a requested action is performed.
// Today it logs the check run.
type CheckRunHandler struct{}

// Handle logs a *github.CheckRunEvent.
func (h *CheckRunHandler) Handle(ctx context.Context, ev *Event) error {
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
	LoggerFrom(ctx).WithFields(logrus.Fields{
		"check_run_id":     run.GetID(),
		"name":             run.GetName(),
		"status":           run.GetStatus(),
		"conclusion":       run.GetConclusion(),
		"head_sha":         run.GetHeadSHA(),
		"app":              run.GetApp().GetSlug(),
		"requested_action": requestedAction,
	}).Info("check run event")
	return nil
}
