package bot

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"
)

// DeleteHandler handles delete events (a branch or tag was deleted): a
// deleted draft branch abandons its draft, a deleted revision tag is
// repaired or flagged. Today it logs the ref.
type DeleteHandler struct{}

// Handle logs a *github.DeleteEvent.
func (h *DeleteHandler) Handle(ctx context.Context, ev *Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	del, ok := payload.(*github.DeleteEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	LoggerFrom(ctx).WithFields(logrus.Fields{
		"ref":         del.GetRef(),
		"ref_type":    del.GetRefType(),
		"pusher_type": del.GetPusherType(),
		"sender":      del.GetSender().GetLogin(),
	}).Info("ref deleted")
	return nil
}
