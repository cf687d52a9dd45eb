package service

import (
	"context"
	"os"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot"
	"github.com/porchbot/porchbot/bot/commands"
	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/flow"
	ghclient "github.com/porchbot/porchbot/internal/github"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/metrics"
	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/settings"
)

// newApp puts the package lifecycle behind the event handlers.
func newApp(s *settings.Settings, clients *ghclient.Clients, git *gitstore.Store, m *metrics.Metrics, log *logrus.Logger) *bot.App {
	limits := s.ServerLimits()
	key := core.RecordKey(s.WebhookSecret)
	opener := &core.Opener{Clients: ghclient.HubClients{Clients: clients}, Git: git, GitURL: clients.URLs().GitURL,
		Configs: &config.Cache{}, Limits: limits, Logger: log, RecordKey: key,
		RequireConfig: s.Onboarding == settings.OnboardingRequired}
	app := &bot.App{Opener: opener, Onboard: s.Onboarding != settings.OnboardingOff, Render: renderOptions(s, limits, log),
		BotLogin: approval.DefaultBotLogin, RecordKey: key,
		Memberships: &approval.MembershipCache{}, Renders: &rendercheck.RenderStates{}, Log: log,
		Flows: &flow.Checker{Permissions: &flow.PermissionCache{}}}
	installationFor := func(ctx context.Context, owner, repo string) (int64, error) {
		return clients.InstallationIDForRepo(ctx, owner+"/"+repo)
	}
	app.Web, app.InstallationFor = clients.URLs().Web, installationFor
	opener.Downstreams = app // the package index names downstream packages
	app.Updates = newUpdateFanout(app, app, m)
	app.Variants = bot.NewVariantController(app, m)
	app.Rollouts = app.NewRollouts()
	opener.Rollouts = app // the package index says each rollout's state
	if s.MutationSpacing > 0 {
		// GitHub's hourly limit of content-creating calls (the local
		// forge, with no spacing, has none).
		app.Updates.Pacer = &updates.Budget{Limit: updates.DefaultBudget}
	}
	runner := &commands.Runner{Clients: opener.Clients, Sessions: app, Lifecycle: bot.CommandOps{App: app},
		Web: clients.URLs().Web, Permissions: app.Flows.Permissions, Flows: app.Flows, Log: log,
		InstallationFor: installationFor}
	app.Comments = &bot.Commands{Runner: runner}
	app.Ticks = runner
	app.NewDashboards()
	return app
}

// newUpdateFanout is the fan-out of publishes to downstream update pull
// requests, finding downstreams with registry (the App's).
func newUpdateFanout(app *bot.App, registry updates.DownstreamFinder, m *metrics.Metrics) *updates.Fanout {
	f := &updates.Fanout{Finder: registry, Open: app.OpenRepo, API: app.UpdateAPI, Render: app.Render, Flows: app.Flows,
		Releases: func(s *core.Session) updates.UpstreamReleases { return s.Hub }}
	if m != nil {
		f.Metrics = bot.UpdateMetrics{PRs: m.UpdatePRs, Queue: m.UpdateQueueDepth}
	}
	return f
}

// renderOptions are the render steps' settings: the server's bounds on
// what a package and its functions may cost (docs/limits.md).
func renderOptions(s *settings.Settings, limits config.ServerLimits, log *logrus.Logger) rendercheck.RenderOptions {
	b := render.Bounds{MaxYAMLNodes: s.RenderMaxYAMLNodes, MaxAliases: s.RenderMaxAliases,
		MaxAliasBytes: s.RenderMaxAliasBytes, Gate: render.NewGate(s.RenderConcurrency)}
	if exe, err := os.Executable(); err == nil && render.SandboxReady() {
		b.Sandbox = &render.Sandbox{Program: exe, Limits: render.FunctionLimits{Memory: s.FnMemory,
			CPU: s.FnCPUTime, Wall: s.FnWallTime, Output: s.FnMaxOutput}}
	} else {
		log.WithError(err).Warn("starlark and exec functions run in process, without memory or time limits")
	}
	o := rendercheck.RenderOptions{Limits: limits, MaxFiles: s.RenderMaxFiles, MaxBytes: s.RenderMaxBytes, Bounds: b,
		SchemaDir: s.SchemaDir, ChartRepos: s.ChartRepos()}
	if p := s.FunctionImagePuller(); p != nil {
		o.Images = p
	}
	return o
}

// startResync runs the periodic reconcile of every installed repository.
func (s *Service) startResync(ctx context.Context, interval time.Duration) {
	ctx, cancel := context.WithCancel(ctx)
	s.resyncStop = cancel
	s.resyncDone = make(chan struct{})
	app, deps := s.App, s.ResyncDeps()
	go func() {
		defer close(s.resyncDone)
		_ = resync.Loop(ctx, interval, app.InstalledRepos(s.Clients), app.Open, deps)
	}()
}

// redeliver asks GitHub to redeliver the App's failed webhook deliveries
// (internal/redeliver), once per resync pass: a lost webhook is repaired
// by its own event. Nothing without App credentials.
func (s *Service) redeliver(ctx context.Context) {
	if s.Redeliverer == nil {
		return
	}
	rep, err := s.Redeliverer.Pass(ctx)
	log := s.log.WithFields(logrus.Fields{"component": "redeliver", "listed": rep.Listed, "redelivered": len(rep.Redelivered),
		"repaired": rep.Repaired, "failed": rep.Failed})
	switch {
	case err != nil:
		log.WithError(err).Warn("webhook redelivery pass failed")
	case len(rep.Redelivered) > 0 || rep.Failed > 0:
		log.Info("GitHub asked to redeliver failed webhooks")
	}
}

// ResyncBudgetFloor is the share of an installation's hourly REST budget
// the resync leaves to user-facing work: below it, the pass skips the
// installation's repositories until the budget resets
// (porchbot_resync_yielded_repositories_total).
const ResyncBudgetFloor = 0.2

// ResyncDeps are the periodic resync's: the App's hooks, and its API with
// the same bot login and record key as the webhook path (so records are
// trusted on their signature there too).
func (s *Service) ResyncDeps() resync.Deps {
	return resync.Deps{Hooks: s.App, API: s.App.ResyncAPI, AppID: s.Clients.AppID(), Logger: s.log,
		LowBudget: func(id int64) bool {
			b, ok := s.Clients.RateBudget(id)
			return ok && b.Low(ResyncBudgetFloor, time.Now())
		},
		OnYield: func(core.Repo) { s.Metrics.ResyncYields.Inc() },
		OnReport: func(_ core.Repo, rep *resync.Report, _ error) {
			if rep != nil {
				s.App.CountPublish(&publish.Outcome{Published: rep.Published, Refused: rep.Refused})
			}
		},
		BeforePass: s.redeliver}
}
