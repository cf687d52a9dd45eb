package bot

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"
)

// CreateHandler handles create events (a branch or tag was created): a new
// draft branch starts a draft, a revision tag created by someone else is
// reconciled into the package index. Today it logs the ref.
type CreateHandler struct{}

// Handle logs a *github.CreateEvent.
func (h *CreateHandler) Handle(ctx context.Context, ev *Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	create, ok := payload.(*github.CreateEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	LoggerFrom(ctx).WithFields(logrus.Fields{
		"ref":         create.GetRef(),
		"ref_type":    create.GetRefType(),
		"pusher_type": create.GetPusherType(),
		"sender":      create.GetSender().GetLogin(),
	}).Info("ref created")
	return nil
}
