package fleet

import (
	"context"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/index"
)

// RolloutStates is the state of every rollout of s's packages, for the package
// index (core.RolloutStates): the plans as they stand (git reads and the
// downstream registry), counted, no repository named. A plan that could
// not be read is a nil entry: the index keeps what it said.
func (r *Rollouts) RolloutStates(ctx context.Context, s *core.Session) map[string]*index.Rollout {
	if r == nil {
		return nil
	}
	out := map[string]*index.Rollout{}
	for _, ro := range s.Config.Rollouts() {
		p, err := r.Controller.Plan(ctx, s, ro.Package)
		if err != nil || p == nil {
			if err != nil {
				s.Log.WithError(err).WithField("package", ro.Package).Warn("package index: the rollout's state not read (the index keeps what it said)")
			}
			out[ro.Package] = nil
			continue
		}
		t := p.Totals()
		out[ro.Package] = &index.Rollout{Revision: p.Revision, State: p.State, Downstreams: t.Downstreams,
			Merged: t.Merged, Healthy: t.Healthy, Failed: t.Failed}
	}
	return out
}
