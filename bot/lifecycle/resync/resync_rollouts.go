package resync

import (
	"context"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// RolloutHooks is implemented by resync hooks that step the rollouts of
// the repository resynced (bot.App): what a lost webhook or a missed wake
// left undone is done then.
type RolloutHooks interface {
	ResyncRollouts(ctx context.Context, s *core.Session) error
}

func resyncRollouts(ctx context.Context, s *core.Session, deps Deps) error {
	h, ok := deps.Hooks.(RolloutHooks)
	if !ok || len(s.Config.Rollouts()) == 0 {
		return nil
	}
	if err := h.ResyncRollouts(ctx, s); err != nil {
		s.Log.WithError(err).Warn("resync: rollouts failed")
		return fmt.Errorf("rollouts: %w", err)
	}
	return nil
}
