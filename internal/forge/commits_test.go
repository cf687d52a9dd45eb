package forge_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func TestCommitsListGetCompare(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	c1 := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	c2 := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n", "a.txt": "a\n"})
	c3 := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hello\n", "a.txt": "a\n"})
	bob := env.Client(forgetest.BobToken)
	if _, _, err := bob.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/feature"), Object: &github.GitObject{SHA: github.String(c2)}}); err != nil {
		t.Fatal(err)
	}
	f1 := chkSeedCommit(t, env, "feature", map[string]string{"README.md": "hi\n", "a.txt": "a\n", "b.txt": "b\n"})

	shas := func(cs []*github.RepositoryCommit) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.GetSHA())
		}
		return out
	}
	list := func(opts *github.CommitsListOptions) ([]string, *github.Response) {
		t.Helper()
		cs, resp, err := bob.Repositories.ListCommits(ctx, "acme", "catalog", opts)
		if err != nil {
			t.Fatal(err)
		}
		return shas(cs), resp
	}
	eq := func(what string, got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: got %v want %v", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: got %v want %v", what, got, want)
			}
		}
	}
	got, _ := list(nil)
	eq("default branch", got, c3, c2, c1)
	got, _ = list(&github.CommitsListOptions{SHA: "feature"})
	eq("feature", got, f1, c2, c1)
	got, _ = list(&github.CommitsListOptions{Path: "a.txt"})
	eq("path", got, c2)
	got, _ = list(&github.CommitsListOptions{Author: "alice"})
	eq("author alice", got, c3, c2, c1)
	got, _ = list(&github.CommitsListOptions{Author: "bob"})
	eq("author bob", got)
	got, resp := list(&github.CommitsListOptions{ListOptions: github.ListOptions{PerPage: 2}})
	eq("page 1", got, c3, c2)
	if resp.NextPage != 2 || resp.LastPage != 2 {
		t.Fatalf("Link: next %d last %d", resp.NextPage, resp.LastPage)
	}
	_, resp, err := bob.Repositories.ListCommits(ctx, "acme", "catalog", &github.CommitsListOptions{SHA: "nope"})
	chkWantStatus(t, "list unknown sha", resp, err, http.StatusNotFound)
	_, resp, err = env.Client(forgetest.MalloryToken).Repositories.ListCommits(ctx, "acme", "catalog", nil)
	chkWantStatus(t, "no access", resp, err, http.StatusNotFound)

	c, _, err := bob.Repositories.GetCommit(ctx, "acme", "catalog", "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.GetSHA() != c3 || len(c.Files) != 1 || c.Files[0].GetFilename() != "README.md" || c.Files[0].GetStatus() != "modified" ||
		c.GetStats().GetAdditions() != 1 || c.GetStats().GetDeletions() != 1 || c.GetStats().GetTotal() != 2 || c.Files[0].GetPatch() == "" {
		t.Fatalf("commit %s: files %v stats %v", c.GetSHA(), c.Files, c.GetStats())
	}
	root, _, err := bob.Repositories.GetCommit(ctx, "acme", "catalog", c1, nil)
	if err != nil || len(root.Files) != 1 || root.Files[0].GetStatus() != "added" {
		t.Fatalf("root commit: %v %v", root.Files, err)
	}
	_, resp, err = bob.Repositories.GetCommit(ctx, "acme", "catalog", "nope", nil)
	chkWantStatus(t, "get unknown", resp, err, http.StatusUnprocessableEntity)

	cmp, _, err := bob.Repositories.CompareCommits(ctx, "acme", "catalog", "main", "feature", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.GetStatus() != "diverged" || cmp.GetAheadBy() != 1 || cmp.GetBehindBy() != 1 || cmp.GetTotalCommits() != 1 ||
		cmp.GetMergeBaseCommit().GetSHA() != c2 || cmp.GetBaseCommit().GetSHA() != c3 {
		t.Fatalf("compare: %s ahead %d behind %d base %s mb %s", cmp.GetStatus(), cmp.GetAheadBy(), cmp.GetBehindBy(),
			cmp.GetBaseCommit().GetSHA(), cmp.GetMergeBaseCommit().GetSHA())
	}
	eq("compare commits", shas(cmp.Commits), f1)
	if len(cmp.Files) != 1 || cmp.Files[0].GetFilename() != "b.txt" || cmp.Files[0].GetStatus() != "added" {
		t.Fatalf("compare files: %v", cmp.Files)
	}
	for _, tc := range []struct{ base, head, status string }{{c1, "main", "ahead"}, {"main", c1, "behind"}, {c3, "main", "identical"}} {
		cmp, _, err := bob.Repositories.CompareCommits(ctx, "acme", "catalog", tc.base, tc.head, nil)
		if err != nil || cmp.GetStatus() != tc.status {
			t.Fatalf("compare %s...%s: %s %v", tc.base, tc.head, cmp.GetStatus(), err)
		}
	}
	_, resp, err = bob.Repositories.CompareCommits(ctx, "acme", "catalog", "main", "nope", nil)
	chkWantStatus(t, "compare unknown", resp, err, http.StatusNotFound)
}

// TestCommitOfNoUserHasNullAuthor: a commit whose author and committer
// are no user of the forge says so with null, as GitHub sends it, where
// the commit's own signature keeps their names.
func TestCommitOfNoUserHasNullAuthor(t *testing.T) {
	ctx := context.Background()
	env := forgetest.New(t)
	base := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	alice := env.Client(forgetest.AliceToken)
	parent, _, err := alice.Git.GetCommit(ctx, "acme", "catalog", base)
	if err != nil {
		t.Fatal(err)
	}
	who := &github.CommitAuthor{Name: github.String("Nobody"), Email: github.String("nobody@example.invalid")}
	c, _, err := alice.Git.CreateCommit(ctx, "acme", "catalog", &github.Commit{Message: github.String("by nobody"),
		Tree: parent.Tree, Parents: []*github.Commit{{SHA: github.String(base)}}, Author: who, Committer: who}, nil)
	if err != nil {
		t.Fatal(err)
	}
	req, err := alice.NewRequest("GET", "repos/acme/catalog/commits/"+c.GetSHA(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if _, err := alice.Do(ctx, req, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"author", "committer"} {
		if v, ok := raw[k]; !ok || v != nil {
			t.Errorf("%s: present %v, %v; want null", k, ok, v)
		}
	}
	if inner, _ := raw["commit"].(map[string]any); inner["author"].(map[string]any)["name"] != "Nobody" {
		t.Errorf("the commit's own author: %v", inner["author"])
	}
}
