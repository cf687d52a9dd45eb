package resync

import (
	"context"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// ResyncVariantHooks is implemented by resync hooks that reconcile the
// variants of the repository resynced (bot.App).
type ResyncVariantHooks interface {
	ResyncVariants(ctx context.Context, s *core.Session) error
}

func resyncVariants(ctx context.Context, s *core.Session, deps ResyncDeps) error {
	h, ok := deps.Hooks.(ResyncVariantHooks)
	if !ok {
		return nil
	}
	if err := h.ResyncVariants(ctx, s); err != nil {
		s.Log.WithError(err).Warn("resync: variants failed")
		return fmt.Errorf("variants: %w", err)
	}
	return nil
}
