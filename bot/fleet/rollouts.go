package fleet

import (
	"context"
	"errors"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rollout"
	"github.com/porchbot/porchbot/internal/downstreams"
)

// Rollouts steps the rollouts of packages with waves on the events that
// move them. A nil *Rollouts steps nothing.
type Rollouts struct {
	Controller *rollout.Controller
	// Tracked are the packages of a repository that track an upstream
	// (the App's downstream registry).
	Tracked func(repo string) []downstreams.Downstream
	// Open opens an event's repository; OpenRepo a repository where the
	// App is installed, by name.
	Open     func(ctx context.Context, repo core.Repo) (*core.Session, error)
	OpenRepo func(ctx context.Context, fullName string) (*core.Session, error)
	// Host is this GitHub's git host: upstreams elsewhere are not ours.
	Host func() string
	Log  logrus.FieldLogger

	wakes wakes
}

// Plans is the controller that plans the rollouts (nil when r is nil).
func (r *Rollouts) Plans() *rollout.Controller {
	if r == nil {
		return nil
	}
	return r.Controller
}

// Published steps the rollouts of a publish's packages rolled out in
// waves and returns the other revisions, for the plain fan-out.
func (r *Rollouts) Published(ctx context.Context, s *core.Session, revs []publish.PublishedRevision) ([]publish.PublishedRevision, error) {
	if r == nil {
		return revs, nil
	}
	var rest []publish.PublishedRevision
	stepped := map[string]bool{}
	var errs []error
	for _, rev := range revs {
		if !rollout.Has(s, rev.Package) {
			rest = append(rest, rev)
			continue
		}
		if stepped[rev.Package] {
			continue
		}
		stepped[rev.Package] = true
		if _, err := r.Controller.Step(ctx, s, rev.Package); err != nil {
			errs = append(errs, err)
		}
	}
	return rest, errors.Join(errs...)
}

// Report records what a deployer reported on a commit of repo in the
// rollouts of the upstream packages repo's packages track. A repository
// tracking nothing costs nothing; it is opened only when a rollout names
// the report's context.
func (r *Rollouts) Report(ctx context.Context, repo core.Repo, rep rollout.DeploymentReport) error {
	if r == nil {
		return nil
	}
	tracked := r.Tracked(repo.FullName())
	if len(tracked) == 0 {
		return nil
	}
	open := func(ctx context.Context) (*core.Session, error) { return r.Open(ctx, repo) }
	return r.Controller.Observe(ctx, open, tracked, rep)
}

// AfterDownstreamPush steps the rollouts of the upstream packages that
// s's packages track, after its deployment branch changed a Kptfile (an
// update merged: its wave may have met the rule).
func (r *Rollouts) AfterDownstreamPush(ctx context.Context, s *core.Session) {
	if r == nil {
		return
	}
	if err := r.stepTracked(ctx, r.Tracked(s.Repo.FullName())); err != nil {
		s.Log.WithError(err).Warn("rollouts after a downstream push")
	}
}

// stepTracked steps the rollouts of the upstream packages of tracked.
func (r *Rollouts) stepTracked(ctx context.Context, tracked []downstreams.Downstream) error {
	seen := map[string]bool{}
	var errs []error
	for _, d := range tracked {
		id, err := downstreams.ParseRepoURL(d.Upstream.Repo)
		if err != nil || id.Host != r.Host() {
			continue
		}
		owner, name := id.OwnerName()
		key := strings.ToLower(owner+"/"+name) + "\x00" + downstreams.NormalizeDir(d.Upstream.Directory)
		if seen[key] {
			continue
		}
		seen[key] = true
		us, err := r.OpenRepo(ctx, owner+"/"+name)
		if err != nil {
			continue // not installed, or unreadable: nothing of ours
		}
		pkg := rollout.UpstreamPackage(us, d.Upstream.Directory)
		if !rollout.Has(us, pkg) {
			continue
		}
		if _, err := r.Controller.Step(ctx, us, pkg); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Resync steps every rollout of s, reading again the reports its open
// waves wait for (the resync's, through the App's resync.RolloutHooks).
func (r *Rollouts) Resync(ctx context.Context, s *core.Session) error {
	if r == nil {
		return nil
	}
	var errs []error
	for _, ro := range s.Config.Rollouts() {
		if _, err := r.Controller.Repair(ctx, s, ro.Package); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// NameableIn is the index's naming rule (downstreams.Downstream.NameableIn)
// for a text of repository thread: may it name repo, a downstream
// repository? Yes for thread itself and, by the registry, a public one.
func (r *Rollouts) NameableIn(thread string) func(repo string) bool {
	return func(repo string) bool {
		if r != nil {
			for _, d := range r.Tracked(repo) {
				return d.NameableIn(thread)
			}
		}
		return strings.EqualFold(repo, thread)
	}
}
