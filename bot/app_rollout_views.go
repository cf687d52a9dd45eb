package bot

import (
	"context"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/internal/index"
	irollout "github.com/porchbot/porchbot/internal/rollout"
)

// A rollout's views (docs/dashboard.md, docs/index.md): the "Rollouts"
// section of its upstream repository's dashboard, and the rollout's
// summary in that repository's package index. Both are refreshed when a
// step or a pause changes what they show (rollout.Controller.Changed).

// rolloutChanged refreshes the views of pkg's rollout in s's repository:
// its dashboard (debounced; only when this process knows it has one, as
// for events) and its package index (rebuilt from git, pushed when its
// bytes changed). No REST call but the dashboard's own refresh.
func (a *App) rolloutChanged(ctx context.Context, s *core.Session, pkg string, _ *irollout.Plan) {
	if a.Dashboards != nil && a.dashboardHints.has(s.Repo) {
		a.Dashboards.Touch(s.Repo)
	}
	if _, _, err := publish.UpdateIndex(ctx, s, publish.IndexUpdate{}); err != nil {
		s.Log.WithError(err).WithField("package", pkg).Warn("rollout: the package index not updated (the next publish or resync does)")
	}
}

// RolloutStates is the state of every rollout of s's packages, for the
// package index (core.RolloutStates): the plans as they stand (git reads
// and the downstream registry), counted, no repository named. A plan that
// could not be read is a nil entry: the index keeps what it said.
func (a *App) RolloutStates(ctx context.Context, s *core.Session) map[string]*index.Rollout {
	if a.Rollouts == nil {
		return nil
	}
	out := map[string]*index.Rollout{}
	for _, r := range s.Config.Rollouts() {
		p, err := a.Rollouts.Plan(ctx, s, r.Package)
		if err != nil || p == nil {
			if err != nil {
				s.Log.WithError(err).WithField("package", r.Package).Warn("package index: the rollout's state not read (the index keeps what it said)")
			}
			out[r.Package] = nil
			continue
		}
		t := p.Totals()
		out[r.Package] = &index.Rollout{Revision: p.Revision, State: p.State, Downstreams: t.Downstreams,
			Merged: t.Merged, Healthy: t.Healthy, Failed: t.Failed}
	}
	return out
}
