package resync

import (
	"context"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// ResyncDownstreamHooks is implemented by ResyncHooks that keep a
// downstream registry: the resync rebuilds the repository's entry.
type ResyncDownstreamHooks interface {
	IndexDownstreams(ctx context.Context, s *core.Session) error
}

// ResyncPassHooks is implemented by ResyncHooks that want to know when
// ResyncLoop has visited every repository of a complete listing (the
// downstream registry is then complete: downstreams.Registry.PassDone).
type ResyncPassHooks interface {
	ResyncPassDone(repos []core.Repo)
}

func resyncDownstreams(ctx context.Context, s *core.Session, deps ResyncDeps) error {
	h, ok := deps.Hooks.(ResyncDownstreamHooks)
	if !ok {
		return nil
	}
	if err := h.IndexDownstreams(ctx, s); err != nil {
		s.Log.WithError(err).Warn("resync: downstream discovery failed")
		return fmt.Errorf("downstream discovery: %w", err)
	}
	return nil
}
