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
// package index (core.RolloutStates; fleet.Rollouts.RolloutStates).
func (a *App) RolloutStates(ctx context.Context, s *core.Session) map[string]*index.Rollout {
	return a.Rollouts.RolloutStates(ctx, s)
}
