package updates

// Upstream updates (SPEC §6): when an upstream package publishes a
// revision, each downstream package that tracks an older one gets an update
// pull request on porch/update/<package> (update_pr.go), made of one commit
// holding kpt's 3-way merge (internal/update) and, where the downstream
// renders on push, the rendered result. This file plans the update of one
// downstream package: the three trees, the merge, the render.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/update"
	"github.com/porchbot/porchbot/internal/variants"
	"github.com/porchbot/porchbot/internal/words"
)

// UpstreamRevision is a published revision of an upstream package, read in
// the upstream repository's session.
type UpstreamRevision struct {
	Session *core.Session
	// Package is the package's name, Dir its path in the repository.
	Package, Dir string
	Revision     int
	Commit       plumbing.Hash
	// Release is the revision's release when the publish just made it
	// (nil: not known here); its notes then cost no call.
	Release *hub.Release
	// Visibility of the repository, when a fan-out read it once for all
	// its downstream packages (Unknown: the flow rule asks).
	Visibility flow.Visibility
	// Downstreams are the visibilities of the fan-out's downstream
	// repositories, by lower-case owner/name, that it learned once for
	// all of them (a repository missing: the flow rule asks).
	Downstreams map[string]flow.Visibility
	// notes are the release notes of a fan-out (Fanout.Prepare; nil:
	// Offer reads them).
	notes func(from, to int) []UpstreamNote
}

// NewUpstreamRevision names revision n of pkg in s (the tag must be in
// s's cache).
func NewUpstreamRevision(ctx context.Context, s *core.Session, pkg string, n int) (UpstreamRevision, error) {
	h, err := s.RevisionCommit(ctx, pkg, n)
	if err != nil {
		if errors.Is(err, gitstore.ErrNotFound) || errors.Is(err, plumbing.ErrReferenceNotFound) {
			return UpstreamRevision{}, core.RequestErrorf("%s has no revision `v%d` of %s", s.Repo.FullName(), n, mdquote.Code(pkg))
		}
		if errors.Is(err, core.ErrNotARevision) {
			return UpstreamRevision{}, s.NotRevisionRequest(pkg, n, err)
		}
		return UpstreamRevision{}, err
	}
	return UpstreamRevision{Session: s, Package: pkg, Dir: core.PackageDir(s.Config.Packages.Root, pkg), Revision: n, Commit: h}, nil
}

// Tag is the revision's tag name.
func (u UpstreamRevision) Tag() string { return packages.TagName(u.Package, u.Revision) }

// RepoURL is the repository as a downstream Kptfile records it (kpt pkg
// get's form: the clone URL without ".git").
func (u UpstreamRevision) RepoURL() string { return strings.TrimSuffix(u.Session.Git.URL(), ".git") }

// Directory is the package directory as a Kptfile records it ("/dir").
func (u UpstreamRevision) Directory() string { return "/" + strings.Trim(u.Dir, "/") }

// Options are the per-request choices of an update.
type Options struct {
	// Strategy overrides updates.strategy and the Kptfile's ("" none).
	Strategy string
	// Render renders the merged package (the downstream renders on push).
	Render rendercheck.RenderOptions
	// RequestedBy names who asked (/porch upgrade), "" for a publish.
	RequestedBy string
	// Mutate, when set, is applied to the merged package before its
	// render: a variant's mutations (variant_update.go), applied again on
	// every update so they never conflict with themselves. With Mutate, a
	// package that already tracks the revision is still proposed when
	// Mutate changes it. Without it, a package a variant of the upstream
	// repository owns is left to the variant (Plan.Variant).
	Mutate func(files map[string][]byte) (map[string][]byte, error)
}

// Plan is the update of one downstream package to one upstream
// revision.
type Plan struct {
	Upstream UpstreamRevision
	// Package and Dir of the downstream package; Branch its update branch.
	Package, Dir, Branch string
	// From is the revision the package tracks (0: unknown), FromRef and
	// FromCommit its upstreamLock's ref and commit.
	From       int
	FromRef    string
	FromCommit plumbing.Hash
	// Base is the deployment-branch commit the update is made on.
	Base plumbing.Hash
	// UpToDate: the package already tracks Upstream or a later revision.
	UpToDate bool
	// Strategy and OnConflict used.
	Strategy, OnConflict string
	// Files is the updated package; nil when the merge was refused
	// (Refused says why: onConflict fail with conflicts, fast-forward
	// over local changes).
	Files     map[string][]byte
	Refused   string
	Conflicts []update.Conflict
	// Resources is what the update changes in the downstream package.
	Resources publish.ResourcesDiff
	// Rendered: the pipeline ran on the merged package; RenderErr is its
	// failure (the merged package is proposed as is, the render check
	// reports it).
	Rendered  bool
	RenderErr error
	// RequestedBy is who asked (/porch upgrade), "" for a publish.
	RequestedBy string
	// Variant: the package is owned by a variant of the upstream
	// repository (porchbot.dev/variant), whose reconcile updates it with
	// its mutations; the plain update leaves it alone.
	Variant bool
	// Set by a variant's update (variant_update.go): Labels are added to
	// the pull request beside porch/proposed and updates.labels, Note is
	// appended to its body, Holds (nil: any) must accept the Kptfile of
	// the update branch's head for that head to count as this update, and
	// Pulls, when not nil, are the repository's recent pull requests,
	// listed already.
	Labels []string
	Note   string
	Holds  func(kptfile []byte) bool
	Pulls  []hub.Pull
}

// merge3 is the merge engine (a variable so lifecycle tests can run before
// the engine exists; production always uses update.Merge).
var merge3 = update.Merge

// PlanUpdate plans the update of the package pkg of the downstream session
// ds to up, on ds's deployment branch head.
func PlanUpdate(ctx context.Context, ds *core.Session, pkg string, up UpstreamRevision, opts Options) (*Plan, error) {
	dir := rendercheck.PackageDir(ds.Config, pkg)
	p := &Plan{Upstream: up, Package: pkg, Dir: dir, Branch: packages.UpdateBranch(pkg), Base: ds.DeploymentHead,
		RequestedBy: opts.RequestedBy}
	local, err := core.LoadPackage(ctx, ds.Git, ds.DeploymentHead, dir)
	if err != nil {
		if errors.Is(err, core.ErrPackageMissing) {
			return nil, core.RequestErrorf("%s is not a package on %s", mdquote.Code(pkg), mdquote.Code(ds.DeploymentBranch))
		}
		return nil, fmt.Errorf("update %s: %w", pkg, err)
	}
	kf, err := kptfile.Parse(local[kptfile.FileName])
	if err != nil {
		return nil, core.RequestErrorf("the Kptfile of %s: %v", mdquote.Code(pkg), err)
	}
	k := kf.Kptfile()
	if k.Upstream == nil || k.Upstream.Git == nil {
		return nil, core.RequestErrorf("%s has no upstream in its Kptfile (`/porch clone` or `kpt pkg get` records one)", mdquote.Code(pkg))
	}
	if k.UpstreamLock == nil || k.UpstreamLock.Git == nil || !plumbing.IsHash(k.UpstreamLock.Git.Commit) {
		return nil, core.RequestErrorf("%s has no upstreamLock commit in its Kptfile: porchbot cannot tell what it was fetched from", mdquote.Code(pkg))
	}
	if opts.Mutate == nil && ownedByVariantOf(kf, up.Session.Repo.FullName()) {
		p.UpToDate, p.Variant = true, true
		return p, nil
	}
	lock := k.UpstreamLock.Git
	p.FromRef, p.FromCommit = lock.Ref, plumbing.NewHash(lock.Commit)
	p.From = LockRevision(up.Package, lock.Ref)
	if p.FromCommit == up.Commit || p.From >= up.Revision {
		if opts.Mutate == nil {
			p.UpToDate = true
			return p, nil
		}
		// A variant whose entry changed: the same revision, mutated again.
		return p.finish(ctx, ds, local, local, opts)
	}
	p.Strategy = FirstNonEmpty(opts.Strategy, ds.Config.Updates.Strategy, k.Upstream.UpdateStrategy)
	p.OnConflict = FirstNonEmpty(ds.Config.Updates.OnConflict, config.ConflictUpstream)

	origin, err := up.Session.Git.ReadTree(ctx, p.FromCommit, up.Dir)
	if err != nil && !errors.Is(err, gitstore.ErrNotFound) {
		return nil, fmt.Errorf("update %s: the upstream at %s: %w", pkg, words.ShortSHA(p.FromCommit.String()), err)
	}
	updated, err := up.Session.Git.ReadTree(ctx, up.Commit, up.Dir)
	if err != nil {
		return nil, fmt.Errorf("update %s: the upstream at %s: %w", pkg, up.Tag(), err)
	}
	newLock := &kptfile.GitLock{Repo: lock.Repo, Directory: lock.Directory, Ref: up.Tag(), Commit: up.Commit.String()}
	res, err := merge3(update.Files(origin), update.Files(updated), update.Files(local),
		update.Options{Strategy: p.Strategy, OnConflict: p.OnConflict, Lock: newLock})
	p.Conflicts = res.Conflicts
	switch {
	case errors.Is(err, update.ErrConflicts):
		p.Refused = fmt.Sprintf("`updates.onConflict` is `fail` and the update conflicts with local changes in %s", words.Count(len(res.Conflicts), "field", "fields"))
		return p, nil
	case errors.Is(err, update.ErrLocalChanges):
		p.Refused = "the `fast-forward` strategy refuses to update a package with local changes"
		return p, nil
	case err != nil:
		return nil, fmt.Errorf("update %s to %s: %w", pkg, up.Tag(), err)
	}
	return p.finish(ctx, ds, local, map[string][]byte(res.Files), opts)
}

// finish applies opts.Mutate to the merged files, renders them when the
// downstream renders on push, and records what they change.
func (p *Plan) finish(ctx context.Context, ds *core.Session, local, files map[string][]byte, opts Options) (*Plan, error) {
	if opts.Mutate != nil {
		var err error
		if files, err = opts.Mutate(files); err != nil {
			return nil, core.RequestErrorf("%s: %v", mdquote.Code(p.Package), err)
		}
		if maps.EqualFunc(files, local, func(a, b []byte) bool { return string(a) == string(b) }) {
			p.UpToDate = true
			return p, nil
		}
	}
	dir := p.Dir
	if commitOnPush(ds.Config) {
		run := &rendercheck.RenderRun{Files: files}
		if err := run.Render(ctx, ds, dir, false, opts.Render); err != nil {
			return nil, err
		}
		p.Rendered = true
		if run.Err != nil {
			p.RenderErr = run.Err
		} else {
			files = run.Out
		}
	}
	p.Files = files
	p.Resources = publish.DiffResources(local, files)
	return p, nil
}

// commitOnPush: the repository commits the rendered result of a push
// (render.onDraftPush: commit), so an update is rendered before it is pushed.
func commitOnPush(cfg *config.Config) bool {
	return cfg == nil || cfg.Render.OnDraftPush != config.OnDraftPushCheck
}

// LockRevision is the revision a lock ref names for upstream package pkg:
// "<pkg>/vN" as porchbot and kpt record it, or the short "vN" of kpt pkg
// get app@vN; 0 for a branch or a commit. pkg "" takes any package's tag.
func LockRevision(pkg, ref string) int {
	if p, n, ok := packages.ParseTagName(ref); ok && (p == pkg || pkg == "") {
		return n
	}
	if n, ok := packages.ParseRevision(ref); ok {
		return n
	}
	return 0
}

func FirstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// kptfileUpstream is the upstream.git a Kptfile names.
func kptfileUpstream(data []byte) (*kptfile.Git, error) {
	kf, err := kptfile.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("Kptfile: %w", err)
	}
	if u := kf.Kptfile().Upstream; u != nil && u.Git != nil && u.Git.Repo != "" {
		return u.Git, nil
	}
	return nil, errors.New("the Kptfile names no upstream (`/porch clone` or `kpt pkg get` records one)")
}

// ownedByVariantOf reports whether the Kptfile names a variant of the
// upstream repository as its owner.
func ownedByVariantOf(kf *kptfile.File, upstream string) bool {
	own, _ := variants.Owned(kf.Kptfile())
	return own != nil && strings.EqualFold(own.Upstream, upstream)
}
