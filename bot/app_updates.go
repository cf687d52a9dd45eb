package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/porchbot/porchbot/bot/commands"
	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
)

// Upstream updates (SPEC §6): a publish fans out to the downstream
// packages' update pull requests; /porch upgrade runs the same path on
// demand. The work is updates.Fanout's; this file hands it the
// sessions and the App's API.

// updatesAfterPublish opens the update pull requests of what a publish
// tagged (nothing when the App has no fan-out or nothing was tagged).
func (a *App) updatesAfterPublish(ctx context.Context, s *core.Session, out *publish.Outcome) error {
	a.CountPublish(out)
	a.rebaseAfterPublish(ctx, s, out)
	if a.Updates == nil || out == nil || len(out.Published) == 0 {
		return nil
	}
	defer a.timeFanout(time.Now())
	rest, rerr := a.Rollouts.Published(ctx, s, out.Published)
	_, err := a.Updates.Published(ctx, s, rest)
	return errors.Join(rerr, err, a.variantsAfterPublish(ctx, s, out))
}

// UpdateAPI is the update pull requests' API of a downstream session.
func (a *App) UpdateAPI(s *core.Session) updates.API {
	api := updates.NewAPI(s.Hub, a.proposalAPI(s.Hub))
	api.Web, api.Identity = a.Web, a.Render.Identity
	return api
}

// Upgrade is /porch upgrade <package> [--to vN] [--strategy S]: the
// package's update pull request, now.
func (o CommandOps) Upgrade(ctx context.Context, s *core.Session, pkg string, to int, strategy, by string) (commands.Outcome, error) {
	out, plan, err := o.App.Updates.Upgrade(ctx, s, pkg, to, updates.Options{Strategy: strategy, RequestedBy: by})
	if err != nil {
		return commands.Outcome{}, userError(err)
	}
	tag := plan.Upstream.Tag()
	switch out.State {
	case updates.UpToDate:
		return commands.Outcome{Text: fmt.Sprintf("%s already tracks %s (upstream lock %s): nothing to update.", mdquote.Code(pkg), mdquote.Code(tag), mdquote.Code(plan.FromRef))}, nil
	case updates.Opened:
		return commands.Outcome{Text: fmt.Sprintf("Opened the update of %s to %s%s.", mdquote.Code(pkg), mdquote.Code(tag), conflictsNote(plan)), PullRequest: out.PRNumber()}, nil
	case updates.Refreshed, updates.Current:
		return commands.Outcome{Text: fmt.Sprintf("The update pull request of %s proposes %s%s.", mdquote.Code(pkg), mdquote.Code(tag), conflictsNote(plan)), PullRequest: out.PRNumber()}, nil
	case updates.Waiting:
		return commands.Outcome{Text: fmt.Sprintf("Pushed the update of %s to %s; its pull request waits: `updates.prConcurrentLimit` update pull requests are open.", mdquote.Code(pkg), mdquote.Code(tag)), Branch: out.Branch}, nil
	case updates.Held:
		return commands.Outcome{Text: fmt.Sprintf("%s has commits porchbot did not make: not overwritten. Delete the branch and ask again.", mdquote.Code(out.Branch)), PullRequest: out.PRNumber()}, nil
	case updates.Refused:
		n := out.PRNumber()
		if n == 0 {
			n = out.Issue // the issue listing the conflicts, when this call opened it
		}
		return commands.Outcome{Text: fmt.Sprintf("Not updated to %s: %s.", mdquote.Code(tag), plan.Refused) + "\n\n" + updates.ConflictsMarkdown(plan.Conflicts), PullRequest: n}, nil
	case updates.OwnedByVariant:
		return commands.Outcome{Text: fmt.Sprintf("%s belongs to a variant of its upstream (`porchbot.dev/variant`): the variant keeps it updated, with its mutations; `/porch variants` in the upstream repository shows its state.", mdquote.Code(pkg))}, nil
	case updates.Declined:
		// Asked for explicitly: the declined revision is proposed again.
		return commands.Outcome{Text: fmt.Sprintf("The update of %s to %s was closed unmerged; reopen that pull request to take it after all.", mdquote.Code(pkg), mdquote.Code(tag))}, nil
	}
	return commands.Outcome{Text: strings.TrimSpace(fmt.Sprintf("Update of %s to %s: %s.", mdquote.Code(pkg), mdquote.Code(tag), out.State))}, nil
}

func conflictsNote(plan *updates.Plan) string {
	if len(plan.Conflicts) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d conflicting fields, listed in the pull request)", len(plan.Conflicts))
}

// knownRepos remembers, per repository, its installation and default
// branch as the last event naming it gave them: the fan-out opens a
// downstream repository without asking GitHub for them again (every
// downstream was indexed from an event or the resync, which open it).
type knownRepos struct{ m sync.Map }

func (k *knownRepos) remember(r core.Repo) {
	if r.InstallationID != 0 && r.DefaultBranch != "" {
		k.m.Store(strings.ToLower(r.FullName()), r)
	}
}

func (k *knownRepos) get(fullName string) (core.Repo, bool) {
	v, ok := k.m.Load(strings.ToLower(fullName))
	if !ok {
		return core.Repo{}, false
	}
	return v.(core.Repo), true
}

// OpenRepo opens a session on a repository where the App is installed, as
// the App (the update fan-out's downstream and upstream repositories).
func (a *App) OpenRepo(ctx context.Context, fullName string) (*core.Session, error) {
	if r, ok := a.knownRepos.get(fullName); ok {
		return a.open(ctx, r)
	}
	owner, name, ok := strings.Cut(fullName, "/")
	if !ok || a.InstallationFor == nil {
		return nil, fmt.Errorf("open %s: no installation lookup", fullName)
	}
	id, err := a.InstallationFor(ctx, owner, name)
	if err != nil {
		return nil, fmt.Errorf("open %s: the App is not installed there: %w", fullName, err)
	}
	gh, err := a.Opener.Clients.Installation(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", fullName, err)
	}
	info, err := gh.GetRepository(ctx, owner, name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", fullName, err)
	}
	a.Flows.Remember(info)
	return a.open(ctx, repoOf(id, info.Owner, info.Name, info.DefaultBranch))
}

// UpdateMetrics counts update outcomes and the fan-out queue
// (internal/metrics).
type UpdateMetrics struct {
	PRs   *prometheus.CounterVec
	Queue prometheus.Gauge
}

// Outcome counts one downstream package's update.
func (m UpdateMetrics) Outcome(state string) { m.PRs.WithLabelValues(state).Inc() }

// Queued moves the queue depth.
func (m UpdateMetrics) Queued(delta int) { m.Queue.Add(float64(delta)) }

// automergeUpdate merges an update pull request whose porchbot/approval
// (render included) the App just passed, with updates.automerge.
func (a *App) automergeUpdate(ctx context.Context, installationID int64, ev *github.CheckRunEvent) error {
	run := ev.GetCheckRun()
	if a.Updates == nil || run.GetName() != approval.CheckName || run.GetStatus() != "completed" ||
		run.GetConclusion() != "success" || !strings.EqualFold(ev.GetSender().GetLogin(), a.botLogin()) {
		return nil
	}
	var prs []int
	for _, pr := range run.PullRequests {
		if _, ok := packages.ParseUpdateBranchName(pr.GetHead().GetRef()); ok {
			prs = append(prs, pr.GetNumber())
		}
	}
	if len(prs) == 0 {
		return nil
	}
	r := ev.GetRepo()
	s, err := a.open(ctx, repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch()))
	if err != nil {
		return err
	}
	for _, n := range prs {
		if _, err := updates.AutomergeUpdate(ctx, s, s.Hub, n, plumbing.NewHash(run.GetHeadSHA()), a.Render.Identity); err != nil {
			return err
		}
	}
	return nil
}

// ResyncUpdates is the resync's hook: the lagging downstream packages of
// s's repository get their update pull requests.
func (a *App) ResyncUpdates(ctx context.Context, s *core.Session) error {
	return resync.Lagging(ctx, a.Updates, s)
}
