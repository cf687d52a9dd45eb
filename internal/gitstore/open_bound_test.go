package gitstore

import (
	"context"
	"testing"

	git "github.com/go-git/go-git/v5"
)

// TestStoreBoundsOpenRepositories: past MaxOpen, the least recently used
// idle repository is closed (its caches and files released) and opens
// again, whole, on its next use; the one in use is never closed.
func TestStoreBoundsOpenRepositories(t *testing.T) {
	t.Parallel()
	s, err := New(Options{Dir: t.TempDir(), MaxOpen: 1, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ctx := context.Background()
	a, err := s.Repo("https://git.example.com/acme/a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Repo("https://git.example.com/acme/b")
	if err != nil {
		t.Fatal(err)
	}
	isOpen := func(c *Cache) bool { return c.entry.repo != nil }
	remote := func(c *Cache) string {
		t.Helper()
		var url string
		if err := c.With(ctx, func(r *git.Repository) error {
			rem, err := r.Remote(remoteName)
			if err == nil {
				url = rem.Config().URLs[0]
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return url
	}
	if got := remote(a); got != a.URL() || !isOpen(a) {
		t.Fatalf("a: remote %q, open %v", got, isOpen(a))
	}
	if got := remote(b); got != b.URL() || !isOpen(b) || isOpen(a) {
		t.Fatalf("after b: remote %q, a open %v, b open %v (MaxOpen 1)", got, isOpen(a), isOpen(b))
	}
	if got := remote(a); got != a.URL() || !isOpen(a) || isOpen(b) {
		t.Fatalf("a again: remote %q, a open %v, b open %v", got, isOpen(a), isOpen(b))
	}
	// Busy: b's lock is held while a is used; b stays open.
	if err := b.With(ctx, func(*git.Repository) error {
		if got := remote(a); got != a.URL() {
			t.Errorf("a while b is busy: %q", got)
		}
		if !isOpen(b) {
			t.Error("the repository in use was closed")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
