package bot

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"
)

// CheckSuiteHandler handles check_suite events: a requested or re-requested
// suite creates porchbot's checks for its head commit. Today it logs the
// suite.
type CheckSuiteHandler struct{}

// Handle logs a *github.CheckSuiteEvent.
func (h *CheckSuiteHandler) Handle(ctx context.Context, ev *Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	event, ok := payload.(*github.CheckSuiteEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	suite := event.GetCheckSuite()
	LoggerFrom(ctx).WithFields(logrus.Fields{
		"check_suite_id": suite.GetID(),
		"status":         suite.GetStatus(),
		"conclusion":     suite.GetConclusion(),
		"head_branch":    suite.GetHeadBranch(),
		"head_sha":       suite.GetHeadSHA(),
		"pull_requests":  len(suite.PullRequests),
	}).Info("check suite event")
	return nil
}
