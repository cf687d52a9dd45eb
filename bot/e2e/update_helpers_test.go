package e2e

import (
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/service"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/packages"
)

// Helpers of the upstream-update scenarios: an upstream package
// (acme/catalog's network/upf) published revision after revision, and
// downstream repositories tracking it.

const (
	upstreamRepo = "acme/catalog"
	upstreamPkg  = "network/upf"
	updateBranch = "porch/update/upf"
)

// newRepo creates an organisation repository as alice, bob a writer,
// with a first commit on main (a README).
func (w *world) newRepo(full string) {
	w.t.Helper()
	owner, name := splitRepo(full)
	if _, _, err := w.client("alice").Repositories.Create(w.ctx, owner, &github.Repository{Name: github.String(name)}); err != nil {
		w.t.Fatalf("create %s: %v", full, err)
	}
	if err := w.svc.Embedded.Forge.SetCollaborator(full, "bob", forge.PermWrite); err != nil {
		w.t.Fatalf("bob on %s: %v", full, err)
	}
	w.seedReadme(full)
}

// seedReadme makes main of an empty repository with a README.
func (w *world) seedReadme(full string) {
	w.t.Helper()
	dir := w.clone("alice", full)
	w.write(dir, "README.md", "# "+full+"\n")
	w.git(dir, "add", ".")
	w.git(dir, "commit", "-q", "-m", "Start "+full)
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()
}

// landDraft opens the pull request of a draft branch as alice, has bob
// approve it and alice merge it; it returns the pull request.
func (w *world) landDraft(repo, branch, title string) *github.PullRequest {
	w.t.Helper()
	return w.landDraftSettled(repo, branch, title, w.settle)
}

// landDraftSettled is landDraft with another settle (a fleet's).
func (w *world) landDraftSettled(repo, branch, title string, settle func()) *github.PullRequest {
	w.t.Helper()
	pr := w.openPull("alice", repo, branch, title)
	settle()
	w.approve("bob", repo, pr.GetNumber())
	settle()
	w.merge("alice", repo, pr.GetNumber())
	settle()
	return pr
}

// cloneDownstream clones network/upf@vN into repo as package upf with
// /porch clone and lands the draft (published there as upf/v1).
func (w *world) cloneDownstream(repo string, rev int) {
	w.t.Helper()
	w.clonePackage(repo, rev, "upf", true)
}

// clonePackage clones network/upf@vN into repo as package pkg with
// /porch clone and lands the draft (approved by bob when approve).
func (w *world) clonePackage(repo string, rev int, pkg string, approve bool) {
	w.t.Helper()
	issue := w.createIssue("alice", repo, "Bring the UPF here")
	c := w.comment("alice", repo, issue, "/porch clone acme/catalog/network/upf@v"+strconv.Itoa(rev)+" "+pkg)
	w.settle()
	draft := packages.DraftBranch(pkg, "v1")
	if w.branchSHA(repo, draft) == "" {
		w.t.Fatalf("no clone draft in %s; reply:\n%s", repo, w.replyTo(repo, issue, c).GetBody())
	}
	if approve {
		w.landDraft(repo, draft, "Clone the UPF")
	} else {
		pr := w.openPull("alice", repo, draft, "Clone the UPF")
		w.settle()
		w.merge("alice", repo, pr.GetNumber())
		w.settle()
	}
	if revs := w.revisions(repo, pkg); len(revs) != 1 {
		w.t.Fatalf("%s: the clone landed as revisions %v", repo, revs)
	}
}

// publishUpstream publishes the next revision of network/upf in
// acme/catalog: a draft edited by edit, rendered, approved by bob, merged.
func (w *world) publishUpstream(ws string, edit func(dir string)) string {
	w.t.Helper()
	return w.publishUpstreamSettled(ws, edit, w.settle)
}

// publishUpstreamSettled is publishUpstream with another settle (a fleet's).
func (w *world) publishUpstreamSettled(ws string, edit func(dir string), settle func()) string {
	w.t.Helper()
	branch := w.pushUpstreamDraft(ws, edit)
	settle()
	w.landDraftSettled(upstreamRepo, branch, "Upstream "+ws, settle)
	revs := w.revisions(upstreamRepo, upstreamPkg)
	tag := packages.TagName(upstreamPkg, revs[len(revs)-1])
	return tag
}

// pushUpstreamDraft pushes the draft ws of network/upf, edited by edit,
// and returns its branch.
func (w *world) pushUpstreamDraft(ws string, edit func(dir string)) string {
	w.t.Helper()
	dir := w.clone("alice", upstreamRepo)
	branch := packages.DraftBranch(upstreamPkg, ws)
	w.git(dir, "switch", "-q", "-c", branch)
	edit(dir)
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "Upstream change "+ws)
	w.git(dir, "push", "-q", "origin", "HEAD")
	return branch
}

// indexDownstreams has each bot index repo's downstream packages, as its
// resync does (replicas that did not hear the pushes that made them).
func (w *world) indexDownstreams(repo string, bots ...*service.Service) {
	w.t.Helper()
	for _, b := range bots {
		s, err := b.App.OpenRepo(w.ctx, repo)
		if err != nil {
			w.t.Fatal(err)
		}
		if err := b.App.IndexDownstreams(w.ctx, s); err != nil {
			w.t.Fatal(err)
		}
	}
}

// replaceIn edits a file of a work tree: old must be there.
func (w *world) replaceIn(dir, path, old, new string) {
	w.t.Helper()
	s := readFile(w.t, dir, path)
	if !strings.Contains(s, old) {
		w.t.Fatalf("%s has no %q:\n%s", path, old, s)
	}
	w.write(dir, path, strings.Replace(s, old, new, 1))
}

// botComments with marker.
func (w *world) botCommentsWith(repo string, n int, marker string) []*github.IssueComment {
	w.t.Helper()
	var out []*github.IssueComment
	for _, c := range w.botComments(repo, n) {
		if strings.Contains(c.GetBody(), marker) {
			out = append(out, c)
		}
	}
	return out
}

// updatePulls are the pull requests (any state) from the update branch.
func (w *world) updatePulls(repo string) []*github.PullRequest {
	w.t.Helper()
	return w.updatePullsOf(repo, updateBranch)
}

// updatePullsOf are the pull requests (any state) from branch.
func (w *world) updatePullsOf(repo, branch string) []*github.PullRequest {
	w.t.Helper()
	owner, name := splitRepo(repo)
	prs, _, err := w.client("alice").PullRequests.List(w.ctx, owner, name, &github.PullRequestListOptions{State: "all",
		ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		w.t.Fatal(err)
	}
	var out []*github.PullRequest
	for _, pr := range prs {
		if pr.GetHead().GetRef() == branch {
			out = append(out, pr)
		}
	}
	return out
}
