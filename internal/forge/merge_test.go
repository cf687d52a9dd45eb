package forge_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"
)

func TestMergeSquash(t *testing.T) {
	fx := newPullsFixture(t)
	ctx := fx.ctx
	fx.branch(t, "feature", "main", "bob")
	fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "pkg/a.yaml", "a: 10\nb: 2\nc: 3\n"), "Change a", "bob")
	head := fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "pkg/a.yaml", "a: 10\nb: 2\nc: 3\n", "x.txt", "x\n"), "Add x", "bob")
	// main moves on meanwhile, without conflict.
	base := fx.commit(t, "main", pullsWithFiles(pullsBaseFiles, "README.md", "hello, world\n"), "Readme", "alice")
	fx.openPull(t, fx.bob, "feature", "Feature")

	res, _, err := fx.alice.PullRequests.Merge(ctx, "acme", "catalog", 1, "", &github.PullRequestOptions{MergeMethod: "squash", SHA: head})
	if err != nil {
		t.Fatal(err)
	}
	if parents := strings.Fields(fx.git(t, "rev-list", "--parents", "-n", "1", "main")); len(parents) != 2 || parents[0] != res.GetSHA() || parents[1] != base {
		t.Fatalf("squash commit parents: %v", parents)
	}
	for path, want := range map[string]string{"README.md": "hello, world", "pkg/a.yaml": "a: 10\nb: 2\nc: 3", "x.txt": "x"} {
		if got := fx.git(t, "show", "main:"+path); got != want {
			t.Fatalf("%s = %q, want %q", path, got, want)
		}
	}
	if msg := fx.git(t, "log", "-1", "--format=%B", "main"); msg != "Feature (#1)\n\n* Change a\n\n* Add x" {
		t.Fatalf("squash message %q", msg)
	}
	if who := fx.git(t, "log", "-1", "--format=%an <%ae>|%cn", "main"); !strings.HasPrefix(who, "bob <") || !strings.HasSuffix(who, "|GitHub") {
		t.Fatalf("squash author|committer: %s", who)
	}
	// The head branch is left alone.
	if sha, _ := fx.resolve("feature"); sha != head {
		t.Fatalf("feature moved to %s", sha)
	}
	pr, _, _ := fx.carol.PullRequests.Get(ctx, "acme", "catalog", 1)
	if !pr.GetMerged() || pr.GetMergeCommitSHA() != res.GetSHA() || pr.GetCommits() != 2 {
		t.Fatalf("squashed pull: %+v", pr)
	}
}

func TestMergeRebase(t *testing.T) {
	fx := newPullsFixture(t)
	ctx := fx.ctx
	fx.branch(t, "feature", "main", "bob")
	c1 := fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "pkg/a.yaml", "a: 10\nb: 2\nc: 3\n"), "Change a", "bob")
	c2 := fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "pkg/a.yaml", "a: 10\nb: 2\nc: 3\n", "x.txt", "x\n"), "Add x", "carol")
	// main changes the same file elsewhere: each replayed commit must be
	// merged (cherry-pick), not copied.
	base := fx.commit(t, "main", pullsWithFiles(pullsBaseFiles, "pkg/a.yaml", "a: 1\nb: 2\nc: 30\n"), "Change c", "alice")
	fx.openPull(t, fx.bob, "feature", "Feature")

	res, _, err := fx.bob.PullRequests.Merge(ctx, "acme", "catalog", 1, "", &github.PullRequestOptions{MergeMethod: "rebase"})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(fx.git(t, "log", "--format=%H %P|%an|%cn|%s", base+"..main"), "\n")
	if len(lines) != 2 {
		t.Fatalf("rebased commits: %q", lines)
	}
	top, bottom := strings.Split(lines[0], "|"), strings.Split(lines[1], "|")
	topIDs, bottomIDs := strings.Fields(top[0]), strings.Fields(bottom[0])
	if topIDs[0] != res.GetSHA() || topIDs[1] != bottomIDs[0] || bottomIDs[1] != base || len(topIDs) != 2 || len(bottomIDs) != 2 {
		t.Fatalf("rebased history: %q", lines)
	}
	if bottom[1] != "bob" || bottom[3] != "Change a" || top[1] != "carol" || top[3] != "Add x" || top[2] != "GitHub" {
		t.Fatalf("rebased authors/messages: %q", lines)
	}
	if topIDs[0] == c2 || bottomIDs[0] == c1 {
		t.Fatal("rebase reused the original commits")
	}
	if got := fx.git(t, "show", bottomIDs[0]+":pkg/a.yaml"); got != "a: 10\nb: 2\nc: 30" {
		t.Fatalf("first replayed commit: %q", got)
	}
	if got := fx.git(t, "show", "main:x.txt"); got != "x" {
		t.Fatalf("x.txt: %q", got)
	}
	pr, _, _ := fx.carol.PullRequests.Get(ctx, "acme", "catalog", 1)
	if !pr.GetMerged() || pr.GetMergeCommitSHA() != res.GetSHA() || pr.GetMergedBy().GetLogin() != "bob" {
		t.Fatalf("rebased pull: %+v", pr)
	}
	fx.env.WaitDeliveries(t)
	if n := len(fx.hooks.of("pull_request", "closed")); n != 1 {
		t.Fatalf("closed webhooks: %d", n)
	}
}

func TestMergeConflictAndRefusals(t *testing.T) {
	fx := newPullsFixture(t)
	ctx := fx.ctx
	fx.branch(t, "feature", "main", "bob")
	fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "pkg/a.yaml", "a: 1\nb: 20\nc: 3\n"), "b=20", "bob")
	base := fx.commit(t, "main", pullsWithFiles(pullsBaseFiles, "pkg/a.yaml", "a: 1\nb: 99\nc: 3\n"), "b=99", "alice")
	fx.openPull(t, fx.bob, "feature", "Conflicting")

	pr, _, err := fx.alice.PullRequests.Get(ctx, "acme", "catalog", 1)
	if err != nil || pr.Mergeable == nil || pr.GetMergeable() || pr.GetMergeableState() != "dirty" || pr.MergeCommitSHA != nil {
		t.Fatalf("conflicting pull: %v mergeable=%v state=%s", err, pr.Mergeable, pr.GetMergeableState())
	}
	for _, m := range []string{"merge", "squash", "rebase"} {
		_, resp, err := fx.alice.PullRequests.Merge(ctx, "acme", "catalog", 1, "", &github.PullRequestOptions{MergeMethod: m})
		if er := pullsWantStatus(t, m+" with conflicts", resp, err, http.StatusMethodNotAllowed); er == nil || er.Message != "Merge conflict" {
			t.Fatalf("%s: %v", m, err)
		}
	}
	if sha, _ := fx.resolve("main"); sha != base {
		t.Fatalf("main moved to %s", sha)
	}
	_, resp, err := fx.alice.PullRequests.Merge(ctx, "acme", "catalog", 1, "", &github.PullRequestOptions{MergeMethod: "octopus"})
	pullsWantStatus(t, "unknown method", resp, err, http.StatusUnprocessableEntity)

	// A draft is not mergeable.
	fx.branch(t, "draft", "main", "bob")
	fx.commit(t, "draft", pullsWithFiles(pullsBaseFiles, "pkg/a.yaml", "a: 1\nb: 99\nc: 3\n", "d.txt", "d\n"), "d", "bob")
	draft, _, err := fx.bob.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("Draft"), Head: github.String("draft"), Base: github.String("main"), Draft: github.Bool(true)})
	if err != nil || !draft.GetDraft() || draft.GetMergeableState() != "draft" {
		t.Fatalf("draft: %v %+v", err, draft)
	}
	_, resp, err = fx.alice.PullRequests.Merge(ctx, "acme", "catalog", draft.GetNumber(), "", nil)
	pullsWantStatus(t, "draft merge", resp, err, http.StatusMethodNotAllowed)
}

func TestMergeConcurrentOnce(t *testing.T) {
	fx := newPullsFixture(t)
	fx.branch(t, "feature", "main", "bob")
	fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "x.txt", "x\n"), "x", "bob")
	fx.branch(t, "other", "main", "bob")
	fx.commit(t, "other", pullsWithFiles(pullsBaseFiles, "y.txt", "y\n"), "y", "bob")
	fx.openPull(t, fx.bob, "feature", "x")
	fx.openPull(t, fx.bob, "other", "y")

	var mu sync.Mutex
	ok := map[int]int{}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			_, resp, err := fx.alice.PullRequests.Merge(fx.ctx, "acme", "catalog", n, "", &github.PullRequestOptions{MergeMethod: "merge"})
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				ok[n]++
			} else if resp == nil || resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("merge %d: %v", n, err)
			}
		}(1 + i%2)
	}
	wg.Wait()
	if ok[1] != 1 || ok[2] != 1 {
		t.Fatalf("successful merges per pull request: %v", ok)
	}
	// Both landed: main has both files and two merge commits.
	if got := fx.git(t, "rev-list", "--count", "--merges", "main"); got != "2" {
		t.Fatalf("merge commits on main: %s", got)
	}
	fx.git(t, "cat-file", "-e", "main:x.txt")
	fx.git(t, "cat-file", "-e", "main:y.txt")
}
