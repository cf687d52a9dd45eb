package core_test

import (
	"context"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/internal/gitstore"
)

// TestSnapshotRefsHoldUntilTheCacheMoves: a session resolves a ref once;
// a push to the forge that its cache has not fetched leaves the answer
// as the cache has it, and the session's fetch moves it.
func TestSnapshotRefsHoldUntilTheCacheMoves(t *testing.T) {
	ctx := context.Background()
	h := lifecycletest.New(t)
	c1 := h.Seed(t, map[string][]byte{"README.md": []byte("one\n")})
	s := h.Open(t)
	got, err := s.ResolveRef(ctx, "refs/heads/main")
	if err != nil || got.String() != c1 {
		t.Fatalf("main = %s, %v; want %s", got, err, c1)
	}
	alice, _ := h.Env.Forge.Account("alice")
	c2, err := h.Env.Forge.CommitFiles("acme/catalog", "main", map[string][]byte{"README.md": []byte("two\n")}, "two", alice)
	if err != nil {
		t.Fatal(err)
	}
	refs := h.Store.Stats().RefReads
	if got, _ := s.ResolveRef(ctx, "refs/heads/main"); got.String() != c1 {
		t.Fatalf("before a fetch main = %s, want the cache's %s", got, c1)
	}
	if n := h.Store.Stats().RefReads - refs; n != 0 {
		t.Fatalf("resolving main again read %d refs of the cache", n)
	}
	// Not fetched yet: c2 is not in the cache, its file absent (and not
	// remembered as absent).
	if _, ok, err := s.ReadFile(ctx, plumbing.NewHash(c2), "README.md"); ok || err != nil {
		t.Fatalf("README.md at unfetched %s: ok %v, %v", c2, ok, err)
	}
	if err := s.Git.Fetch(ctx, gitstore.BranchesRefSpec); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ResolveRef(ctx, "refs/heads/main"); got.String() != c2 {
		t.Fatalf("after the fetch main = %s, want %s", got, c2)
	}
	if data, ok, err := s.ReadFile(ctx, plumbing.NewHash(c2), "README.md"); !ok || err != nil || string(data) != "two\n" {
		t.Fatalf("README.md at %s: %q %v %v", c2, data, ok, err)
	}
}

// TestSnapshotFilesAreReadOncePerProcess: a file at a commit is read from
// the git cache once; the next session of the same Opener asks nothing of
// the cache for it, and gets the same bytes.
func TestSnapshotFilesAreReadOncePerProcess(t *testing.T) {
	ctx := context.Background()
	h := lifecycletest.New(t)
	c1 := plumbing.NewHash(h.Seed(t, map[string][]byte{"pkg/Kptfile": []byte("kind: Kptfile\n"), "pkg/cm.yaml": []byte("a: 1\n")}))
	first := h.Open(t)
	before := h.Store.Stats().ObjectReads
	data, ok, err := first.ReadFile(ctx, c1, "pkg/Kptfile")
	if !ok || err != nil || string(data) != "kind: Kptfile\n" {
		t.Fatalf("pkg/Kptfile: %q %v %v", data, ok, err)
	}
	read := h.Store.Stats().ObjectReads - before
	if read == 0 {
		t.Fatal("the first read asked nothing of the git cache")
	}
	second := h.Open(t)
	before = h.Store.Stats().ObjectReads
	again, ok, err := second.ReadFile(ctx, c1, "pkg/Kptfile")
	if !ok || err != nil || string(again) != string(data) {
		t.Fatalf("second session's pkg/Kptfile: %q %v %v", again, ok, err)
	}
	if n := h.Store.Stats().ObjectReads - before; n != 0 {
		t.Fatalf("the second session read %d objects for a file the process had read (the first read %d)", n, read)
	}
	if _, ok, err := second.ReadFile(ctx, c1, "pkg/missing.yaml"); ok || err != nil {
		t.Fatalf("pkg/missing.yaml: ok %v, %v", ok, err)
	}
}
