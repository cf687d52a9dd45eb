package bot

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"
)

// ReleaseHandler handles release events: a published revision of an
// upstream package triggers update pull requests in its downstreams. Today
// it logs the release.
type ReleaseHandler struct{}

// Handle logs a *github.ReleaseEvent.
func (h *ReleaseHandler) Handle(ctx context.Context, ev *Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	event, ok := payload.(*github.ReleaseEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	release := event.GetRelease()
	LoggerFrom(ctx).WithFields(logrus.Fields{
		"release_id": release.GetID(),
		"tag":        release.GetTagName(),
		"name":       release.GetName(),
		"draft":      release.GetDraft(),
		"prerelease": release.GetPrerelease(),
		"author":     release.GetAuthor().GetLogin(),
	}).Info("release event")
	return nil
}
