package main

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// TestProtectCommand: `porchbot protect` with an administrator's token
// protects the repository's default branch with porchbot's checks, bound
// to the App it is given; without a token or a repository it says what
// it needs.
func TestProtectCommand(t *testing.T) {
	env := forgetest.New(t)
	alice, _ := env.Forge.Account("alice")
	if _, err := env.Forge.CommitFiles(env.CatalogRepo, "main", map[string][]byte{"README.md": []byte("hi\n")}, "seed", alice); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PORCHBOT_APP_ID", "")
	t.Setenv("GITHUB_TOKEN", "")
	if code, _, stderr := runMain("protect", "--repo", "acme/catalog", "--github-url", env.Forge.BaseURL()); code != 1 ||
		!strings.Contains(stderr, "GITHUB_TOKEN") {
		t.Fatalf("without a token: %d %q", code, stderr)
	}
	t.Setenv("GITHUB_TOKEN", forgetest.AliceToken)
	if code, _, stderr := runMain("protect", "--github-url", env.Forge.BaseURL()); code != 1 || !strings.Contains(stderr, "--repo") {
		t.Fatalf("without --repo: %d %q", code, stderr)
	}
	code, stdout, stderr := runMain("protect", "--repo", "acme/catalog", "--app-id", "1", "--github-url", env.Forge.BaseURL())
	if code != 0 || stdout != "acme/catalog main: protected; required checks porchbot/approval, porchbot/render\n" {
		t.Fatalf("protect: %d %q %q", code, stdout, stderr)
	}
	b, _, err := env.Client(forgetest.AliceToken).Repositories.GetBranchProtection(t.Context(), "acme", "catalog", "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range *b.GetRequiredStatusChecks().Checks {
		if c.GetAppID() != 1 {
			t.Fatalf("%s bound to App %d, want 1", c.Context, c.GetAppID())
		}
	}
	if code, stdout, _ := runMain("protect", "--repo", "acme/catalog", "--app-id", "1", "--github-url", env.Forge.BaseURL()); code != 0 ||
		!strings.Contains(stdout, "already requires porchbot/render and porchbot/approval") {
		t.Fatalf("again: %d %q", code, stdout)
	}
}
