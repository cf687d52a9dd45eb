package proposals

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/packages"
)

// Bounds of List.
const (
	// listPullsPerPage is the page size of the open pull request listing.
	listPullsPerPage = 100
	// listMaxPullPages bounds the pages read (the first answers nearly
	// every repository in one call).
	listMaxPullPages = 3
	// maxTreePaths bounds the paths walked in one tree.
	maxTreePaths = 200_000
)

// Listing is a repository's packages and work in progress, for /porch list
// and the dashboard.
type Listing struct {
	// DeploymentBranch is the branch packages were read from.
	DeploymentBranch string
	// Packages are the top-level packages on the deployment branch and the
	// packages that only have tags left (deleted), sorted by name.
	Packages []PackageStatus
	// Drafts are the draft branches, sorted by package then workspace.
	Drafts []DraftStatus
	// Proposals are open pull requests labelled porch/proposed.
	Proposals []PullStatus
	// Deletions are open pull requests labelled porch/deletion-proposed.
	Deletions []PullStatus
	// Updates are open pull requests from porch/update/<package> branches.
	Updates []PullStatus
	// PullsTruncated reports more open pull requests than List reads.
	PullsTruncated bool
	// Unverified are the <pkg>/v<N> tags that are not revisions porchbot
	// published (revision_adopt.go): nothing is derived from them.
	Unverified []core.UnverifiedTag
}

// PackageStatus is one package.
type PackageStatus struct {
	Name string
	// Dir is the directory on the deployment branch ("" when the package
	// is no longer there).
	Dir string
	// Latest is the highest published revision, 0 for none; Revisions
	// how many there are; Gaps the missing ones (a deleted tag).
	Latest    int
	Revisions int
	Gaps      []int
	// Problem is set for a directory that cannot be a package (invalid
	// name).
	Problem string
}

// Deleted reports a package with revisions that is no longer on the
// deployment branch.
func (p PackageStatus) Deleted() bool { return p.Dir == "" }

// DraftStatus is one draft branch.
type DraftStatus struct {
	Package, Workspace, Branch string
	Head                       plumbing.Hash
	// Pull is the open pull request from the branch, 0 for none.
	Pull int
	// Merged reports a head merged into the deployment branch (a parent of
	// one of its recent merge commits); Empty a head that is a commit of
	// the deployment branch itself (nothing to propose, or merged by fast
	// forward). Neither is offered for proposing.
	Merged, Empty bool
}

// PullStatus is one open pull request.
type PullStatus struct {
	Number int
	Title  string
	URL    string
	Author string
	// Branch is the head branch; Package and Workspace are read from it
	// (drafts/<package>/<workspace> or porch/update/<package>).
	Branch             string
	Package, Workspace string

	// Pull is the listed pull request (the dashboard judges its approval).
	Pull *hub.Pull
}

// PullRequest is the listed pull request as GitHub gave it.
func (p PullStatus) PullRequest() *hub.Pull { return p.Pull }

// List reads the repository's packages with their latest revisions (tags),
// draft branches (both from the session's git cache) and the open pull
// requests that are proposals, deletion proposals or pending updates (one
// REST call for up to 100 open pull requests).
func List(ctx context.Context, s *core.Session) (*Listing, error) {
	l := &Listing{DeploymentBranch: s.DeploymentBranch}
	if err := listPackages(ctx, s, l); err != nil {
		return nil, err
	}
	if err := listDrafts(ctx, s, l); err != nil {
		return nil, err
	}
	if err := listPulls(ctx, s, l); err != nil {
		return nil, err
	}
	return l, nil
}

func listPackages(ctx context.Context, s *core.Session, l *Listing) error {
	var paths []string
	if !s.DeploymentHead.IsZero() {
		var err error
		if paths, err = TreeFilePaths(ctx, s.Git, s.DeploymentHead); err != nil {
			return err
		}
	}
	tags, err := core.ReadRevisionTags(ctx, s)
	if err != nil {
		return err
	}
	l.Unverified = tags.Unverified()
	revs := tags.Published().ByPackage()
	seen := map[string]bool{}
	for _, p := range packages.Discover(paths, s.Config.Packages.Root) {
		if !p.TopLevel() {
			continue
		}
		st := PackageStatus{Name: p.Name, Dir: p.Dir}
		if p.Err != nil {
			st.Problem = p.Err.Error()
		}
		st.Latest, st.Revisions, st.Gaps = packages.Latest(revs[p.Name]), len(revs[p.Name]), packages.Gaps(revs[p.Name])
		seen[p.Name] = true
		l.Packages = append(l.Packages, st)
	}
	for name, r := range revs {
		if !seen[name] {
			l.Packages = append(l.Packages, PackageStatus{Name: name, Latest: packages.Latest(r), Revisions: len(r), Gaps: packages.Gaps(r)})
		}
	}
	sort.Slice(l.Packages, func(i, j int) bool { return l.Packages[i].Name < l.Packages[j].Name })
	return nil
}

func listDrafts(ctx context.Context, s *core.Session, l *Listing) error {
	drafts, err := s.DraftBranches(ctx)
	if err != nil {
		return err
	}
	for _, d := range drafts {
		l.Drafts = append(l.Drafts, DraftStatus{Package: d.Package, Workspace: d.Workspace, Branch: d.Branch, Head: d.Head})
	}
	if len(l.Drafts) > 0 && !s.DeploymentHead.IsZero() {
		onBranch, mergedIn, err := recentDeploymentHistory(ctx, s)
		if err != nil {
			return err
		}
		for i := range l.Drafts {
			d := &l.Drafts[i]
			d.Merged, d.Empty = mergedIn[d.Head], onBranch[d.Head]
		}
	}
	sort.Slice(l.Drafts, func(i, j int) bool {
		a, b := l.Drafts[i], l.Drafts[j]
		return a.Package < b.Package || a.Package == b.Package && a.Workspace < b.Workspace
	})
	return nil
}

func listPulls(ctx context.Context, s *core.Session, l *Listing) error {
	if s.NoOpenPulls {
		return nil // proven by the resync (open_pulls.go)
	}
	draftIndex := map[string]int{}
	for i, d := range l.Drafts {
		draftIndex[d.Branch] = i
	}
	opts := OpenPullsOptions()
	for page := 1; ; page++ {
		prs, next, err := s.Hub.ListPulls(ctx, s.Repo.Owner, s.Repo.Name, opts)
		if err != nil {
			return fmt.Errorf("list open pull requests of %s: %w", s.Repo.FullName(), err)
		}
		for _, pr := range prs {
			classifyPull(s, l, pr, draftIndex)
		}
		if next.Page == 0 {
			return nil
		}
		if page >= listMaxPullPages {
			l.PullsTruncated = true
			return nil
		}
		opts.Number = next.Page
	}
}

// classifyPull files one open pull request of the repository itself (fork
// heads are not the repository's branches) under the listing's sections.
func classifyPull(s *core.Session, l *Listing, pr hub.Pull, draftIndex map[string]int) {
	if !strings.EqualFold(pr.Head.RepoFullName, s.Repo.FullName()) {
		return
	}
	branch := pr.Head.Ref
	st := PullStatus{Number: pr.Number, Title: pr.Title, URL: pr.HTMLURL, Author: pr.User.Login, Branch: branch,
		Pull: &pr}
	if pkg, ws, ok := packages.ParseDraftBranchName(branch); ok {
		st.Package, st.Workspace = pkg, ws
		if i, ok := draftIndex[branch]; ok {
			l.Drafts[i].Pull = pr.Number
		}
	}
	labelled := func(name string) bool { return slices.Contains(pr.Labels, name) }
	switch {
	case labelled(packages.LabelDeletionProposed):
		l.Deletions = append(l.Deletions, st)
	case labelled(packages.LabelProposed):
		l.Proposals = append(l.Proposals, st)
	default:
		if pkg, ok := packages.ParseUpdateBranchName(branch); ok {
			st.Package = pkg
			l.Updates = append(l.Updates, st)
		}
	}
}

// recentDeploymentHistory walks the deployment branch's recent
// first-parent history (resyncMergedWindow commits): onBranch are its
// commits, mergedIn the other parents of its merge commits.
func recentDeploymentHistory(ctx context.Context, s *core.Session) (onBranch, mergedIn map[plumbing.Hash]bool, err error) {
	onBranch, mergedIn = map[plumbing.Hash]bool{}, map[plumbing.Hash]bool{}
	err = s.Git.With(ctx, func(repo *git.Repository) error {
		w := s.Walker(ctx, repo)
		x := s.DeploymentHead
		for range ResyncMergedWindow {
			if x.IsZero() {
				return nil
			}
			c, err := w.Commit(x)
			if err != nil {
				return err
			}
			onBranch[x] = true
			for _, p := range c.ParentHashes[min(1, len(c.ParentHashes)):] {
				mergedIn[p] = true
			}
			x = core.LandingFirstParent(c)
		}
		return nil
	})
	return onBranch, mergedIn, err
}

// TreeFilePaths lists the paths of the files (blobs and links) of a commit's
// tree without reading their content.
func TreeFilePaths(ctx context.Context, cache *gitstore.Cache, commit plumbing.Hash) ([]string, error) {
	var paths []string
	err := cache.With(ctx, func(repo *git.Repository) error {
		c, err := repo.CommitObject(commit)
		if err != nil {
			return fmt.Errorf("read commit %s: %w", commit, err)
		}
		t, err := c.Tree()
		if err != nil {
			return fmt.Errorf("read tree of %s: %w", commit, err)
		}
		w := object.NewTreeWalker(t, true, nil)
		defer w.Close()
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			name, e, err := w.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("walk tree of %s: %w", commit, err)
			}
			if e.Mode == filemode.Dir || e.Mode == filemode.Submodule {
				continue
			}
			if len(paths) >= maxTreePaths {
				return fmt.Errorf("tree of %s: %w: more than %d files", commit, gitstore.ErrTreeTooLarge, maxTreePaths)
			}
			paths = append(paths, name)
		}
	})
	return paths, err
}

// ResyncMergedWindow is how many first-parent commits of the deployment
// branch are searched for merged draft heads (not rendered again).
const ResyncMergedWindow = 500
