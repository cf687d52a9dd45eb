package resync

// Repository: the periodic reconcile of one repository (SPEC §10), repairing
// what lost webhooks or crashes left undone:
//
//   - with publishOn: merge, merged-but-untagged landings on the deployment
//     branch are published, package by package, oldest first, through the
//     same compare-and-swap as Publish (so replicas resyncing at once, or
//     racing an event handler, still make one tag per landing);
//   - a landing without a pull request that waits for an approver's
//     /porch publish gets its porchbot/publish check run if it has none;
//   - with lifecycle.releases, the latest revision of each package gets its
//     missing release (a crash between tag and release);
//   - draft branches whose head has no porchbot/render check run are handed
//     to Hooks.RenderDraft (one check-runs call per draft, bounded);
//   - open pull requests into the deployment branch are handed to
//     Hooks.EvaluateProposal (proposals, labelled or not yet);
//   - recent /porch comments with no reply are answered
//     (CommandHooks, resync_commands.go);
//   - the dashboard issue is opened if missing (DashboardHook).
//
// Nothing is remembered between runs: everything is decided from the git
// cache (fetched when the Session was opened) and GitHub. With nothing to do
// a run costs the fetch, the walk of the cache, one releases call (with
// releases), one pull request list and one call per draft (with hooks), and
// one comment list per 100 recent comments (with command hooks).

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/dashboard"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/index"
	"github.com/porchbot/porchbot/internal/packages"
)

// Repository defaults.
const (
	DefaultInterval        = 10 * time.Minute
	DefaultRepoTimeout     = 5 * time.Minute
	defaultResyncMaxDrafts = 20
	defaultResyncMaxPRs    = 50
	resyncRenderCheck      = "porchbot/render"
)

// Hooks re-evaluate drafts and proposals; the lead's render and
// approval steps implement them.
type Hooks interface {
	// RenderDraft renders a draft branch whose head has no render check.
	RenderDraft(ctx context.Context, s *core.Session, branch string, head plumbing.Hash) error
	// EvaluateProposal re-evaluates an open proposal (checks, approval).
	EvaluateProposal(ctx context.Context, s *core.Session, pr hub.Pull) error
}

// DashboardHook, when the hooks implement it, opens the repository's
// dashboard issue if missing and refreshes it (dashboard_issue.go).
type DashboardHook interface {
	EnsureDashboard(ctx context.Context, s *core.Session) error
}

// Pulls is the pull request list call (a part of s.Hub).
type Pulls interface {
	ListPulls(ctx context.Context, owner, repo string, q hub.PullQuery) ([]hub.Pull, hub.Next, error)
}

// API is what a resync needs from GitHub.
type API struct {
	Publish publish.API
	Checks  publish.ResyncChecks
	Pulls   Pulls
	// Issues lists the dashboards, to prove a repository has no open pull
	// request (open_pulls.go); nil: the pull requests are listed.
	Issues dashboard.Issues
}

// NewAPI is the API of an installation's API.
func NewAPI(api hub.API) API {
	return API{Publish: publish.NewAPI(api), Checks: api, Pulls: api, Issues: api}
}

// Deps tune Repository and Loop.
type Deps struct {
	// Hooks re-evaluate drafts and proposals; nil skips both.
	Hooks Hooks
	// RenderCheckName is the check run a rendered draft head carries
	// (default "porchbot/render"); AppID, if set, counts only this App's.
	RenderCheckName string
	AppID           int64
	// MaxDrafts bounds the drafts looked at per run, most recent heads
	// first (default 20); MaxProposals the proposals (default 50).
	MaxDrafts    int
	MaxProposals int

	// For Loop:
	// API builds the API of a session (default NewAPI(s.Hub)).
	API func(*core.Session) API
	// RepoTimeout bounds one repository's run (default 5 minutes).
	RepoTimeout time.Duration
	Logger      logrus.FieldLogger
	// OnReport, if set, receives every repository's result.
	OnReport func(core.Repo, *Report, error)
	// Concurrency is how many repositories a pass works on at once
	// (default DefaultConcurrency).
	Concurrency int
	// LowBudget, if set, says whether an installation's REST budget is too
	// low for the resync: its repositories are then left for the next pass
	// (user-facing work first), and OnYield hears of each.
	LowBudget func(installationID int64) bool
	OnYield   func(core.Repo)
	// BeforePass, if set, runs at the start of each pass (the service asks
	// GitHub to redeliver the App's failed webhooks: internal/redeliver).
	BeforePass func(ctx context.Context)
}

// DefaultConcurrency is how many repositories a pass works on at
// once: a quiet repository is mostly waiting for GitHub's 304s and the git
// ref advertisement, so a few at once keep the pass short.
const DefaultConcurrency = 4

// Report is what one run did.
type Report struct {
	Repo string
	// Head is the deployment branch's head the run worked up to.
	Head             plumbing.Hash
	Published        []publish.PublishedRevision
	Refused          []publish.RefusedLanding
	Superseded       []string
	Races            int
	ReleasesRepaired []string
	DraftsChecked    int
	DraftsRendered   []string
	// DraftsOverLimit were left for a later run (MaxDrafts).
	DraftsOverLimit    int
	ProposalsEvaluated []int
	// CommandsAnswered are the /porch comments answered (CommandHooks).
	CommandsAnswered []int64
	// IndexUpdated: the package index was missing or stale and was pushed.
	IndexUpdated bool
	// Errors are the failures the run went past (a package, a hook).
	Errors []error
}

// Repository reconciles one repository (see the file comment). It goes past
// the failure of one package, draft or proposal, and returns them all
// joined after doing the rest.
func Repository(ctx context.Context, s *core.Session, api API, deps Deps) (*Report, error) {
	rep := &Report{Repo: s.Repo.FullName(), Head: s.DeploymentHead}
	log := s.Log.WithField("step", "resync")
	if s.DeploymentHead.IsZero() {
		// An empty repository: the registry learns it tracks nothing.
		return rep, resyncDownstreams(ctx, s, deps)
	}
	out := &publish.Outcome{Commit: s.DeploymentHead}
	p := publish.NewPublisher(s, api.Publish, out, false)
	p.Log = log

	var atHead []string
	if err := s.Git.With(ctx, func(repo *git.Repository) error {
		var err error
		atHead, err = s.Walker(ctx, repo).TopLevelPackages(s.DeploymentHead)
		return err
	}); err != nil {
		return rep, fmt.Errorf("resync %s: %w", rep.Repo, err)
	}

	if s.Config.Lifecycle.PublishOn == config.PublishOnMerge {
		tags, err := core.ReadRevisionTags(ctx, s)
		if err != nil {
			return rep, fmt.Errorf("resync %s: %w", rep.Repo, err)
		}
		hists, err := core.UntaggedLandings(ctx, s, s.DeploymentHead, tags)
		if err != nil {
			return rep, fmt.Errorf("resync %s: %w", rep.Repo, err)
		}
		for _, h := range hists {
			if err := p.PublishPackage(ctx, h.Package, s.DeploymentHead, nil, false); err != nil {
				rep.Errors = append(rep.Errors, err)
				log.WithError(err).WithField("package", h.Package).Warn("resync: publishing failed")
			}
		}
		if err := p.ResyncAwaitingChecks(ctx, api.Checks, deps.AppID, out.Refused); err != nil {
			rep.Errors = append(rep.Errors, err)
			log.WithError(err).Warn("resync: marking direct pushes failed")
		}
		if s.Config.Lifecycle.Releases {
			if err := repairReleases(ctx, p, atHead, rep); err != nil {
				rep.Errors = append(rep.Errors, err)
				log.WithError(err).Warn("resync: release repair failed")
			}
		}
	}
	rep.Published, rep.Refused, rep.Superseded, rep.Races = out.Published, out.Refused, out.Superseded, out.Races
	// The package index: rebuilt when missing or stale (a lost push, a
	// moved tag), with what this run published.
	if pushed, err := p.RecordIndex(ctx); err != nil {
		rep.Errors = append(rep.Errors, err)
		log.WithError(err).Warn("resync: package index not updated")
	} else {
		rep.IndexUpdated = pushed
	}

	if deps.Hooks != nil {
		if err := proveNoOpenPulls(ctx, s, api.Issues); err != nil {
			rep.Errors = append(rep.Errors, err)
		}
		if err := resyncDrafts(ctx, s, api, deps, rep); err != nil {
			rep.Errors = append(rep.Errors, err)
		}
		if err := resyncProposals(ctx, s, api, deps, rep); err != nil {
			rep.Errors = append(rep.Errors, err)
		}
		if err := resyncCommands(ctx, s, deps, rep); err != nil {
			rep.Errors = append(rep.Errors, err)
		}
		if err := resyncDownstreams(ctx, s, deps); err != nil {
			rep.Errors = append(rep.Errors, err)
		}
		if err := resyncUpdates(ctx, s, deps); err != nil {
			rep.Errors = append(rep.Errors, err)
		}
		if err := resyncVariants(ctx, s, deps); err != nil {
			rep.Errors = append(rep.Errors, err)
		}
		if err := resyncRollouts(ctx, s, deps); err != nil {
			rep.Errors = append(rep.Errors, err)
		}
		if d, ok := deps.Hooks.(DashboardHook); ok {
			if err := d.EnsureDashboard(ctx, s); err != nil {
				rep.Errors = append(rep.Errors, err)
				log.WithError(err).Warn("resync: dashboard not synced")
			}
		}
	}
	log.WithFields(logrus.Fields{"published": out.Tags(), "refused": len(rep.Refused), "races": rep.Races,
		"releases_repaired": rep.ReleasesRepaired, "drafts_checked": rep.DraftsChecked,
		"drafts_rendered": len(rep.DraftsRendered), "proposals": len(rep.ProposalsEvaluated),
		"errors": len(rep.Errors)}).Info("resync done")
	return rep, errors.Join(rep.Errors...)
}

// repairReleases creates the missing release of each package's latest
// revision (packages at the head only). One list call: the newest 100
// releases. When the repository has more, a tag whose commit is older than
// the oldest listed release is assumed to have its release.
func repairReleases(ctx context.Context, p *publish.Publisher, atHead []string, rep *Report) error {
	tags, err := core.ReadRevisionTags(ctx, p.Session)
	if err != nil {
		return err
	}
	published := tags.Published() // a tag porchbot did not make gets no release
	if recent, err := recentRevisions(ctx, p, atHead, published); err != nil || !recent {
		return err // every latest revision is older than the horizon: its release was made or repaired then
	}
	owner, repo := p.Owner()
	rels, _, err := p.API.Releases.ListReleases(ctx, owner, repo, hub.Page{PerPage: 100})
	if err != nil {
		return fmt.Errorf("list releases: %w", err)
	}
	have := map[string]bool{}
	var oldest time.Time
	for _, r := range rels {
		have[r.TagName] = true
		if t := r.CreatedAt; oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
	}
	full := len(rels) >= 100
	var errs []error
	for _, pkg := range atHead {
		n, commit := published.Latest(pkg)
		if n == 0 || have[packages.TagName(pkg, n)] {
			continue
		}
		if full {
			c, err := commitTime(ctx, p, commit)
			if err != nil || c.Before(oldest) {
				continue
			}
		}
		pr, err := p.LookupPR(ctx, commit)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		l := core.Landing{Package: pkg, Dir: core.PackageDir(p.Session.Config.Packages.Root, pkg), Commit: commit}
		rel, err := p.Release(ctx, tags, l, n, publish.LandingVerdict{PR: pr})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if rel != nil {
			p.Repaired = append(p.Repaired, rel)
			rep.ReleasesRepaired = append(rep.ReleasesRepaired, packages.TagName(pkg, n))
			p.Log.WithField("tag", packages.TagName(pkg, n)).Info("resync: missing release created")
		}
	}
	return errors.Join(errs...)
}

// releaseRepairHorizon is how long after its tag a revision's missing
// release is looked for: a crash between tag and release is repaired by
// the passes that follow it, and a repository whose latest revisions are
// all older costs no release listing (a new replica's first pass included).
const releaseRepairHorizon = 24 * time.Hour

// recentRevisions: was the latest revision of one of pkgs tagged within
// releaseRepairHorizon (the annotated tag's date, as the index reads it)?
func recentRevisions(ctx context.Context, p *publish.Publisher, pkgs []string, published core.RevisionTags) (bool, error) {
	since := time.Now().Add(-releaseRepairHorizon)
	recent := false
	err := p.Session.Git.With(ctx, func(r *git.Repository) error {
		for _, pkg := range pkgs {
			n, commit := published.Latest(pkg)
			if n == 0 {
				continue
			}
			if t := publish.PublishedTagTime(r, index.Tag{Package: pkg, Revision: n, Commit: commit.String()}); t.IsZero() || t.After(since) {
				recent = true
				return nil
			}
		}
		return nil
	})
	return recent, err
}

func commitTime(ctx context.Context, p *publish.Publisher, h plumbing.Hash) (time.Time, error) {
	var t time.Time
	err := p.Session.Git.With(ctx, func(repo *git.Repository) error {
		c, err := core.NewLandingWalker(ctx, repo, "").Commit(h)
		if err == nil {
			t = c.Committer.When
		}
		return err
	})
	return t, err
}

// resyncDraft is a draft branch head.
type resyncDraft struct {
	branch string
	head   plumbing.Hash
	when   time.Time
}

// resyncDrafts renders the draft heads that have no render check run.
func resyncDrafts(ctx context.Context, s *core.Session, api API, deps Deps, rep *Report) error {
	branches, err := s.DraftBranches(ctx)
	if err != nil {
		return err
	}
	var drafts []resyncDraft
	err = s.Git.With(ctx, func(repo *git.Repository) error {
		w := s.Walker(ctx, repo)
		merged, err := resyncMergedHeads(w, s.DeploymentHead)
		if err != nil {
			return err
		}
		for _, d := range branches {
			if merged[d.Head] {
				continue
			}
			st, err := w.State(d.Head, core.PackageDir(s.Config.Packages.Root, d.Package))
			if err != nil {
				if errors.Is(err, core.ErrLandingCommitMissing) {
					continue
				}
				return err
			}
			if !st.Exists() {
				continue // a deletion draft: nothing to render
			}
			c, err := w.Commit(d.Head)
			if err != nil {
				return err
			}
			drafts = append(drafts, resyncDraft{branch: d.Branch, head: d.Head, when: c.Committer.When})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list drafts: %w", err)
	}
	sort.Slice(drafts, func(i, j int) bool { return drafts[i].when.After(drafts[j].when) })
	limit := deps.MaxDrafts
	if limit <= 0 {
		limit = defaultResyncMaxDrafts
	}
	if len(drafts) > limit {
		rep.DraftsOverLimit = len(drafts) - limit
		drafts = drafts[:limit]
	}
	name := deps.RenderCheckName
	if name == "" {
		name = resyncRenderCheck
	}
	var errs []error
	for _, d := range drafts {
		opts := hub.CheckQuery{Name: name, Page: hub.Page{PerPage: 20}}
		if deps.AppID != 0 {
			opts.AppID = deps.AppID
		}
		res, _, err := api.Checks.ListCheckRuns(ctx, s.Repo.Owner, s.Repo.Name, d.head.String(), opts)
		rep.DraftsChecked++
		if err != nil {
			errs = append(errs, fmt.Errorf("check runs of %s: %w", d.branch, err))
			continue
		}
		if !rendercheck.RenderWanted(res.Runs) {
			continue // rendered, or quarantined (MaxRenderAttempts)
		}
		if err := deps.Hooks.RenderDraft(ctx, s, d.branch, d.head); err != nil {
			errs = append(errs, fmt.Errorf("render %s: %w", d.branch, err))
			s.Log.WithError(err).WithField("ref", d.branch).Warn("resync: render failed")
			continue
		}
		rep.DraftsRendered = append(rep.DraftsRendered, d.branch)
	}
	return errors.Join(errs...)
}

// resyncMergedHeads are the commits of the deployment branch's recent
// first-parent history and their merged parents: draft heads among them
// are merged, not rendered again.
func resyncMergedHeads(w *core.LandingWalker, head plumbing.Hash) (map[plumbing.Hash]bool, error) {
	out := map[plumbing.Hash]bool{}
	x := head
	for range proposals.ResyncMergedWindow {
		if x.IsZero() {
			break
		}
		c, err := w.Commit(x)
		if err != nil {
			return nil, err
		}
		for _, p := range c.ParentHashes {
			out[p] = true
		}
		out[x] = true
		x = core.LandingFirstParent(c)
	}
	return out, nil
}

// resyncProposals hands every open pull request into the deployment
// branch to EvaluateProposal, which judges the proposals among them
// (labelled or not yet: a lost opened webhook is repaired).
func resyncProposals(ctx context.Context, s *core.Session, api API, deps Deps, rep *Report) error {
	limit := deps.MaxProposals
	if limit <= 0 {
		limit = defaultResyncMaxPRs
	}
	if s.NoOpenPulls {
		return nil
	}
	all, _, err := api.Pulls.ListPulls(ctx, s.Repo.Owner, s.Repo.Name, proposals.OpenPullsOptions())
	if err != nil {
		return fmt.Errorf("list proposals: %w", err)
	}
	var prs []hub.Pull
	for _, pr := range all {
		if pr.Base.Ref == s.DeploymentBranch {
			prs = append(prs, pr)
		}
	}
	// The most recently updated first: those are evaluated within the limit.
	sort.SliceStable(prs, func(i, j int) bool { return prs[i].UpdatedAt.After(prs[j].UpdatedAt) })
	var errs []error
	for _, pr := range prs {
		if len(rep.ProposalsEvaluated) >= limit {
			break
		}
		// A pull request whose opened webhook was lost is no labelled
		// proposal yet: it is one if it changes a package (git cache, no
		// call; a fork's head is fetched by the hook).
		if ok, err := resyncIsProposal(ctx, s, pr); err != nil || !ok {
			if err != nil {
				errs = append(errs, fmt.Errorf("changes of #%d: %w", pr.Number, err))
			}
			continue
		}
		if err := deps.Hooks.EvaluateProposal(ctx, s, pr); err != nil {
			errs = append(errs, fmt.Errorf("evaluate #%d: %w", pr.Number, err))
			s.Log.WithError(err).WithField("pull_request", pr.Number).Warn("resync: proposal evaluation failed")
			continue
		}
		rep.ProposalsEvaluated = append(rep.ProposalsEvaluated, pr.Number)
	}
	return errors.Join(errs...)
}

// resyncIsProposal: pr is a draft's, labelled as a proposal, from a fork
// (the hook decides), or its head changes a package.
func resyncIsProposal(ctx context.Context, s *core.Session, pr hub.Pull) (bool, error) {
	_, _, draft := packages.ParseDraftBranchName(pr.Head.Ref)
	if draft || proposals.DeletionHasLabel(pr, packages.LabelProposed) || proposals.DeletionHasLabel(pr, packages.LabelDeletionProposed) ||
		rendercheck.IsForkPullRequest(s.Repo, pr) {
		return true, nil
	}
	if !approval.IntoDeployment(s, pr) {
		return false, nil
	}
	if err := approval.EnsurePullRequestHead(ctx, s, pr); err != nil {
		return false, err
	}
	changes, err := approval.ProposalChanges(ctx, s, pr)
	return len(changes) > 0, err
}

// Loop resyncs every repository listRepos returns, one after the
// other, every interval (±20 % jitter, the first pass after up to a tenth
// of it, so replicas spread out), until ctx ends; then it returns nil. A
// repository's failure (open, resync, even a panic) is logged and does not
// stop the loop; each repository gets deps.RepoTimeout.
func Loop(ctx context.Context, interval time.Duration, listRepos func(context.Context) ([]core.Repo, error),
	open func(context.Context, core.Repo) (*core.Session, error), deps Deps) error {
	if interval <= 0 {
		interval = DefaultInterval
	}
	wait := time.Duration(rand.Float64() * float64(interval) / 10)
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		Pass(ctx, listRepos, open, deps)
		if ctx.Err() != nil {
			return nil
		}
		wait = time.Duration(float64(interval) * (0.8 + 0.4*rand.Float64()))
	}
}

// Pass is one pass of Loop: every repository listRepos
// returns, one after the other; a repository's failure is logged and the
// pass goes on. It returns the repositories it listed.
func Pass(ctx context.Context, listRepos func(context.Context) ([]core.Repo, error),
	open func(context.Context, core.Repo) (*core.Session, error), deps Deps) []core.Repo {
	log := deps.Logger
	if log == nil {
		log = logrus.StandardLogger()
	}
	log = log.WithField("component", "resync")
	start := time.Now()
	if deps.BeforePass != nil {
		deps.BeforePass(ctx)
	}
	repos, err := listRepos(ctx)
	if err != nil {
		log.WithError(err).Warn("resync: listing repositories failed")
	}
	workers := deps.Concurrency
	if workers <= 0 {
		workers = DefaultConcurrency
	}
	next := make(chan core.Repo)
	var wg sync.WaitGroup
	var yielded atomic.Int64
	for range min(workers, max(len(repos), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				if deps.LowBudget != nil && deps.LowBudget(r.InstallationID) {
					yielded.Add(1)
					if deps.OnYield != nil {
						deps.OnYield(r)
					}
					continue
				}
				resyncOne(ctx, r, open, deps, log)
			}
		}()
	}
	for _, r := range repos {
		if ctx.Err() != nil {
			break
		}
		next <- r
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return repos
	}
	if h, ok := deps.Hooks.(PassHooks); ok && err == nil && yielded.Load() == 0 {
		h.ResyncPassDone(repos)
	}
	fields := logrus.Fields{"repositories": len(repos), "duration": time.Since(start).String()}
	if n := yielded.Load(); n > 0 {
		fields["yielded"] = n
		log.WithFields(fields).Warn("resync pass done; repositories left for the next pass: their installation's REST budget is low (user-facing work first)")
		return repos
	}
	log.WithFields(fields).Info("resync pass done")
	return repos
}

// resyncOne runs one repository, containing its failures.
func resyncOne(ctx context.Context, r core.Repo, open func(context.Context, core.Repo) (*core.Session, error), deps Deps, log logrus.FieldLogger) {
	log = log.WithField("repository", r.FullName())
	timeout := deps.RepoTimeout
	if timeout <= 0 {
		timeout = DefaultRepoTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var (
		rep *Report
		err error
	)
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("resync %s: panic: %v", r.FullName(), v)
			log.WithField("stack", string(debug.Stack())).Error(err)
		}
		if deps.OnReport != nil {
			deps.OnReport(r, rep, err)
		}
	}()
	s, err := open(ctx, r)
	if errors.Is(err, core.ErrNotOnboarded) {
		log.Debug("resync: porchbot is not set up in the repository (its onboarding pull request is open, or was closed)")
		err = nil
		return
	}
	if err != nil {
		log.WithError(err).Warn("resync: opening the repository failed")
		return
	}
	var api API
	if deps.API != nil {
		api = deps.API(s)
	} else {
		api = NewAPI(s.Hub)
	}
	rep, err = Repository(ctx, s, api, deps)
	if err != nil {
		log.WithError(err).Warn("resync finished with errors")
	}
}
