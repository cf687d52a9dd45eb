package forge_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func TestGetRepoVisibility(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	repo, _, err := env.Client(forgetest.AliceToken).Repositories.Get(ctx, "acme", "catalog")
	if err != nil {
		t.Fatal(err)
	}
	if repo.GetFullName() != "acme/catalog" || !repo.GetPermissions()["admin"] || repo.GetDefaultBranch() != "main" {
		t.Fatalf("unexpected repo %+v", repo)
	}
	_, resp, err := env.Client(forgetest.MalloryToken).Repositories.Get(ctx, "acme", "catalog")
	if err == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("mallory sees a private repo: %v", err)
	}
	_, resp, err = env.Client("no-such-token").Repositories.Get(ctx, "acme", "catalog")
	if err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bad token: want 401, got %v", err)
	}
}

func TestConditionalGetAnswers304(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	c := env.Client(forgetest.AliceToken)
	req, _ := c.NewRequest(http.MethodGet, "repos/acme/catalog", nil)
	resp, err := c.Do(ctx, req, &github.Repository{})
	if err != nil {
		t.Fatal(err)
	}
	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	req, _ = c.NewRequest(http.MethodGet, "repos/acme/catalog", nil)
	req.Header.Set("If-None-Match", etag)
	resp, _ = c.Do(ctx, req, nil)
	if resp.StatusCode != http.StatusNotModified {
		t.Fatalf("want 304, got %d", resp.StatusCode)
	}
	if n := env.Forge.Stats().Snapshot()["GET /repos/{owner}/{repo} 304"]; n != 1 {
		t.Fatalf("304 count = %d", n)
	}
	// A 304 is not charged against the rate limit (its headers say the
	// budget as it stands), and forge.Counted leaves it out.
	if got, want := resp.Header.Get("X-RateLimit-Used"), "1"; got != want {
		t.Fatalf("X-RateLimit-Used after a 200 and a 304: %s, want %s", got, want)
	}
	if c := forge.Counted(env.Forge.Stats().Snapshot()); c["GET /repos/{owner}/{repo}"] != 1 || forge.SumCounted(env.Forge.Stats().Snapshot()) != 1 {
		t.Fatalf("counted %v", c)
	}
	// A changed listing is answered in full again.
	req, _ = c.NewRequest(http.MethodGet, "repos/acme/catalog/issues", nil)
	if resp, err = c.Do(ctx, req, &[]*github.Issue{}); err != nil {
		t.Fatal(err)
	}
	listed := resp.Header.Get("ETag")
	if _, _, err := c.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String("new")}); err != nil {
		t.Fatal(err)
	}
	req, _ = c.NewRequest(http.MethodGet, "repos/acme/catalog/issues", nil)
	req.Header.Set("If-None-Match", listed)
	var issues []*github.Issue
	if resp, err = c.Do(ctx, req, &issues); err != nil || resp.StatusCode != http.StatusOK || len(issues) == 0 {
		t.Fatalf("after a change: %v %v", resp, err)
	}
}
