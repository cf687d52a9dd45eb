package resync

import (
	"context"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// DownstreamHooks is implemented by Hooks that keep a
// downstream registry: the resync rebuilds the repository's entry.
type DownstreamHooks interface {
	IndexDownstreams(ctx context.Context, s *core.Session) error
}

// PassHooks is implemented by Hooks that want to know when
// Loop has visited every repository of a complete listing (the
// downstream registry is then complete: downstreams.Registry.PassDone).
type PassHooks interface {
	ResyncPassDone(repos []core.Repo)
}

func resyncDownstreams(ctx context.Context, s *core.Session, deps Deps) error {
	h, ok := deps.Hooks.(DownstreamHooks)
	if !ok {
		return nil
	}
	if err := h.IndexDownstreams(ctx, s); err != nil {
		s.Log.WithError(err).Warn("resync: downstream discovery failed")
		return fmt.Errorf("downstream discovery: %w", err)
	}
	return nil
}
