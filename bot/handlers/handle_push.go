package handlers

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/ingress"
)

// PushReactor acts on a push (draft render, deployment-branch checks).
type PushReactor interface {
	OnPush(ctx context.Context, installationID int64, ev *github.PushEvent) error
}

// PushHandler handles push events: a push to a draft branch
// (drafts/<package>/<workspace>) is rendered, a push to the deployment
// branch may publish the packages that landed. It reacts through React when
// it is set (the App); without it, it only logs the push.
type PushHandler struct{ React PushReactor }

// Handle logs a *github.PushEvent and hands it to React.
func (h *PushHandler) Handle(ctx context.Context, ev *ingress.Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	push, ok := payload.(*github.PushEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	ingress.LoggerFrom(ctx).WithFields(logrus.Fields{
		"ref":     push.GetRef(),
		"before":  push.GetBefore(),
		"after":   push.GetAfter(),
		"created": push.GetCreated(),
		"deleted": push.GetDeleted(),
		"forced":  push.GetForced(),
		"commits": len(push.Commits),
		"pusher":  push.GetPusher().GetName(),
	}).Info("push received")
	if h.React != nil {
		return h.React.OnPush(ctx, ev.InstallationID, push)
	}
	return nil
}
