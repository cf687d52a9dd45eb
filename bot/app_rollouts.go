package bot

import (
	"context"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/fleet"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rollout"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
)

// Rollouts (docs/rollouts.md): bot/fleet steps them on the App's events,
// bot/lifecycle/rollout carries them out; this file wires them to the
// App's update fan-out, variants, registry and views, and hands them the
// deployment reports of the status, check_run and deployment_status
// webhooks.

// NewRollouts is the App's rollouts, proposing through its update
// fan-out, which they hold to their waves (as they hold its variants).
func (a *App) NewRollouts() *fleet.Rollouts {
	r := &fleet.Rollouts{Tracked: a.registry().Of, Open: a.open, OpenRepo: a.OpenRepo, Host: a.gitHost, Log: a.logger()}
	c := &rollout.Controller{Finder: a, Fanout: a.Updates, Wake: r.Wake, Changed: a.rolloutChanged, Topics: fleet.Topics(a.installationTopics)}
	if a.Updates != nil {
		a.Updates.Hold = c.Holds
	}
	c.Variants = func(ctx context.Context, s *core.Session) {
		if a.Variants == nil {
			return
		}
		if err := a.reconcileVariants(ctx, s, nil); err != nil {
			s.Log.WithError(err).Warn("rollout: variants not reconciled")
		}
	}
	r.Controller = c
	return r
}

// installationTopics are the topics of the repositories of s's
// installation (fleet.Topics caches them).
func (a *App) installationTopics(ctx context.Context, s *core.Session) (map[string][]string, error) {
	var lister func(*core.Session) updates.VariantRepoLister
	if a.Updates != nil {
		lister = a.Updates.Repos
	}
	listed, err := updates.ListInstallation(ctx, s, lister, a.Flows, nil)
	out := make(map[string][]string, len(listed))
	for k, r := range listed {
		out[k] = r.Topics
	}
	return out, err
}

// OnStatus hands a commit status to the rollouts as a deployment report.
func (a *App) OnStatus(ctx context.Context, installationID int64, ev *github.StatusEvent) error {
	rep, ok := fleet.StatusReport(ev)
	return a.report(ctx, installationID, ev.GetRepo(), rep, ok)
}

// OnDeploymentStatus hands a GitHub deployment's status to the rollouts.
func (a *App) OnDeploymentStatus(ctx context.Context, installationID int64, ev *github.DeploymentStatusEvent) error {
	rep, ok := fleet.DeploymentStatusReport(ev)
	return a.report(ctx, installationID, ev.GetRepo(), rep, ok)
}

// onCheckRunReport hands another App's check run to the rollouts.
func (a *App) onCheckRunReport(ctx context.Context, installationID int64, ev *github.CheckRunEvent) error {
	rep, ok := fleet.CheckRunReport(ev, a.BotLogin)
	return a.report(ctx, installationID, ev.GetRepo(), rep, ok)
}

func (a *App) report(ctx context.Context, installationID int64, r *github.Repository, rep rollout.DeploymentReport, ok bool) error {
	if !ok {
		return nil
	}
	return a.Rollouts.Report(ctx, repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch()), rep)
}

// ResyncRollouts steps every rollout of s (resync.RolloutHooks).
func (a *App) ResyncRollouts(ctx context.Context, s *core.Session) error {
	return a.Rollouts.Resync(ctx, s)
}
