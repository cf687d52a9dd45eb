package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFetchBranchesAndTags(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()

	// Default refspec: branches only, no tags.
	c, err := f.store.Fetch(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	wantPath := filepath.Join(f.store.opts.Dir, strings.ReplaceAll(strings.TrimPrefix(f.server.srv.URL, "http://"), ":", "_"), "acme", "packages.git")
	if c.Path() != wantPath {
		t.Fatalf("cache path %s, want %s", c.Path(), wantPath)
	}
	if out := mustGit(t, c.Path(), "rev-parse", "--is-bare-repository"); out != "true" {
		t.Fatalf("cache is not a bare repository: %s", out)
	}
	for _, b := range []string{"main", "feature"} {
		got := mustResolve(t, c, "refs/heads/"+b)
		if want := f.remoteRef("refs/heads/" + b); got != want {
			t.Fatalf("%s = %s, want %s", b, got, want)
		}
		if short := mustResolve(t, c, b); short != got {
			t.Fatalf("short name %s = %s, want %s", b, short, got)
		}
	}
	if refs, err := c.ListRefs(ctx, "refs/tags/"); err != nil || len(refs) != 0 {
		t.Fatalf("tags fetched without TagsRefSpec: %v %v", refs, err)
	}

	// Tags through the explicit refspec; the annotated tag peels to its commit.
	if err := c.Fetch(ctx, TagsRefSpec); err != nil {
		t.Fatal(err)
	}
	refs, err := c.ListRefs(ctx, "refs/tags/network/upf/")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 || refs[0].Name() != "refs/tags/network/upf/v1" || refs[1].Name() != "refs/tags/network/upf/v2" {
		t.Fatalf("tags = %v", refs)
	}
	if got, want := mustResolve(t, c, "refs/tags/network/upf/v2"), f.remoteRef("network/upf/v2^{commit}"); got != want {
		t.Fatalf("v2 peeled to %s, want %s", got, want)
	}
	if got, want := mustResolve(t, c, "network/upf/v1"), f.remoteRef("network/upf/v1"); got != want {
		t.Fatalf("v1 = %s, want %s", got, want)
	}
	// Full history is there (the first commit, parent of main).
	if _, err := c.ResolveRef(ctx, f.remoteRef("main~1").String()); err != nil {
		t.Fatalf("history not fetched: %v", err)
	}

	if _, err := c.ResolveRef(ctx, "no-such-branch"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing ref: %v, want ErrNotFound", err)
	}
	if got := f.store.Stats().Fetches; got != 2 {
		t.Fatalf("Stats().Fetches = %d, want 2", got)
	}
	if got := f.gitOps("fetch", "ok"); got != 2 {
		t.Fatalf("fetch ok = %v, want 2", got)
	}
}

func TestFetchIncrementalAndPrune(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()

	// Nothing new: up to date, not an error.
	if err := c.Fetch(ctx, BranchesRefSpec, TagsRefSpec); err != nil {
		t.Fatalf("up-to-date fetch: %v", err)
	}
	if got := f.gitOps("fetch", "up_to_date"); got != 1 {
		t.Fatalf("fetch up_to_date = %v, want 1", got)
	}

	// Someone pushes to main, deletes feature and a tag.
	f.work.write("network/smf/service.yaml", "kind: Service\n", 0o644)
	head := f.work.commit("add service")
	f.work.git("push", "--quiet", "origin", "main")
	f.work.git("push", "--quiet", "origin", ":feature", ":refs/tags/network/upf/v1")

	if err := c.Fetch(ctx, BranchesRefSpec, TagsRefSpec); err != nil {
		t.Fatal(err)
	}
	if got := mustResolve(t, c, "main"); got != head {
		t.Fatalf("main = %s, want %s", got, head)
	}
	if _, err := c.ResolveRef(ctx, "feature"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted branch still in cache: %v", err)
	}
	if _, err := c.ResolveRef(ctx, "refs/tags/network/upf/v1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted tag still in cache: %v", err)
	}
	files, err := c.ReadTree(ctx, head, "network/smf")
	if err != nil {
		t.Fatal(err)
	}
	if string(files["service.yaml"]) != "kind: Service\n" {
		t.Fatalf("incremental objects missing: %v", files)
	}
}

func TestFetchOneBranch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c, err := f.store.Fetch(ctx, f.url, BranchRefSpec("feature"))
	if err != nil {
		t.Fatal(err)
	}
	if got := mustResolve(t, c, "feature"); got != f.remoteRef("feature") {
		t.Fatalf("feature = %s", got)
	}
	if _, err := c.ResolveRef(ctx, "main"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("main fetched although not asked for: %v", err)
	}
	if err := c.Fetch(ctx, BranchRefSpec("nope")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("fetch of a missing branch: %v, want ErrNotFound", err)
	}
}

func TestFetchEmptyRepository(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	url, _ := f.server.newRepo("acme", "empty")
	s := newTokenStore(t)
	c, err := s.Fetch(context.Background(), url, BranchesRefSpec, TagsRefSpec)
	if err != nil {
		t.Fatalf("fetch of an empty repository: %v", err)
	}
	if refs, err := c.ListRefs(context.Background(), ""); err != nil || len(refs) != 0 {
		t.Fatalf("refs of an empty repository: %v %v", refs, err)
	}
}

func TestFetchAuthFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.token.Store("expired-token")
	_, err := f.store.Fetch(context.Background(), f.url)
	if !errors.Is(err, ErrAuthFailed) {
		t.Fatalf("err = %v, want ErrAuthFailed", err)
	}
	if !strings.Contains(err.Error(), "acme/packages") || !strings.Contains(err.Error(), "authentication") {
		t.Fatalf("unclear error: %v", err)
	}
	if got := f.gitOps("fetch", "error"); got != 1 {
		t.Fatalf("fetch error = %v, want 1", got)
	}

	// The callback's own error is reported too.
	s, err := New(Options{Dir: t.TempDir(), Logger: quietLogger(),
		Auth: func(context.Context, string) (authMethod, error) { return nil, errors.New("no installation") }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Fetch(context.Background(), f.url); err == nil || !strings.Contains(err.Error(), "no installation") {
		t.Fatalf("auth callback error: %v", err)
	}
}

func TestFetchMissingRepository(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := newTokenStore(t)
	_, err := s.Fetch(context.Background(), f.server.srv.URL+"/acme/nope.git")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

func TestCacheReopen(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.fetch()
	main := mustResolve(t, c, "main")
	dir := f.store.opts.Dir
	f.store.Close()
	if _, err := c.ResolveRef(context.Background(), "main"); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
	if _, err := f.store.Repo(f.url); !errors.Is(err, ErrClosed) {
		t.Fatalf("Repo after Close: %v, want ErrClosed", err)
	}

	// A new Store on the same directory finds the cache as it was.
	s, err := New(Options{Dir: dir, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c2, err := s.Repo(f.url)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustResolve(t, c2, "main"); got != main {
		t.Fatalf("reopened main = %s, want %s", got, main)
	}
	if _, err := os.Stat(filepath.Join(c2.Path(), "HEAD")); err != nil {
		t.Fatal(err)
	}
}
