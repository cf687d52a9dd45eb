package forge_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// TestForkPullRequests: carol, who may only read acme/catalog, forks it,
// pushes a branch to her fork and opens a pull request from "carol:stamp"
// into acme/catalog. Its head names her fork; the fork's commits are in
// acme/catalog as refs/pull/<N>/head (its files are listed); a push to her
// branch moves the pull request's head; alice merges it. The App cannot
// fork.
func TestForkPullRequests(t *testing.T) {
	ctx := context.Background()
	env := forgetest.New(t)
	main := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	carol, alice := env.Client(forgetest.CarolToken), env.Client(forgetest.AliceToken)

	if _, resp, err := env.Client(env.InstallationToken(t)).Repositories.CreateFork(ctx, "acme", "catalog", nil); resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("the App forked: %v", err)
	}
	fork, resp, err := carol.Repositories.CreateFork(ctx, "acme", "catalog", nil)
	if _, accepted := err.(*github.AcceptedError); !accepted && err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("fork: %v", err)
	}
	got, _, err := carol.Repositories.Get(ctx, "carol", "catalog")
	if err != nil || !got.GetFork() || got.GetParent().GetFullName() != "acme/catalog" || got.GetSource().GetFullName() != "acme/catalog" {
		t.Fatalf("carol/catalog: fork %v parent %q, %v (created %q)", got.GetFork(), got.GetParent().GetFullName(), err, fork.GetFullName())
	}
	if up, _, _ := alice.Repositories.Get(ctx, "acme", "catalog"); up.GetForksCount() != 1 {
		t.Fatalf("acme/catalog forks_count %d", up.GetForksCount())
	}

	if _, _, err := carol.Git.CreateRef(ctx, "carol", "catalog", &github.Reference{Ref: github.String("refs/heads/stamp"),
		Object: &github.GitObject{SHA: github.String(main)}}); err != nil {
		t.Fatal(err)
	}
	put := func(content, sha string) string {
		t.Helper()
		res, _, err := carol.Repositories.CreateFile(ctx, "carol", "catalog", "cm.yaml", &github.RepositoryContentFileOptions{
			Message: github.String("cm"), Content: []byte(content), Branch: github.String("stamp"), SHA: github.String(sha)})
		if err != nil {
			t.Fatal(err)
		}
		return res.GetSHA()
	}
	put("a: 1\n", "")
	pr, _, err := carol.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{Title: github.String("Add cm"),
		Head: github.String("carol:stamp"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	if pr.GetHead().GetRepo().GetFullName() != "carol/catalog" || pr.GetHead().GetLabel() != "carol:stamp" ||
		pr.GetBase().GetRepo().GetFullName() != "acme/catalog" {
		t.Fatalf("head %q %q, base %q", pr.GetHead().GetRepo().GetFullName(), pr.GetHead().GetLabel(), pr.GetBase().GetRepo().GetFullName())
	}
	files, _, err := alice.PullRequests.ListFiles(ctx, "acme", "catalog", pr.GetNumber(), nil)
	if err != nil || len(files) != 1 || files[0].GetFilename() != "cm.yaml" {
		t.Fatalf("files of the fork's pull request: %v, %v", files, err)
	}
	if open, _, err := alice.PullRequests.List(ctx, "acme", "catalog", &github.PullRequestListOptions{Head: "carol:stamp"}); err != nil || len(open) != 1 {
		t.Fatalf("listed by head carol:stamp: %d, %v", len(open), err)
	}

	blob, _, _, err := carol.Repositories.GetContents(ctx, "carol", "catalog", "cm.yaml", &github.RepositoryContentGetOptions{Ref: "stamp"})
	if err != nil {
		t.Fatal(err)
	}
	put("a: 2\n", blob.GetSHA())
	branch, _, err := carol.Repositories.GetBranch(ctx, "carol", "catalog", "stamp", 0)
	if err != nil {
		t.Fatal(err)
	}
	moved, _, err := alice.PullRequests.Get(ctx, "acme", "catalog", pr.GetNumber())
	if err != nil || moved.GetHead().GetSHA() != branch.GetCommit().GetSHA() {
		t.Fatalf("after a push to the fork the head is %s, want %s (%v)", moved.GetHead().GetSHA(), branch.GetCommit().GetSHA(), err)
	}
	ref, _, err := alice.Git.GetRef(ctx, "acme", "catalog", "pull/"+strconv.Itoa(pr.GetNumber())+"/head")
	if err != nil || ref.GetObject().GetSHA() != branch.GetCommit().GetSHA() {
		t.Fatalf("refs/pull/%d/head: %v, %v", pr.GetNumber(), ref.GetObject().GetSHA(), err)
	}

	if _, _, err := alice.PullRequests.Merge(ctx, "acme", "catalog", pr.GetNumber(), "", nil); err != nil {
		t.Fatal(err)
	}
	merged, _, _, err := alice.Repositories.GetContents(ctx, "acme", "catalog", "cm.yaml", &github.RepositoryContentGetOptions{Ref: "main"})
	if err != nil {
		t.Fatalf("cm.yaml on main after the merge: %v", err)
	}
	if c, _ := merged.GetContent(); c != "a: 2\n" {
		t.Fatalf("cm.yaml on main: %q", c)
	}
}

// TestPullHeadsAreNotPushable: refs/pull/<N>/head is the forge's, as it is
// GitHub's: a push to it is refused, and it still names the head.
func TestPullHeadsAreNotPushable(t *testing.T) {
	ctx := context.Background()
	env := forgetest.New(t)
	main := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	alice := env.Client(forgetest.AliceToken)
	if _, _, err := alice.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/feature"),
		Object: &github.GitObject{SHA: github.String(main)}}); err != nil {
		t.Fatal(err)
	}
	head := chkSeedCommit(t, env, "feature", map[string]string{"README.md": "hi\n", "cm.yaml": "a: 1\n"})
	pr, _, err := alice.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{Title: github.String("cm"),
		Head: github.String("feature"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	ref := "refs/pull/" + strconv.Itoa(pr.GetNumber()) + "/head"
	g := gtNewGit(t, "alice")
	g.run("clone", "--quiet", gtURL(env, env.CatalogRepo, "alice", forgetest.AliceToken), ".")
	out, err := g.try("push", "origin", "origin/main:"+ref)
	if err == nil || !strings.Contains(out, "hidden ref") {
		t.Fatalf("push to %s: %v\n%s", ref, err, out)
	}
	if got, _, err := alice.Git.GetRef(ctx, "acme", "catalog", strings.TrimPrefix(ref, "refs/")); err != nil || got.GetObject().GetSHA() != head {
		t.Fatalf("%s: %v, %v; want %s", ref, got.GetObject().GetSHA(), err, head)
	}
}
