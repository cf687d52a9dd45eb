package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/commands"
	"github.com/porchbot/porchbot/bot/ingress"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/dashboard"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
)

// The "Package dashboard" issue (docs/dashboard.md): opened on install and
// by the resync, refreshed (debounced) after the events that change what
// it shows, and its ticked boxes run as the ticker's /porch commands.

// TickRunner runs a dashboard edit's ticked boxes (commands.Runner).
type TickRunner interface {
	HandleTicks(ctx context.Context, ev commands.TickEvent) error
}

// maxInstallRepos bounds the repositories whose dashboard one
// installation event opens; the resync opens the others.
const maxInstallRepos = 100

// NewDashboards sets the App's debounced dashboard refresh (call once,
// before serving).
func (a *App) NewDashboards() *dashboard.Debouncer {
	a.Dashboards = &dashboard.Debouncer{Refresh: a.refreshDashboard, Log: a.Log}
	return a.Dashboards
}

// refreshDashboard is the debouncer's refresh: it edits a dashboard that
// exists, never opens one.
func (a *App) refreshDashboard(ctx context.Context, repo core.Repo) (time.Time, error) {
	out, err := a.SyncDashboard(ctx, repo, false)
	if out == nil {
		return time.Time{}, err
	}
	return out.RetryAt, err
}

// SyncDashboard brings repo's dashboard up to date, opening it when it is
// missing and mayCreate (install, resync).
func (a *App) SyncDashboard(ctx context.Context, repo core.Repo, mayCreate bool) (*dashboard.Outcome, error) {
	gh, err := a.Opener.Clients.Installation(ctx, repo.InstallationID)
	if err != nil {
		return nil, fmt.Errorf("dashboard of %s: installation client: %w", repo.FullName(), err)
	}
	open := func(ctx context.Context) (*core.Session, error) { return a.open(ctx, repo) }
	out, err := dashboard.Sync(ctx, repo, open, a.dashboardSync(gh, mayCreate))
	a.noteDashboard(repo, out)
	a.countDashboard(out, err)
	return out, err
}

// dashboardHints are the repositories whose dashboard this process has
// seen (opened, found by a sync, or named by an issues event): events
// refresh only those, so an event in a repository without a dashboard
// costs nothing. A hint only says where to look: what to do is decided
// from GitHub each time. A replica that starts knows none until the
// resync's first pass (within a tenth of its interval) or an event on a
// dashboard.
type dashboardHints struct {
	mu    sync.Mutex
	repos map[string]bool
}

func (h *dashboardHints) set(repo core.Repo, known bool) {
	key := strings.ToLower(repo.FullName())
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.repos == nil {
		h.repos = map[string]bool{}
	}
	if known {
		h.repos[key] = true
	} else {
		delete(h.repos, key)
	}
}

func (h *dashboardHints) has(repo core.Repo) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.repos[strings.ToLower(repo.FullName())]
}

// noteDashboard remembers whether a sync found repo's dashboard.
func (a *App) noteDashboard(repo core.Repo, out *dashboard.Outcome) {
	switch {
	case out == nil:
	case out.Number != 0:
		a.dashboardHints.set(repo, true)
	case out.Missing:
		a.dashboardHints.set(repo, false)
	}
}

// countDashboard counts a sync's outcome.
func (a *App) countDashboard(out *dashboard.Outcome, err error) {
	if a.Metrics == nil {
		return
	}
	outcome := out.Outcome()
	if err != nil {
		outcome = "failed"
	}
	a.Metrics.DashboardSyncs.WithLabelValues(outcome).Inc()
}

// EnsureDashboard is the resync's hook: the dashboard of the session's
// repository is opened if missing, refreshed if stale.
func (a *App) EnsureDashboard(ctx context.Context, s *core.Session) error {
	open := func(context.Context) (*core.Session, error) { return s, nil }
	out, err := dashboard.Sync(ctx, s.Repo, open, a.dashboardSync(s.Hub, true))
	a.noteDashboard(s.Repo, out)
	a.countDashboard(out, err)
	return err
}

func (a *App) dashboardSync(gh hub.API, mayCreate bool) dashboard.Refresh {
	return dashboard.Refresh{Issues: gh, BotLogin: a.botLogin(), MayCreate: mayCreate, Facts: a.dashboardFacts,
		Interval: a.DashboardInterval, Now: a.DashboardNow}
}

// dashboardFacts gathers what the dashboard shows; facts that could not
// be read are logged and left out.
func (a *App) dashboardFacts(ctx context.Context, s *core.Session) (*dashboard.Facts, error) {
	f, err := dashboard.Gather(ctx, s, a.proposalAPI(s.Hub), a.Web, a.Render.Identity)
	if f == nil {
		return nil, err
	}
	if err != nil {
		s.Log.WithError(err).Warn("dashboard: some facts could not be read")
	}
	if f.Rollouts, err = dashboard.GatherRollouts(ctx, s, a.Rollouts.Plans(), a.Rollouts.NameableIn(s.Repo.FullName())); err != nil {
		s.Log.WithError(err).Warn("dashboard: some rollouts could not be read")
	}
	return f, nil
}

// touchDashboard notes an event's repository for a refresh.
func (a *App) touchDashboard(ev *ingress.Event) {
	if a.Dashboards == nil || ev.Payload == nil {
		return
	}
	p, ok := ev.Payload.(interface {
		GetRepo() *github.Repository
		GetSender() *github.User
	})
	if !ok || p.GetRepo() == nil {
		return
	}
	if (ev.Name == "issues" || ev.Name == "issue_comment") && a.isBot(p.GetSender()) {
		return // porchbot's own edits and replies change nothing the dashboard shows
	}
	if ev.Name == "status" || ev.Name == "deployment_status" {
		// A deployer's or a CI's report shows in no dashboard of its own
		// repository; what it changes in a rollout refreshes the upstream's
		// (rollout.Controller.Changed). Every CI status costing a
		// dashboard look-up would be a fleet's worth of calls.
		return
	}
	r := p.GetRepo()
	repo := repoOf(ev.InstallationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch())
	if a.dashboardHints.has(repo) {
		a.Dashboards.Touch(repo)
	}
}

func (a *App) isBot(u *github.User) bool {
	return strings.EqualFold(u.GetLogin(), a.botLogin())
}

// touching refreshes the dashboard after its handler ran.
type touching struct {
	h   ingress.Handler
	app *App
}

func (t touching) Handle(ctx context.Context, ev *ingress.Event) error {
	err := t.h.Handle(ctx, ev)
	t.app.touchDashboard(ev)
	return err
}

// OnIssues runs the boxes a person ticked in porchbot's dashboard, as
// their /porch commands, then refreshes it (which clears the ticks). A
// dashboard closed by a person needs nothing: it stays closed (the state
// is GitHub's, see dashboard.Sync).
func (a *App) OnIssues(ctx context.Context, installationID int64, ev *github.IssuesEvent) error {
	issue, sender := ev.GetIssue(), ev.GetSender()
	if a.isBot(sender) || !a.isBot(issue.GetUser()) || !dashboard.IsBody(issue.GetBody()) {
		return nil
	}
	r := ev.GetRepo()
	repo := repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch())
	a.dashboardHints.set(repo, true)
	log := ingress.LoggerFrom(ctx).WithFields(logrus.Fields{"dashboard": issue.GetNumber(), "sender": sender.GetLogin()})
	switch ev.GetAction() {
	case "closed":
		log.Info("dashboard closed by a person: it stays closed until the configuration asks again")
		return nil
	case "edited":
	default:
		return nil
	}
	if ev.GetChanges().GetBody() == nil || a.Ticks == nil {
		return nil
	}
	actions := dashboard.Ticks(ev.GetChanges().GetBody().GetFrom(), issue.GetBody())
	if len(actions) == 0 {
		return nil
	}
	ticks := make([]commands.Tick, 0, len(actions))
	for _, act := range actions {
		ticks = append(ticks, a.dashboardTick(act, sender.GetLogin()))
	}
	log.WithField("boxes", len(ticks)).Info("dashboard boxes ticked")
	err := a.Ticks.HandleTicks(ctx, commands.TickEvent{Repo: repo, Number: issue.GetNumber(), Author: sender.GetLogin(),
		AuthorType: sender.GetType(), DeliveryID: ingress.DeliveryFrom(ctx), Ticks: ticks})
	a.Dashboards.Touch(repo)
	return err
}

// dashboardTick is what a box does: the matching /porch command's step.
func (a *App) dashboardTick(act dashboard.Action, by string) commands.Tick {
	ops := CommandOps{App: a}
	t := commands.Tick{Verb: act.Verb(), Text: act.String()}
	switch act.Kind {
	case dashboard.ActionRender:
		t.Run = func(ctx context.Context, s *core.Session) (commands.Outcome, error) {
			branch := packages.DraftBranch(act.Package, act.Workspace)
			head, err := s.ResolveRef(ctx, "refs/remotes/origin/"+branch)
			if err != nil {
				return commands.Outcome{}, &commands.UserError{Msg: fmt.Sprintf("there is no draft %s", mdquote.Code(branch))}
			}
			return ops.Render(ctx, s, act.Package, act.Workspace, head.String())
		}
	case dashboard.ActionUpdate:
		if a.Updates != nil {
			t.Run = func(ctx context.Context, s *core.Session) (commands.Outcome, error) {
				return ops.Upgrade(ctx, s, act.Package, 0, "", by)
			}
		}
	}
	return t
}

// OnInstallation opens the dashboard of the repositories the App was just
// installed on (installation created) or given (installation_repositories
// added), at most maxInstallRepos of them; the resync does the rest.
func (a *App) OnInstallation(ctx context.Context, installationID int64, names []string) error {
	if len(names) > maxInstallRepos {
		names = names[:maxInstallRepos]
	}
	gh, err := a.Opener.Clients.Installation(ctx, installationID)
	if err != nil {
		return fmt.Errorf("installation %d: %w", installationID, err)
	}
	var errs []error
	for _, full := range names {
		owner, name, ok := strings.Cut(full, "/")
		if !ok {
			continue
		}
		r, err := gh.GetRepository(ctx, owner, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", full, err))
			continue
		}
		repo := repoOf(installationID, owner, name, r.DefaultBranch)
		if _, err := a.SyncDashboard(ctx, repo, true); err != nil && !errors.Is(err, core.ErrNotOnboarded) {
			errs = append(errs, err) // a repository not set up yet got its onboarding pull request instead
		}
	}
	return errors.Join(errs...)
}
