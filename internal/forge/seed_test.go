package forge_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSeedUnknownKey(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ yaml, key string }{
		"top level": {"users:\n  - {login: alice}\nrepos:\n  - name: acme/x\n", "repos"},
		"nested":    {"users:\n  - {login: alice, colour: blue}\n", "colour"},
		"deep":      {"orgs:\n  - login: acme\n    teams:\n      - {slug: p, maintainers: [alice]}\n", "maintainers"},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yaml")
		writeFile(t, p, c.yaml)
		_, err := forge.LoadSeed(p)
		if err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: want an error naming %q, got %v", name, c.key, err)
		}
	}
	if _, err := forge.LoadSeed(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("a missing seed file loaded")
	}
}

func TestSeedFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "catalog", "network", "upf", "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\n")
	writeFile(t, filepath.Join(dir, "catalog", "README.md"), "# catalog\n")
	seedPath := filepath.Join(dir, "seed.yaml")
	writeFile(t, seedPath, `users:
  - {login: alice, token: alice-token}
  - {login: bob, token: bob-token}
  - {login: carol}
orgs:
  - login: acme
    members: [alice]
    teams:
      - {slug: platform, members: [alice, bob]}
repositories:
  - name: acme/catalog
    defaultBranch: trunk
    private: true
    description: the catalog
    topics: [kpt]
    collaborators: {bob: write, carol: read}
    files: catalog
app:
  installations: [acme]
`)
	s, err := forge.LoadSeed(seedPath)
	if err != nil {
		t.Fatal(err)
	}
	env := forgetest.New(t, forgetest.Options{Seed: s})
	ctx := context.Background()
	f := env.Forge
	for _, login := range []string{"alice", "bob", "carol", "acme", "porchbot[bot]"} {
		if _, ok := f.Account(login); !ok {
			t.Errorf("no account %s", login)
		}
	}
	repo, ok := f.Repo("acme/catalog")
	if !ok || repo.DefaultBranch != "trunk" || !repo.Private || repo.Description != "the catalog" {
		t.Fatalf("repository: %+v", repo)
	}
	out, err := exec.Command("git", "--git-dir", repo.Path, "show", "trunk:network/upf/Kptfile").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "kind: Kptfile") {
		t.Fatalf("seeded files: %s %v", out, err)
	}
	// Through the API: permissions, the team, the installation.
	bob := env.Client("bob-token")
	r, _, err := bob.Repositories.Get(ctx, "acme", "catalog")
	if err != nil || !r.GetPermissions()["push"] || r.GetPermissions()["admin"] {
		t.Fatalf("bob's view: %v %v", r, err)
	}
	if env.Installation == nil {
		t.Fatal("no installation")
	}
	inst := env.Client(env.InstallationToken(t))
	m, _, err := inst.Teams.GetTeamMembershipBySlug(ctx, "acme", "platform", "bob")
	if err != nil || m.GetState() != "active" {
		t.Fatalf("team membership: %v %v", m, err)
	}
	if member, _, err := inst.Organizations.IsMember(ctx, "acme", "bob"); err != nil || !member {
		t.Fatalf("team members join the organisation: %v %v", member, err)
	}
	lvl, _, err := inst.Repositories.GetPermissionLevel(ctx, "acme", "catalog", "carol")
	if err != nil || lvl.GetPermission() != "read" {
		t.Fatalf("carol: %v %v", lvl, err)
	}
}

func TestSeedBadPermission(t *testing.T) {
	f, err := forge.New(forge.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	err = f.Apply(&forge.Seed{
		Users:        []forge.SeedUser{{Login: "alice"}},
		Repositories: []forge.SeedRepo{{Name: "alice/x", Collaborators: map[string]string{"alice": "owner"}}},
	})
	if err == nil || !strings.Contains(err.Error(), "owner") || !strings.Contains(err.Error(), "alice/x") {
		t.Fatalf("bad permission: %v", err)
	}
}

// TestSeedTypoNamesFieldAndLine: a misspelt key or a value of the wrong
// shape names the file, line, column and the seed's own field (with a
// suggestion), never a Go type.
func TestSeedTypoNamesFieldAndLine(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "seed.yaml")
	writeFile(t, p, "users:\n  - login: alice\n    tokn: alice-token\nrepositories:\n  - name: acme/x\n    private: maybe\n    collaborators: [alice]\n")
	_, err := forge.LoadSeed(p)
	if err == nil {
		t.Fatal("a seed with typos loaded")
	}
	msg := err.Error()
	for _, want := range []string{
		p + `:3:5: unknown field "tokn" in users[0] (did you mean "token"?)`,
		p + `:6:14: repositories[0].private:`,
		p + `:7:20: repositories[0].collaborators:`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	for _, goName := range []string{"forge.", "Seed", "map[", "[]", "unmarshal"} {
		if strings.Contains(strings.ReplaceAll(msg, p, "seed.yaml"), goName) {
			t.Errorf("error names the Go type %q:\n%s", goName, msg)
		}
	}
}
