package handlers

import (
	"errors"
	"fmt"

	"github.com/porchbot/porchbot/bot/ingress"
)

// DefaultHandlers returns the handlers of the events porchbot acts on, one
// per event (installation and installation_repositories share one). They
// are app.yaml's default_events plus the two installation events GitHub
// sends every App; docs/app-permissions.md justifies each, and
// TestAppManifestMatchesHandlers keeps the three in step.
func DefaultHandlers() ingress.Handlers {
	installation := &InstallationHandler{}
	return ingress.Handlers{
		"push":                      &PushHandler{},
		"pull_request":              &PullRequestHandler{},
		"pull_request_review":       &PullRequestReviewHandler{},
		"issue_comment":             &IssueCommentHandler{},
		"issues":                    &IssuesHandler{},
		"check_run":                 &CheckRunHandler{},
		"check_suite":               &CheckSuiteHandler{},
		"status":                    &StatusHandler{},
		"deployment_status":         &DeploymentStatusHandler{},
		"installation":              installation,
		"installation_repositories": installation,
	}
}

// ErrUnexpectedPayload is returned by the default handlers when an event's
// payload is not the go-github type of its event name.
var ErrUnexpectedPayload = errors.New("unexpected payload type")

func unexpectedPayload(ev *ingress.Event, payload any) error {
	return fmt.Errorf("%s event: %w %T", ev.Name, ErrUnexpectedPayload, payload)
}
