package forge_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func TestSearchIssues(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	base := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	alice, bob := env.Client(forgetest.AliceToken), env.Client(forgetest.BobToken)
	if _, _, err := bob.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/feature"), Object: &github.GitObject{SHA: github.String(base)}}); err != nil {
		t.Fatal(err)
	}
	chkSeedCommit(t, env, "feature", map[string]string{"README.md": "hi\n", "upf.yaml": "x: 1\n"})
	for _, l := range []string{"bug", "porch/proposed"} {
		if _, _, err := alice.Issues.CreateLabel(ctx, "acme", "catalog", &github.Label{Name: github.String(l), Color: github.String("ededed")}); err != nil {
			t.Fatal(err)
		}
	}
	i1, _, err := alice.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String("Broken render"),
		Body: github.String("fails on upf"), Labels: &[]string{"bug"}})
	if err != nil {
		t.Fatal(err)
	}
	i2, _, err := bob.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String("Add docs")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bob.Issues.Edit(ctx, "acme", "catalog", i2.GetNumber(), &github.IssueRequest{State: github.String("closed")}); err != nil {
		t.Fatal(err)
	}
	pr, _, err := bob.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{Title: github.String("Propose UPF"),
		Head: github.String("feature"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bob.Issues.AddLabelsToIssue(ctx, "acme", "catalog", pr.GetNumber(), []string{"porch/proposed"}); err != nil {
		t.Fatal(err)
	}

	search := func(c *github.Client, q string, opts *github.SearchOptions) ([]int, *github.Response) {
		t.Helper()
		res, resp, err := c.Search.Issues(ctx, q, opts)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		var nums []int
		for _, is := range res.Issues {
			nums = append(nums, is.GetNumber())
		}
		if res.GetTotal() < len(nums) {
			t.Fatalf("%q: total %d < %d items", q, res.GetTotal(), len(nums))
		}
		return nums, resp
	}
	n1, n2, n3 := i1.GetNumber(), i2.GetNumber(), pr.GetNumber()
	for q, want := range map[string][]int{
		"repo:acme/catalog is:pr is:open":                {n3},
		"repo:acme/catalog is:issue":                     {n2, n1},
		"repo:acme/catalog type:issue state:closed":      {n2},
		`repo:acme/catalog label:"porch/proposed"`:       {n3},
		"repo:acme/catalog -label:bug is:open":           {n3},
		"repo:acme/catalog author:alice":                 {n1},
		"repo:acme/catalog upf in:title":                 {n3},
		"repo:acme/catalog upf":                          {n3, n1},
		"repo:acme/catalog is:pr head:feature base:main": {n3},
		"repo:acme/catalog is:pr is:merged":              nil,
		"repo:acme/other is:open":                        nil,
	} {
		got, _ := search(bob, q, nil)
		if len(got) != len(want) {
			t.Fatalf("%q: got %v want %v", q, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q: got %v want %v", q, got, want)
			}
		}
	}
	got, resp := search(bob, "repo:acme/catalog", &github.SearchOptions{Sort: "created", Order: "asc", ListOptions: github.ListOptions{PerPage: 2}})
	if len(got) != 2 || got[0] != n1 || resp.NextPage != 2 || resp.LastPage != 2 {
		t.Fatalf("page 1 asc: %v next %d last %d", got, resp.NextPage, resp.LastPage)
	}
	if got, _ := search(env.Client(forgetest.MalloryToken), "repo:acme/catalog", nil); len(got) != 0 {
		t.Fatalf("a private repository's issues leak to a stranger: %v", got)
	}
	_, resp, err = bob.Search.Issues(ctx, "", nil)
	chkWantStatus(t, "empty q", resp, err, http.StatusUnprocessableEntity)
}
