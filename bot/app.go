package bot

import (
	"context"
	"fmt"
	"github.com/porchbot/porchbot/bot/fleet"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/handlers"
	"github.com/porchbot/porchbot/bot/ingress"
	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/dashboard"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/bot/lifecycle/variant"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/metrics"
)

// App is porchbot's package lifecycle behind the event handlers: for each
// event it opens a core.Session on the event's repository and runs
// the step the event calls for. It implements the handlers' reactor
// interfaces (handlers.PushReactor, handlers.PullRequestReactor, ...);
// the handlers (bot/handlers) stay thin.
type App struct {
	Opener *core.Opener
	// Onboard opens the "Configure porchbot" pull request in a repository
	// without .github/porchbot.yaml when an event or the resync opens it
	// (bot/lifecycle/onboarding); Opener.RequireConfig makes porchbot do
	// nothing else there until the file is on the default branch.
	Onboard bool
	// Render configures draft and proposal renders (server limits, bot identity).
	Render rendercheck.RenderOptions
	// BotLogin is the App's bot user, e.g. "porchbot[bot]".
	BotLogin string
	// RecordKey signs /porch approve records (see approval.ProposalAPI).
	RecordKey []byte
	// Comments runs /porch commands; nil ignores comments.
	Comments handlers.CommentReactor
	// Memberships reuses team membership answers across events (approvers
	// "@org/team"); nil looks each time.
	Memberships *approval.MembershipCache
	// Flows applies the rule of content crossing repositories
	// (internal/flow) to the update fan-out, upgrades and variants; its
	// caches are shared with the commands (nil: caches of its own).
	Flows *flow.Checker
	// Renders remembers the render checks this process wrote, for the
	// approval verdict (nil: each evaluation lists them).
	Renders *rendercheck.RenderStates
	// Updates opens downstream update pull requests after a publish and
	// runs /porch upgrade (nil: neither).
	Updates *updates.Fanout
	// Rollouts steps the rollouts of packages with waves on the App's
	// events (NewRollouts; nil: every publish goes to every downstream at
	// once).
	Rollouts *fleet.Rollouts
	// Variants reconciles the variants of upstream repositories on
	// publish, config push and resync (nil: none).
	Variants *variant.Controller
	// Web is the GitHub web base URL, for links in update pull requests.
	Web string
	// InstallationFor finds the App's installation on a repository (the
	// update fan-out opens downstream repositories with it).
	InstallationFor func(ctx context.Context, owner, repo string) (int64, error)
	Log             logrus.FieldLogger
	// Metrics, if set, counts upstreams skipped by downstream discovery.
	Metrics *metrics.Metrics
	// Dashboards refreshes dashboard issues after events (NewDashboards;
	// nil: none are refreshed on events). Ticks runs their ticked boxes
	// (nil: ticks do nothing).
	Dashboards *dashboard.Debouncer
	Ticks      TickRunner
	// DashboardInterval is the least time between two edits of a
	// dashboard, whatever the replica (dashboard.Interval when 0;
	// tests shorten it).
	DashboardInterval time.Duration
	// DashboardNow is the clock the interval is measured on against the
	// dashboard's updated_at (time.Now when nil; tests whose forge dates
	// things ahead of real time give the forge's clock).
	DashboardNow func() time.Time

	// downstreams knows which packages of installed repositories track
	// which upstream (app_downstreams.go); built on first use.
	downstreams     *downstreams.Registry
	downstreamsOnce sync.Once
	// knownRepos are the repositories events named (app_updates.go).
	knownRepos knownRepos
	// declined are the repositories whose onboarding pull request was
	// closed unmerged: not asked again in this process (app_onboarding.go).
	declined declinedRepos
	// dashboardHints are the repositories with a dashboard this process
	// has seen (app_dashboard.go).
	dashboardHints dashboardHints
}

// registry is the App's downstream registry, constructed on first use.
func (a *App) registry() *downstreams.Registry {
	a.downstreamsOnce.Do(func() { a.downstreams = downstreams.NewRegistry() })
	return a.downstreams
}

// Handlers is the event table with the App behind every handler.
func (a *App) Handlers() ingress.Handlers {
	h := handlers.DefaultHandlers()
	h["push"] = &handlers.PushHandler{React: a}
	h["pull_request"] = &handlers.PullRequestHandler{React: a}
	h["pull_request_review"] = &handlers.PullRequestReviewHandler{React: a}
	h["check_run"] = &handlers.CheckRunHandler{React: a}
	h["check_suite"] = &handlers.CheckSuiteHandler{React: a}
	if a.Comments != nil {
		h["issue_comment"] = &handlers.IssueCommentHandler{React: a.Comments}
	}
	h["issues"] = &handlers.IssuesHandler{React: a}
	h["status"] = &handlers.StatusHandler{React: a}
	h["deployment_status"] = &handlers.DeploymentStatusHandler{React: a}
	installation := &handlers.InstallationHandler{React: a}
	h["installation"], h["installation_repositories"] = installation, installation
	for name, handler := range h {
		if name != "installation" && name != "installation_repositories" {
			h[name] = notOnboardedSkipped{touching{h: seeingRepos{h: handler, app: a}, app: a}}
		}
	}
	return h
}

// repoOf names an event's repository for the lifecycle.
func repoOf(installationID int64, owner, name, defaultBranch string) core.Repo {
	return core.Repo{Owner: owner, Name: name, InstallationID: installationID, DefaultBranch: defaultBranch}
}

func (a *App) open(ctx context.Context, repo core.Repo) (*core.Session, error) {
	if repo.InstallationID == 0 {
		return nil, fmt.Errorf("event for %s carries no installation", repo.FullName())
	}
	a.knownRepos.remember(repo)
	s, err := a.Opener.OpenUnconfigured(ctx, repo)
	if err != nil {
		return nil, err
	}
	if !s.ConfigFound && a.Onboard {
		a.onboard(ctx, s)
	}
	if a.Opener.RequireConfig && !s.ConfigFound {
		return nil, core.NotOnboarded(s.Repo)
	}
	return s, nil
}

// Open opens a repository as an event does: its onboarding pull request
// opened when it has no configuration file, and refused then
// (core.ErrNotOnboarded) while onboarding is required. The resync opens
// repositories so.
func (a *App) Open(ctx context.Context, repo core.Repo) (*core.Session, error) {
	return a.open(ctx, repo)
}

// proposalAPI is the proposal steps' view of the installation client.
func (a *App) proposalAPI(gh hub.API) approval.ProposalAPI {
	api := approval.NewProposalAPI(gh)
	if a.BotLogin != "" {
		api.BotLogin = a.BotLogin
	}
	api.RecordKey = a.RecordKey
	api.Memberships = a.Memberships
	api.Renders = a.Renders
	return api
}

func (a *App) botLogin() string {
	if a.BotLogin != "" {
		return a.BotLogin
	}
	return approval.DefaultBotLogin
}
