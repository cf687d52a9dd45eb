package forge_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-github/v60/github"

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
}
