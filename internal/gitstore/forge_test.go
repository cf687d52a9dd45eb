package gitstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// TestForgeFetchCommitPushWithLease runs the bot's git path against the
// local forge: fetch with an installation token, commit a package, push
// under a lease; a branch that someone else moved is never overwritten.
func TestForgeFetchCommitPushWithLease(t *testing.T) {
	env := forgetest.New(t)
	alice, _ := env.Forge.Account("alice")
	base, err := env.Forge.CommitFiles("acme/catalog", "main", map[string][]byte{
		"basens/Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n"),
		"README.md":      []byte("# catalog\n"),
	}, "Initial commit", alice)
	if err != nil {
		t.Fatal(err)
	}
	token := env.InstallationToken(t)
	store, err := New(Options{Dir: t.TempDir(), Logger: quietLogger(),
		Auth: func(context.Context, string) (transport.AuthMethod, error) { return TokenAuth(token), nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	url := env.GitURL("acme/catalog")
	cache, err := store.Fetch(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	head, err := cache.ResolveRef(ctx, "refs/heads/main")
	if err != nil || head.String() != base {
		t.Fatalf("main = %s (%v), want %s", head, err, base)
	}
	sig := object.Signature{Name: "porchbot[bot]", Email: "porchbot@users.noreply", When: time.Now()}
	commit, err := cache.Commit(ctx, CommitRequest{Parent: head, Dir: "basens",
		Files:   map[string][]byte{"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\ninfo:\n  description: d\n")},
		Message: "Render basens", Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	draft := plumbing.ReferenceName("refs/heads/drafts/basens/w1")
	if err := cache.Push(ctx, PushRequest{Ref: draft, New: commit, Old: plumbing.ZeroHash}); err != nil {
		t.Fatalf("create draft branch: %v", err)
	}
	repo, _ := env.Forge.Repo("acme/catalog")
	if got := gitOut(t, repo.Path, "rev-parse", "drafts/basens/w1"); got != commit.String() {
		t.Fatalf("forge has %s, pushed %s", got, commit)
	}
	if got := gitOut(t, repo.Path, "show", "drafts/basens/w1:README.md"); got != "# catalog" {
		t.Fatalf("paths outside the package changed: README.md = %q", got)
	}

	// Alice moves the branch; the bot's next push under the old lease fails
	// and her commit stays.
	hers, err := env.Forge.CommitFiles("acme/catalog", "drafts/basens/w1", map[string][]byte{"x": []byte("x\n")}, "alice's edit", alice)
	if err != nil {
		t.Fatal(err)
	}
	again, err := cache.Commit(ctx, CommitRequest{Parent: commit, Dir: "basens",
		Files:   map[string][]byte{"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: other\n")},
		Message: "Render basens", Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	err = cache.Push(ctx, PushRequest{Ref: draft, New: again, Old: commit})
	if !errors.Is(err, ErrLeaseBroken) {
		t.Fatalf("want ErrLeaseBroken, got %v", err)
	}
	if got := gitOut(t, repo.Path, "rev-parse", "drafts/basens/w1"); got != hers {
		t.Fatalf("alice's commit was overwritten: branch at %s, hers %s", got, hers)
	}
	if s := store.Stats(); s.Fetches < 1 || s.Pushes < 2 {
		t.Fatalf("stats %+v", s)
	}
}

// TestForgeReadOnlyTokenCannotPush: a reader's token is refused by the
// forge and the error says so.
func TestForgeReadOnlyTokenCannotPush(t *testing.T) {
	env := forgetest.New(t)
	alice, _ := env.Forge.Account("alice")
	base, err := env.Forge.CommitFiles("acme/catalog", "main", map[string][]byte{"a": []byte("a\n")}, "init", alice)
	if err != nil {
		t.Fatal(err)
	}
	store, err := New(Options{Dir: t.TempDir(), Logger: quietLogger(),
		Auth: func(context.Context, string) (transport.AuthMethod, error) {
			return TokenAuth(forgetest.CarolToken), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	cache, err := store.Fetch(ctx, env.GitURL("acme/catalog"))
	if err != nil {
		t.Fatal(err)
	}
	sig := object.Signature{Name: "carol", Email: "carol@example.com", When: time.Now()}
	c, err := cache.Commit(ctx, CommitRequest{Parent: plumbing.NewHash(base), Dir: "b",
		Files: map[string][]byte{"f": []byte("f\n")}, Message: "m", Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	err = cache.Push(ctx, PushRequest{Ref: "refs/heads/main", New: c, Old: plumbing.NewHash(base)})
	if err == nil {
		t.Fatal("a read-only token pushed")
	}
	repo, _ := env.Forge.Repo("acme/catalog")
	if got := gitOut(t, repo.Path, "rev-parse", "main"); got != base {
		t.Fatalf("main moved to %s", got)
	}
}

func gitOut(t *testing.T, bare string, args ...string) string {
	t.Helper()
	return mustGit(t, bare, args...)
}
