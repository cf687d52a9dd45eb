package bot

import (
	"context"
	"errors"

	"github.com/porchbot/porchbot/bot/ingress"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// notOnboardedSkipped ends an event of a repository porchbot is not set
// up in (core.ErrNotOnboarded, onboarding required) as handled: the
// repository is left alone until its configuration file is merged.
type notOnboardedSkipped struct{ h ingress.Handler }

func (n notOnboardedSkipped) Handle(ctx context.Context, ev *ingress.Event) error {
	err := n.h.Handle(ctx, ev)
	if err != nil && errors.Is(err, core.ErrNotOnboarded) {
		ingress.LoggerFrom(ctx).WithError(err).Info("event skipped: porchbot is not set up in the repository")
		return nil
	}
	return err
}
