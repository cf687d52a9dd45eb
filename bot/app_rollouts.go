package bot

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rollout"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/ttlcache"
)

// Rollouts (docs/rollouts.md): a publish of a package with a rollout goes
// to its first waves only (bot/lifecycle/rollout plans and proposes); the
// deployment reports of downstream repositories (status, check_run and
// deployment_status webhooks) and their merges step it on; a wake steps it
// when a soak ends; the resync repairs the rest.

// NewRolloutController is the App's rollouts, proposing through its
// update fan-out.
func (a *App) NewRolloutController() *rollout.Controller {
	c := &rollout.Controller{Finder: a, Fanout: a.Updates, Wake: a.wakeRollout, Changed: a.rolloutChanged}
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
	// Topics change seldom: one listing of an installation's repositories
	// serves its rollouts' steps for topicsTTL.
	var topics ttlcache.Cache[map[string][]string]
	c.Topics = func(ctx context.Context, s *core.Session, repos []string) map[string][]string {
		key := strconv.FormatInt(s.Repo.InstallationID, 10)
		if m, ok := topics.Get(key, time.Now()); ok && listsAll(m, repos) {
			return m
		}
		var lister func(*core.Session) updates.VariantRepoLister
		if a.Updates != nil {
			lister = a.Updates.Repos
		}
		listed, err := updates.ListInstallation(ctx, s, lister, a.Flows, nil)
		if err != nil {
			s.Log.WithError(err).Warn("rollout: the installation's repositories (their topics) not listed")
		}
		out := make(map[string][]string, len(listed))
		for k, r := range listed {
			out[k] = r.Topics
		}
		if err == nil {
			topics.Put(key, out, time.Now().Add(topicsTTL))
		}
		return out
	}
	return c
}

// listsAll says whether a listing holds every one of repos (a repository
// created since is listed again).
func listsAll(listed map[string][]string, repos []string) bool {
	for _, r := range repos {
		if _, ok := listed[strings.ToLower(r)]; !ok {
			return false
		}
	}
	return true
}

// topicsTTL is how long a rollout trusts a listing of repository topics.
const topicsTTL = 10 * time.Minute

// publishedWithRollouts splits a publish's revisions into those of
// packages rolled out in waves (stepped here) and the others (returned,
// for the plain fan-out).
func (a *App) publishedWithRollouts(ctx context.Context, s *core.Session, revs []publish.PublishedRevision) ([]publish.PublishedRevision, error) {
	if a.Rollouts == nil {
		return revs, nil
	}
	var rest []publish.PublishedRevision
	stepped := map[string]bool{}
	var errs []error
	for _, r := range revs {
		if !rollout.Has(s, r.Package) {
			rest = append(rest, r)
			continue
		}
		if stepped[r.Package] {
			continue
		}
		stepped[r.Package] = true
		if _, err := a.Rollouts.Step(ctx, s, r.Package); err != nil {
			errs = append(errs, err)
		}
	}
	return rest, errors.Join(errs...)
}

// OnDeploymentReport records what a deployer reported on a commit of repo
// in the rollouts of the upstream packages repo's packages track. A
// repository tracking nothing costs nothing.
func (a *App) OnDeploymentReport(ctx context.Context, repo core.Repo, rep rollout.DeploymentReport) error {
	if a.Rollouts == nil {
		return nil
	}
	tracked := a.registry().Of(repo.FullName())
	if len(tracked) == 0 {
		return nil
	}
	open := func(ctx context.Context) (*core.Session, error) { return a.open(ctx, repo) }
	return a.Rollouts.Observe(ctx, open, tracked, rep)
}

// rolloutsAfterDownstreamPush steps the rollouts of the upstream packages
// that s's packages track, after its deployment branch changed a Kptfile
// (an update merged: its wave may have met the rule).
func (a *App) rolloutsAfterDownstreamPush(ctx context.Context, s *core.Session) {
	if a.Rollouts == nil {
		return
	}
	if err := a.stepTracked(ctx, a.registry().Of(s.Repo.FullName())); err != nil {
		s.Log.WithError(err).Warn("rollouts after a downstream push")
	}
}

// stepTracked steps the rollouts of the upstream packages of tracked.
func (a *App) stepTracked(ctx context.Context, tracked []downstreams.Downstream) error {
	seen := map[string]bool{}
	var errs []error
	for _, d := range tracked {
		id, err := downstreams.ParseRepoURL(d.Upstream.Repo)
		if err != nil || id.Host != a.gitHost() {
			continue
		}
		owner, name := id.OwnerName()
		key := strings.ToLower(owner+"/"+name) + "\x00" + downstreams.NormalizeDir(d.Upstream.Directory)
		if seen[key] {
			continue
		}
		seen[key] = true
		us, err := a.OpenRepo(ctx, owner+"/"+name)
		if err != nil {
			continue // not installed, or unreadable: nothing of ours
		}
		pkg := rollout.UpstreamPackage(us, d.Upstream.Directory)
		if !rollout.Has(us, pkg) {
			continue
		}
		if _, err := a.Rollouts.Step(ctx, us, pkg); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ResyncRollouts steps every rollout of s, reading again the reports its
// open waves wait for (resync.RolloutHooks).
func (a *App) ResyncRollouts(ctx context.Context, s *core.Session) error {
	if a.Rollouts == nil {
		return nil
	}
	var errs []error
	for _, r := range s.Config.Rollouts() {
		if _, err := a.Rollouts.Repair(ctx, s, r.Package); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// rolloutWakes are the steps asked for when a soak ends: one timer per
// rollout, the earliest asked kept.
type rolloutWakes struct {
	mu     sync.Mutex
	timers map[string]wake
}

type wake struct {
	at    time.Time
	timer *time.Timer
}

// wakeRollout steps pkg's rollout in s's repository at at (rollout's
// Controller.Wake). A process that stops forgets its wakes; the resync
// steps every rollout anyway.
func (a *App) wakeRollout(s *core.Session, pkg string, at time.Time) {
	repo := s.Repo
	key := strings.ToLower(repo.FullName()) + "\x00" + pkg
	a.wakes.mu.Lock()
	defer a.wakes.mu.Unlock()
	if a.wakes.timers == nil {
		a.wakes.timers = map[string]wake{}
	}
	if w, ok := a.wakes.timers[key]; ok && !w.at.After(at) {
		return
	} else if ok {
		w.timer.Stop()
	}
	a.wakes.timers[key] = wake{at: at, timer: time.AfterFunc(time.Until(at), func() {
		a.wakes.mu.Lock()
		delete(a.wakes.timers, key)
		a.wakes.mu.Unlock()
		ctx := context.Background()
		s, err := a.open(ctx, repo)
		if err != nil {
			a.logger().WithError(err).WithField("repo", repo.FullName()).Warn("rollout wake: repository not opened")
			return
		}
		if _, err := a.Rollouts.Step(ctx, s, pkg); err != nil {
			s.Log.WithError(err).WithField("package", pkg).Warn("rollout wake")
		}
	})}
}

// publicRepo says whether the registry knows repo, tracking a package, to
// be public (its threads' readers may all read it).
func (a *App) publicRepo(repo string) bool {
	for _, d := range a.registry().Of(repo) {
		return d.Public
	}
	return false
}
