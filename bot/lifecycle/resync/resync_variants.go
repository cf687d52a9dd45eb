package resync

import (
	"context"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// VariantHooks is implemented by resync hooks that reconcile the
// variants of the repository resynced (bot.App).
type VariantHooks interface {
	ResyncVariants(ctx context.Context, s *core.Session) error
}

func resyncVariants(ctx context.Context, s *core.Session, deps Deps) error {
	h, ok := deps.Hooks.(VariantHooks)
	if !ok {
		return nil
	}
	if err := h.ResyncVariants(ctx, s); err != nil {
		s.Log.WithError(err).Warn("resync: variants failed")
		return fmt.Errorf("variants: %w", err)
	}
	return nil
}
