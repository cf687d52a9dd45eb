package updates

// The fan-out of a publish: every downstream package of the published
// upstream package, in every repository where the App is installed, gets
// its update pull request (update.go plans it, update_pr.go makes it).
// Downstreams come from a registry kept current from pushes and resync
// (internal/downstreams), never from a scan per publish. Repositories are
// handled one after the other; the API transport spaces porchbot's
// content-creating calls across the whole process (internal/github:
// mutation spacing, Retry-After and rate limits), so one publish to many
// repositories stays within GitHub's secondary limits.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
)

// DownstreamFinder finds the downstream packages, in installed
// repositories that can read it, of the package at directory dir of the
// upstream repository (the App's registry, bot.App.DownstreamsOf).
type DownstreamFinder interface {
	DownstreamsOf(ctx context.Context, upstream core.Repo, dir string) []downstreams.Downstream
}

// Metrics observes the fan-out (internal/metrics: update_prs{state},
// update_queue_depth).
type Metrics interface {
	Outcome(state string)
	Queued(delta int)
}

// UpstreamReleases lists the upstream repository's releases (a part of
// hub.API).
type UpstreamReleases interface {
	ListReleases(ctx context.Context, owner, repo string, p hub.Page) ([]hub.Release, hub.Next, error)
}

// Fanout opens the update pull requests of upstream publishes.
type Fanout struct {
	Finder DownstreamFinder
	// Open opens a downstream repository ("owner/name") as the App.
	Open func(ctx context.Context, fullName string) (*core.Session, error)
	// API is the update calls in a downstream session.
	API func(s *core.Session) API
	// Releases lists the upstream's releases (nil: no release notes).
	Releases func(s *core.Session) UpstreamReleases
	Render   rendercheck.RenderOptions
	Metrics  Metrics
	// Pacer keeps the updates within GitHub's hourly limit of
	// content-creating calls (nil: unpaced, as on the local forge).
	Pacer Pacer
	// Flows applies the rule of content crossing repositories
	// (internal/flow) to every update (nil: caches of its own per check).
	Flows *flow.Checker
	// Hold says whether a rollout holds a downstream package back from an
	// upstream revision, and why (bot/lifecycle/rollout's
	// Controller.Holds): asked by the updates nobody asked for (Upgrade
	// without RequestedBy: the resync's, waiting updates). nil: none.
	Hold func(ctx context.Context, up UpstreamRevision, downstreamRepo, pkg string) (string, bool)
	// Repos lists the repositories of a session's installation, for the
	// visibilities of a fan-out's downstream repositories from a
	// repository that is not public (nil: s.Hub).
	Repos func(s *core.Session) VariantRepoLister
}

// Result is the outcome of one downstream package.
type Result struct {
	Repo, Package string
	Outcome       *Outcome
	Err           error
}

// Published fans the published revisions of s out to their downstream
// packages: each package's highest (several at once come from a backfill,
// or from adopting tags porchbot did not make). Each package's failure is
// logged and returned (joined); the others go on.
func (f *Fanout) Published(ctx context.Context, s *core.Session, revs []publish.PublishedRevision) ([]Result, error) {
	if f == nil || f.Finder == nil || f.Open == nil {
		return nil, nil
	}
	var results []Result
	var errs []error
	highest := map[string]int{}
	for _, r := range revs {
		highest[r.Package] = max(highest[r.Package], r.Revision)
	}
	for _, r := range revs {
		if r.Revision < highest[r.Package] {
			continue // a later revision of the package is proposed instead
		}
		up := UpstreamRevision{Session: s, Package: r.Package, Dir: core.PackageDir(s.Config.Packages.Root, r.Package), Revision: r.Revision,
			Commit: r.Commit, Release: r.Release}
		res, err := f.fanOut(ctx, up)
		results = append(results, res...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return results, errors.Join(errs...)
}

// downstreams are the downstream packages of up, by repository, repository
// order fixed (replicas work through them in the same order), and each
// repository's installation.
func (f *Fanout) downstreams(ctx context.Context, up UpstreamRevision) (repos []string, pkgs map[string][]string, installs map[string]int64) {
	pkgs, installs = map[string][]string{}, map[string]int64{}
	seen := map[string]bool{}
	for _, d := range f.Finder.DownstreamsOf(ctx, up.Session.Repo, up.Directory()) {
		if strings.EqualFold(d.Repo, up.Session.Repo.FullName()) && d.Package == up.Package {
			continue // a package that names itself as its upstream
		}
		key := d.Repo + "\x00" + d.Package
		if seen[key] {
			continue
		}
		seen[key] = true
		if len(pkgs[d.Repo]) == 0 {
			repos = append(repos, d.Repo)
			installs[d.Repo] = d.InstallationID
		}
		pkgs[d.Repo] = append(pkgs[d.Repo], d.Package)
	}
	sort.Strings(repos)
	return repos, pkgs, installs
}

func (f *Fanout) fanOut(ctx context.Context, up UpstreamRevision) ([]Result, error) {
	log := up.Session.Log.WithFields(logrus.Fields{"upstream": up.Tag(), "package": up.Package})
	repos, pkgs, installs := f.downstreams(ctx, up)
	total := 0
	for _, r := range repos {
		total += len(pkgs[r])
	}
	if total == 0 {
		log.Debug("no downstream package tracks this package")
		return nil, nil
	}
	f.queued(total)
	up = f.Prepare(ctx, up, installs)
	log.WithFields(logrus.Fields{"repositories": len(repos), "packages": total}).Info("updating downstream packages")
	var results []Result
	var errs []error
	for _, repo := range repos {
		ds, err := f.Open(ctx, repo)
		for _, pkg := range pkgs[repo] {
			res := f.Offer(ctx, up, repo, ds, err, pkg)
			f.queued(-1)
			if res.Err != nil && res.State() == "failed" {
				errs = append(errs, fmt.Errorf("update %s in %s: %w", pkg, repo, res.Err))
			}
			results = append(results, res)
		}
	}
	return results, errors.Join(errs...)
}

// Prepare readies up for offers to the downstream repositories installs
// names (owner/name → installation): its release notes, its visibility
// and theirs for the flow rule.
func (f *Fanout) Prepare(ctx context.Context, up UpstreamRevision, installs map[string]int64) UpstreamRevision {
	up.notes = f.NotesSource(ctx, up)
	up.Visibility = sourceVisibility(ctx, f.Flows, up.Session)
	up.Downstreams = f.downstreamVisibilities(ctx, up, installs)
	return up
}

// State is the outcome of a downstream's update in words (the metric's
// state): the Outcome's state, NotOnboarded, Refused, or "failed".
func (r Result) State() string {
	switch {
	case errors.Is(r.Err, core.ErrNotOnboarded):
		return NotOnboarded
	case r.Err != nil:
		if _, refused := FlowRefusal(r.Err); refused {
			return Refused
		}
		return "failed"
	case r.Outcome != nil:
		return r.Outcome.State
	}
	return "failed"
}

// Offer updates package pkg of the downstream repository repo, opened as
// ds (or failing to open with openErr), to up (made ready by Prepare).
func (f *Fanout) Offer(ctx context.Context, up UpstreamRevision, repo string, ds *core.Session, openErr error, pkg string) Result {
	log := up.Session.Log.WithFields(logrus.Fields{"upstream": up.Tag(), "package": up.Package, "downstream": repo, "downstream_package": pkg})
	res := Result{Repo: repo, Package: pkg, Err: openErr}
	if openErr == nil {
		notes := up.notes
		if notes == nil {
			notes = f.NotesSource(ctx, up)
		}
		res.Outcome, res.Err = f.updateOne(ctx, ds, pkg, up, Options{Render: f.Render}, notes)
	}
	state := res.State()
	switch {
	case state == NotOnboarded:
		// A downstream not set up yet is left alone until its
		// onboarding pull request is merged (bot/lifecycle/onboarding).
		log.Info("update skipped: porchbot is not set up in the downstream repository")
	case state == Refused:
		// The flow rule's answer, reported on the downstream commit that
		// asked (flow_check.go): not a failure.
		log.WithError(res.Err).Info("update refused by the flow rule")
	case res.Err != nil:
		log.WithError(res.Err).Warn("update failed")
	}
	if f.Metrics != nil {
		f.Metrics.Outcome(state)
	}
	return res
}

// Upgrade is /porch upgrade: the update of pkg in ds to revision to of its
// upstream (0: the latest), on the same path as a publish's.
func (f *Fanout) Upgrade(ctx context.Context, ds *core.Session, pkg string, to int, opts Options) (*Outcome, *Plan, error) {
	if f == nil || f.Open == nil {
		return nil, nil, core.RequestErrorf("upstream updates are not configured on this server")
	}
	if err := packages.ValidateName(pkg); err != nil {
		return nil, nil, core.RequestErrorf("%v", err)
	}
	up, err := f.upstreamOf(ctx, ds, pkg, to)
	if err != nil {
		return nil, nil, err
	}
	if opts.RequestedBy == "" && f.Hold != nil {
		if why, held := f.Hold(ctx, up, ds.Repo.FullName(), pkg); held {
			ds.Log.WithField("package", pkg).WithField("upstream", up.Tag()).Info("update held by the upstream's rollout: " + why)
			return &Outcome{State: HeldByRollout}, &Plan{Package: pkg, Upstream: up}, nil
		}
	}
	if err := f.updateFlow(ctx, up, ds, rendercheck.PackageDir(ds.Config, pkg), opts.RequestedBy); err != nil {
		return nil, nil, err
	}
	opts.Render = f.Render
	plan, err := PlanUpdate(ctx, ds, pkg, up, opts)
	if err != nil {
		return nil, nil, err
	}
	out, err := f.propose(ctx, ds, plan, f.NotesSource(ctx, up))
	if f.Metrics != nil && err == nil {
		f.Metrics.Outcome(out.State)
	}
	return out, plan, err
}

func (f *Fanout) updateOne(ctx context.Context, ds *core.Session, pkg string, up UpstreamRevision, opts Options, notes func(from, to int) []UpstreamNote) (*Outcome, error) {
	if err := f.updateFlow(ctx, up, ds, rendercheck.PackageDir(ds.Config, pkg), ""); err != nil {
		return nil, err
	}
	plan, err := PlanUpdate(ctx, ds, pkg, up, opts)
	if err != nil {
		return nil, err
	}
	return f.propose(ctx, ds, plan, notes)
}

func (f *Fanout) propose(ctx context.Context, ds *core.Session, plan *Plan, notes func(from, to int) []UpstreamNote) (*Outcome, error) {
	api := f.API(ds)
	if plan.UpToDate {
		if plan.Variant {
			return &Outcome{State: OwnedByVariant, Branch: plan.Branch}, nil
		}
		return &Outcome{State: UpToDate, Branch: plan.Branch}, nil
	}
	if f.Pacer != nil {
		if err := f.Pacer.Wait(ctx, UpdateContentCalls); err != nil {
			return nil, fmt.Errorf("update %s: waiting for GitHub's hourly budget: %w", plan.Package, err)
		}
	}
	return ProposeUpdate(ctx, ds, api, plan, notes(plan.From, plan.Upstream.Revision))
}

// upstreamOf resolves the upstream of package pkg of ds at revision to
// (0: the latest published).
func (f *Fanout) upstreamOf(ctx context.Context, ds *core.Session, pkg string, to int) (UpstreamRevision, error) {
	dir := rendercheck.PackageDir(ds.Config, pkg)
	data, ok, err := ds.ReadFile(ctx, ds.DeploymentHead, dir+"/Kptfile")
	if err != nil {
		return UpstreamRevision{}, err
	}
	if !ok {
		return UpstreamRevision{}, core.RequestErrorf("%s is not a package on %s", mdquote.Code(pkg), mdquote.Code(ds.DeploymentBranch))
	}
	git, err := kptfileUpstream(data)
	if err != nil {
		return UpstreamRevision{}, core.RequestErrorf("%s: %v", mdquote.Code(pkg), err)
	}
	id, err := downstreams.ParseRepoURL(git.Repo)
	if err != nil {
		return UpstreamRevision{}, core.RequestErrorf("%s: the upstream repository %s: %v", mdquote.Code(pkg), mdquote.Code(git.Repo), err)
	}
	owner, repo := id.OwnerName()
	upDir := strings.Trim(git.Directory, "/")
	// The repository on this GitHub (the downstream's host), not one of
	// the same name elsewhere.
	if here, err := downstreams.ParseRepoURL(ds.Git.URL()); err != nil || here.Host != id.Host {
		return UpstreamRevision{}, core.RequestErrorf("%s: its upstream %s is not on this GitHub", mdquote.Code(pkg), mdquote.Code(git.Repo))
	}
	if proposals.CheckRepoName(owner, repo) != nil {
		return UpstreamRevision{}, core.RequestErrorf("%s: the upstream repository %s is not a GitHub repository", mdquote.Code(pkg), mdquote.Code(git.Repo))
	}
	us, err := f.Open(ctx, owner+"/"+repo)
	if err != nil {
		return UpstreamRevision{}, core.RequestErrorf("%s: porchbot cannot read its upstream %s: %v", mdquote.Code(pkg), mdquote.Code(git.Repo), err)
	}
	// Only what the downstream's own installation may read is brought
	// into it: a Kptfile naming a private repository of another
	// installation reads nothing from there (the fan-out's lookup applies
	// the same rule, App.DownstreamsOf).
	if us.Repo.InstallationID != ds.Repo.InstallationID {
		if ds.Hub == nil {
			return UpstreamRevision{}, core.RequestErrorf("%s: its upstream %s belongs to another installation", mdquote.Code(pkg), mdquote.Code(git.Repo))
		}
		if _, err := ds.Hub.GetRepository(ctx, us.Repo.Owner, us.Repo.Name); err != nil {
			return UpstreamRevision{}, core.RequestErrorf("%s: the App's installation on %s cannot read its upstream %s", mdquote.Code(pkg), ds.Repo.FullName(), mdquote.Code(git.Repo))
		}
	}
	upPkg := upDir
	if root := strings.Trim(us.Config.Packages.Root, "/"); root != "" && root != "." {
		upPkg = strings.TrimPrefix(strings.TrimPrefix(upDir, root), "/")
	}
	if to == 0 {
		revs, err := proposals.PublishedRevisions(ctx, us, upPkg)
		if err != nil {
			return UpstreamRevision{}, err
		}
		if len(revs) == 0 {
			return UpstreamRevision{}, core.RequestErrorf("the upstream %s of %s has no published revision", mdquote.Code(upPkg), mdquote.Code(pkg))
		}
		to = packages.Latest(revs)
	}
	return NewUpstreamRevision(ctx, us, upPkg, to)
}

// NotesSource gives the notes of the revisions after from up to to. The
// release the publish just made is known; the upstream's releases are
// listed (once per fan-out) only when a range needs an older one.
func (f *Fanout) NotesSource(ctx context.Context, up UpstreamRevision) func(from, to int) []UpstreamNote {
	byTag := map[string]hub.Release{}
	if up.Release != nil {
		byTag[up.Release.TagName] = *up.Release
	}
	listed := false
	list := func() {
		listed = true
		if f.Releases == nil || up.Session.Hub == nil {
			return
		}
		rels, _, err := f.Releases(up.Session).ListReleases(ctx, up.Session.Repo.Owner, up.Session.Repo.Name, hub.Page{PerPage: 100})
		if err != nil {
			up.Session.Log.WithError(err).Warn("could not list the upstream releases; update pull requests go without release notes")
		}
		for _, r := range rels {
			byTag[r.TagName] = r
		}
	}
	return func(from, to int) []UpstreamNote {
		if from <= 0 || from >= to {
			from = to - 1
		}
		if to-from > 50 {
			from = to - 50
		}
		var out []UpstreamNote
		for n := from + 1; n <= to; n++ {
			tag := packages.TagName(up.Package, n)
			r, ok := byTag[tag]
			if !ok && !listed {
				list()
				r, ok = byTag[tag]
			}
			if !ok {
				continue
			}
			out = append(out, UpstreamNote{Revision: n, Tag: tag, URL: r.HTMLURL, Body: r.Body})
		}
		return out
	}
}

func (f *Fanout) queued(delta int) {
	if f.Metrics != nil {
		f.Metrics.Queued(delta)
	}
}
