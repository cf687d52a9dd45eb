package rollout

import (
	"context"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/rollout"
)

// Holds says whether the rollout of up's package holds package pkg of the
// downstream repository repo back from up's revision, and why: its wave
// is not open yet, or the rollout is paused or stopped. The update paths
// nobody asked for (the resync's lagging updates, waiting updates opened
// when a slot frees) ask it (updates.Fanout.Hold); an offer of the
// rollout's own plan, and a downstream's own /porch upgrade, do not. A
// plan that cannot be made holds.
func (c *Controller) Holds(ctx context.Context, up updates.UpstreamRevision, repo, pkg string) (string, bool) {
	s := up.Session
	r, ok := s.Config.RolloutOf(up.Package)
	if !ok {
		return "", false
	}
	f, _, plan, err := c.planned(ctx, s, up.Package, r, c.now())
	if err != nil {
		return fmt.Sprintf("the rollout of %s could not be planned: %v", up.Package, err), true
	}
	if up.Revision < f.revision {
		return "", false // an older revision than the rollout's
	}
	switch plan.State {
	case rollout.Paused, rollout.Stopped:
		return fmt.Sprintf("the rollout of %s is %s", up.Package, plan.State), true
	}
	key := rollout.Key(repo, pkg)
	for i, wave := range rollout.Assign(f.spec, f.ds) {
		for _, d := range wave {
			if d.Key() == key && plan.Waves[i].State == rollout.WaveWaiting {
				return fmt.Sprintf("it waits for wave %s of the rollout of %s", plan.Waves[i].Name, up.Package), true
			}
		}
	}
	return "", false
}
