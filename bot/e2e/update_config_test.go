package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// TestUpdateConfig: the updates: keys. acme/edge-1 takes updates with its
// own labels, bob as reviewer, one update pull request at a time and
// automerge (no approval required): of its two packages tracking
// network/upf, one update opens, the other waits; porchbot merges the
// first once its checks pass, which publishes it and opens the second,
// merged in turn. acme/edge-2 refuses conflicting updates (onConflict:
// fail): nothing is pushed, an issue lists the conflict.
func TestUpdateConfig(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.publishFound(upstreamRepo, w.firstCommit(upstreamRepo), upstreamPkg)
	cfg := func(repo, updates string) {
		dir := w.clone("alice", repo)
		w.write(dir, ".github/porchbot.yaml", "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\napprovals:\n  required: 0\nupdates:\n"+updates)
		w.write(dir, "README.md", "# "+repo+"\n")
		w.git(dir, "add", "-A")
		w.git(dir, "commit", "-q", "-m", "porchbot config")
		w.git(dir, "push", "-q", "origin", "HEAD:main")
		w.settle()
	}
	cfg("acme/edge-1", "  labels: [porch/update, dependencies]\n  reviewers: [bob]\n  prConcurrentLimit: 1\n  automerge: true\n")
	w.clonePackage("acme/edge-1", 1, "upf-a", false)
	w.clonePackage("acme/edge-1", 1, "upf-b", false)
	w.newRepo("acme/edge-2")
	cfg("acme/edge-2", "  onConflict: fail\n")
	w.clonePackage("acme/edge-2", 1, "upf", false)
	dir := w.clone("alice", "acme/edge-2")
	w.replaceIn(dir, "upf/deployment.yaml", "upf:1.4.2", "upf:1.4.3")
	w.git(dir, "commit", "-q", "-am", "Pin 1.4.3")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()
	edge2Main := w.branchSHA("acme/edge-2", "main")

	v2 := w.publishUpstream("v2", upstreamV2(w))

	// edge-1: both updates merged by porchbot, one after the other, each
	// published; the labels and the reviewer were set.
	for _, pkg := range []string{"upf-a", "upf-b"} {
		prs := w.updatePullsOf("acme/edge-1", "porch/update/"+pkg)
		if len(prs) != 1 || !prs[0].GetMerged() && prs[0].MergedAt == nil {
			t.Fatalf("%s: update pull requests %d, merged %v", pkg, len(prs), len(prs) == 1 && prs[0].MergedAt != nil)
		}
		pr := w.pull("acme/edge-1", prs[0].GetNumber())
		if !pr.GetMerged() || pr.GetMergedBy().GetLogin() != botLogin {
			t.Fatalf("%s: #%d merged %v by %q", pkg, pr.GetNumber(), pr.GetMerged(), pr.GetMergedBy().GetLogin())
		}
		if labels := w.labels("acme/edge-1", pr.GetNumber()); !contains(labels, "dependencies") || !contains(labels, "porch/update") {
			t.Errorf("%s: labels %v", pkg, labels)
		}
		if !requested(pr, "bob") {
			t.Errorf("%s: bob was not asked to review #%d", pkg, pr.GetNumber())
		}
		if tags := w.tags("acme/edge-1", pkg+"/v"); tags[pkg+"/v2"] != pr.GetMergeCommitSHA() {
			t.Errorf("%s: merging the update did not publish v2: %v", pkg, tags)
		}
		if k := w.kptfileAt("acme/edge-1", "main", pkg); k.UpstreamLock.Git.Ref != v2 {
			t.Errorf("%s on main locks %s", pkg, k.UpstreamLock.Git.Ref)
		}
	}
	// The second opened only after the first closed.
	a := w.updatePullsOf("acme/edge-1", "porch/update/upf-a")[0]
	b := w.updatePullsOf("acme/edge-1", "porch/update/upf-b")[0]
	first, second := a, b
	if b.GetCreatedAt().Before(a.GetCreatedAt().Time) || b.GetNumber() < a.GetNumber() {
		first, second = b, a
	}
	if second.GetCreatedAt().Before(first.GetClosedAt().Time) {
		t.Errorf("#%d opened at %v, before #%d closed at %v: prConcurrentLimit 1 not kept", second.GetNumber(), second.GetCreatedAt(), first.GetNumber(), first.GetClosedAt())
	}

	// edge-2: nothing pushed, an issue lists the conflict.
	if got := w.branchSHA("acme/edge-2", updateBranch); got != "" {
		t.Fatalf("edge-2: an update with onConflict fail was pushed (%s)", got)
	}
	if got := w.branchSHA("acme/edge-2", "main"); got != edge2Main {
		t.Fatalf("edge-2's main moved")
	}
	owner, name := splitRepo("acme/edge-2")
	issues, _, err := w.client("alice").Issues.ListByRepo(w.ctx, owner, name, &github.IssueListByRepoOptions{State: "open"})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, is := range issues {
		if strings.Contains(is.GetTitle(), "not updated (conflicts)") {
			found++
			if !strings.Contains(is.GetBody(), "1.4.3") || !strings.Contains(is.GetBody(), "1.5.0") || !strings.Contains(is.GetBody(), "onConflict") {
				t.Errorf("the conflicts issue:\n%s", is.GetBody())
			}
		}
	}
	if found != 1 {
		t.Fatalf("edge-2: %d conflicts issues", found)
	}
}

func requested(pr *github.PullRequest, login string) bool {
	for _, u := range pr.RequestedReviewers {
		if u.GetLogin() == login {
			return true
		}
	}
	return false
}
