package catalog

import (
	"context"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rollout"
	"github.com/porchbot/porchbot/internal/catalog"
)

// rollouts are the plans of s's packages rolled out in waves, as they
// stand (rollout.Controller.Plan: the record on porch/rollouts, git, the
// downstream registry; no REST call), each downstream's outcome kept for
// the viewer's filter. A plan that cannot be read is left out (logged).
func (l *RepoLoader) rollouts(ctx context.Context, s *core.Session) map[string]*catalog.Rollout {
	if l.Rollouts == nil {
		return nil
	}
	out := map[string]*catalog.Rollout{}
	for _, r := range s.Config.Rollouts() {
		p, err := l.Rollouts.Plan(ctx, s, r.Package)
		if err != nil {
			s.Log.WithError(err).WithField("package", r.Package).Warn("catalog: the rollout's plan not read")
			continue
		}
		if p == nil {
			continue
		}
		cr := &catalog.Rollout{Revision: p.Revision, State: p.State, RequireDeployment: rollout.SpecOf(r).RequireDeployment}
		for _, o := range p.Downstreams {
			cr.Downstreams = append(cr.Downstreams, catalog.RolloutDownstream{Repository: o.Repo, Package: o.Package,
				Merged: o.Merged, Healthy: o.Healthy, Failed: o.Failed})
		}
		out[r.Package] = cr
	}
	return out
}
