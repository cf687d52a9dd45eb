package variant

// The facts a variant plan is made from: the upstream's published
// revisions, the repositories of the upstream's installation (with their
// topics), and for each target its packages with their ownership
// annotations and porchbot's pull requests of variant work there. Targets
// are the repositories of the upstream's own installation only: a
// repository of another account is never written to because a catalog
// names it or shares a topic with it.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/variants"
)

// Bounds of one reconcile.
const (
	// maxVariantTargets is how many target repositories one reconcile
	// looks at; the rest are reported failed, for a later run.
	maxVariantTargets = 1000
)

// Workspaces of the variants' drafts.
const (
	variantWorkspace = "variant"        // drafts/<pkg>/variant: the clone
	orphanWorkspace  = "variant-orphan" // drafts/<pkg>/variant-orphan: the ownership removed
)

// variantFacts are the upstream's facts of one reconcile, and those of
// the target being worked on (one at a time: a reconcile over a thousand
// targets holds one target's session).
type variantFacts struct {
	src variants.Source
	// upstream revisions: what a publish just made (commit and release
	// known), by package; the release notes of each revision.
	published map[string]publish.PublishedRevision
	notes     map[string]func(from, to int) []updates.UpstreamNote
	// targets to look at, in order.
	todo []variantTarget
	// repos are the installation's repositories (by lower-case name);
	// entryAt the configuration commit of each entry (variant_flow.go).
	repos   map[string]updates.InstalledRepo
	entryAt map[int]plumbing.Hash
	// The current target: its session and recent pull requests (any state).
	session *core.Session
	pulls   []hub.Pull
}

// variantTarget is a repository to look at.
type variantTarget struct {
	name string
	// repo is set when it is in the upstream's installation.
	repo *updates.InstalledRepo
	// onlyOwned: not targeted by an entry, looked at only for packages
	// this upstream owns (removals).
	onlyOwned bool
	// err is why it is not looked at.
	err error
}

// prepare reads the upstream's facts and lists the targets.
func (c *Controller) prepare(ctx context.Context, up *core.Session, published []publish.PublishedRevision) (*variantFacts, error) {
	f := &variantFacts{src: variants.Source{Repo: up.Repo.FullName(), Variants: up.Config.Variants, Latest: map[string]int{}},
		published: map[string]publish.PublishedRevision{}, notes: map[string]func(int, int) []updates.UpstreamNote{}}
	for _, r := range published {
		f.published[r.Package] = r
	}
	upPkgs := map[string]bool{}
	for _, v := range up.Config.Variants {
		upPkgs[v.Upstream.Package] = true
	}
	for _, pkg := range core.SortedPaths(upPkgs) {
		revs, err := proposals.PublishedRevisions(ctx, up, pkg)
		if err != nil {
			return nil, err
		}
		f.src.Latest[pkg] = max(packages.Latest(revs), f.published[pkg].Revision)
	}
	candidates := c.candidates(ctx, up, upPkgs)
	if len(up.Config.Variants) == 0 && len(candidates) == 0 {
		return f, nil
	}
	installed, err := c.installed(ctx, up)
	if err != nil {
		return nil, err
	}
	f.repos = installed
	wanted := map[string]string{} // lower → as written ("?" first: only for what this upstream owns)
	for _, v := range up.Config.Variants {
		for _, r := range v.Targets.Repositories {
			wanted[strings.ToLower(r)] = r
		}
		if v.Targets.Topic == "" {
			continue
		}
		for k, ir := range installed {
			if slices.ContainsFunc(ir.Topics, func(t string) bool { return strings.EqualFold(t, v.Targets.Topic) }) {
				wanted[k] = ir.Repo.FullName()
			}
		}
	}
	for _, r := range candidates {
		if _, ok := wanted[strings.ToLower(r)]; !ok {
			wanted[strings.ToLower(r)] = "?" + r
		}
	}
	n := 0
	for _, k := range core.SortedPaths(wanted) {
		name, onlyOwned := strings.CutPrefix(wanted[k], "?")
		ir, ok := installed[k]
		switch {
		case !ok || strings.EqualFold(name, up.Repo.FullName()):
			if !onlyOwned {
				f.todo = append(f.todo, variantTarget{name: name, err: fmt.Errorf("%s is not a repository of the installation of %s: "+
					"a variant writes only to repositories of its own installation", name, up.Repo.FullName())})
			}
			continue
		case n >= maxVariantTargets:
			f.todo = append(f.todo, variantTarget{name: ir.Repo.FullName(),
				err: fmt.Errorf("more than %d target repositories: left for the next run", maxVariantTargets)})
			continue
		}
		n++
		f.todo = append(f.todo, variantTarget{name: ir.Repo.FullName(), repo: &ir, onlyOwned: onlyOwned})
	}
	return f, nil
}

// candidates are the repositories whose packages track one of the
// upstream's packages (the entries' and those at its deployment head).
func (c *Controller) candidates(ctx context.Context, up *core.Session, upPkgs map[string]bool) []string {
	if c.Finder == nil {
		return nil
	}
	pkgs := map[string]bool{}
	for p := range upPkgs {
		pkgs[p] = true
	}
	names, _ := up.TopLevelPackages(ctx)
	for _, n := range names {
		pkgs[n] = true
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range core.SortedPaths(pkgs) {
		for _, d := range c.Finder.DownstreamsOf(ctx, up.Repo, "/"+core.PackageDir(up.Config.Packages.Root, p)) {
			if !seen[strings.ToLower(d.Repo)] {
				seen[strings.ToLower(d.Repo)] = true
				out = append(out, d.Repo)
			}
		}
	}
	return out
}

// installed lists the repositories of up's installation, by lower-case
// owner/name.
func (c *Controller) installed(ctx context.Context, up *core.Session) (map[string]updates.InstalledRepo, error) {
	return updates.ListInstallation(ctx, up, c.Repos, c.Flows, nil)
}

// target opens one installed repository and reads its facts. With
// onlyOwned, a repository holding no package this upstream owns gives nil
// (no call spent on it).
func (c *Controller) target(ctx context.Context, up *core.Session, f *variantFacts, ir updates.InstalledRepo, onlyOwned bool) (*variants.Target, error) {
	ds, err := c.Open(ctx, ir.Repo)
	if err != nil {
		return nil, err
	}
	t := &variants.Target{Repo: ds.Repo.FullName(), Installed: true, Topics: ir.Topics, Packages: map[string]variants.Package{},
		Limit: ds.Config.Updates.PRConcurrentLimit}
	names, err := ds.TopLevelPackages(ctx)
	if err != nil {
		return nil, err
	}
	owned := false
	for _, n := range names {
		p, err := readVariantPackage(ctx, ds, ds.DeploymentHead, n)
		if err != nil {
			continue // an unreadable Kptfile: not a variant's
		}
		if p.Owner != nil && strings.EqualFold(p.Owner.Upstream, up.Repo.FullName()) {
			owned = true
		}
		t.Packages[n] = p
	}
	if onlyOwned && !owned {
		return nil, nil
	}
	f.session = ds
	api := c.Updates.API(ds)
	if quiet, err := noBotBranches(ctx, ds); err != nil {
		return nil, err
	} else if quiet {
		// No porchbot branch: no open pull request of porchbot's (GitHub
		// closes one whose head branch is deleted), nothing declined that
		// a clone could meet again. An update lists the pull requests itself.
		return t, nil
	}
	prs, _, err := api.Proposal.Pulls.ListPulls(ctx, ds.Repo.Owner, ds.Repo.Name, hub.PullQuery{State: "all",
		Base: ds.DeploymentBranch, Page: hub.Page{PerPage: 100}})
	if err != nil {
		return nil, fmt.Errorf("list pull requests of %s: %w", t.Repo, err)
	}
	f.pulls = prs
	for _, pr := range prs {
		if pr.State != "open" || !api.Proposal.IsBot(pr.User) || rendercheck.IsForkPullRequest(ds.Repo, pr) {
			continue
		}
		p, ok := variantProposal(ctx, ds, pr)
		if !ok {
			continue
		}
		t.Busy++
		t.Open = append(t.Open, p)
	}
	return t, nil
}

// variantProposal reads what porchbot's open pull request pr brings, from
// its branch name and the Kptfile at its head.
func variantProposal(ctx context.Context, ds *core.Session, pr hub.Pull) (variants.Proposal, bool) {
	head := pr.Head.Ref
	p := variants.Proposal{Number: pr.Number}
	if pkg, ok := packages.ParseUpdateBranchName(head); ok {
		p.Package, p.Kind = pkg, variants.Update
	} else if pkg, ws, ok := packages.ParseDraftBranchName(head); ok {
		p.Package = pkg
		switch ws {
		case variantWorkspace:
			p.Kind = variants.Clone
		case orphanWorkspace:
			p.Kind = variants.Orphan
		case proposals.DeletionWorkspace:
			p.Kind = variants.Delete
		default:
			return p, false
		}
	} else {
		return p, false
	}
	sha := pr.Head.SHA
	if !plumbing.IsHash(sha) {
		return p, true
	}
	if got, err := readVariantPackage(ctx, ds, plumbing.NewHash(sha), p.Package); err == nil {
		if got.Owner != nil {
			p.Owner = *got.Owner
		}
		p.Revision, p.Spec = got.Revision, got.Spec
	}
	return p, true
}

// readVariantPackage reads the ownership and tracked revision of package
// pkg at commit.
func readVariantPackage(ctx context.Context, ds *core.Session, commit plumbing.Hash, pkg string) (variants.Package, error) {
	data, ok, err := ds.ReadFile(ctx, commit, rendercheck.PackageDir(ds.Config, pkg)+"/"+kptfile.FileName)
	if err != nil || !ok {
		return variants.Package{}, fmt.Errorf("no Kptfile of %s at %s: %v", pkg, commit, err)
	}
	kf, err := kptfile.Parse(data)
	if err != nil {
		return variants.Package{}, err
	}
	var p variants.Package
	p.Owner, p.Spec = variants.Owned(kf.Kptfile())
	if l := kf.Kptfile().UpstreamLock; l != nil && l.Git != nil {
		pkgName := ""
		if p.Owner != nil {
			pkgName = p.Owner.Package
		}
		p.Revision = updates.LockRevision(pkgName, l.Git.Ref)
	}
	return p, nil
}

// noBotBranches says the session's cache holds no branch porchbot opens
// pull requests from (drafts/…, porch/update/…): a target where porchbot
// has never proposed anything, as the git fetch the session made shows.
func noBotBranches(ctx context.Context, ds *core.Session) (bool, error) {
	for _, prefix := range packages.BotBranchPrefixes() {
		refs, err := ds.Git.ListRefs(ctx, "refs/remotes/origin/"+prefix)
		if err != nil {
			return false, fmt.Errorf("branches of %s: %w", ds.Repo.FullName(), err)
		}
		if len(refs) > 0 {
			return false, nil
		}
	}
	return true, nil
}
