package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestReadTreeAndTreeHash(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	main := mustResolve(t, c, "main")

	files, err := c.ReadTree(ctx, main, "network/upf")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Kptfile":           "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\n",
		"deployment.yaml":   "kind: Deployment\nspec: {}\n",
		"scripts/render.sh": "#!/bin/sh\necho render\n",
		"sub/Kptfile":       "kind: Kptfile\n",
	}
	if len(files) != len(want) {
		t.Fatalf("ReadTree = %v", keys(files))
	}
	for p, content := range want {
		if string(files[p]) != content {
			t.Fatalf("%s = %q, want %q", p, files[p], content)
		}
	}

	// The tree id is git's, for the directory, the root and an older commit.
	for _, tc := range []struct{ rev, dir string }{
		{"main", "network/upf"}, {"main", "network/upf/"}, {"main", ""}, {"main", "."},
		{"network/upf/v1", "network/upf"}, {"main", "network/smf"},
	} {
		commit := mustResolve(t, c, tc.rev)
		got, err := c.TreeHash(ctx, commit, tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		want := plumbing.NewHash(mustGit(t, f.bare, "rev-parse", tc.rev+"^{commit}:"+strings.Trim(tc.dir, "/.")))
		if got != want {
			t.Fatalf("TreeHash(%s, %q) = %s, want %s", tc.rev, tc.dir, got, want)
		}
	}
	// Equal contents, equal digest: smf did not change between v1 and main.
	v1 := mustResolve(t, c, "network/upf/v1")
	h1, _ := c.TreeHash(ctx, v1, "network/smf")
	h2, _ := c.TreeHash(ctx, main, "network/smf")
	if h1 != h2 {
		t.Fatal("unchanged package has a different digest")
	}

	root, err := c.ReadTree(ctx, main, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(root) != 6 || string(root["README.md"]) != "# packages\n" {
		t.Fatalf("root tree = %v", keys(root))
	}

	for _, tc := range []struct {
		dir  string
		want error
	}{
		{"network/nope", ErrNotFound},
		{"nope/deeper", ErrNotFound},
	} {
		if _, err := c.ReadTree(ctx, main, tc.dir); !errors.Is(err, tc.want) {
			t.Fatalf("ReadTree(%q) = %v, want %v", tc.dir, err, tc.want)
		}
		if _, err := c.TreeHash(ctx, main, tc.dir); !errors.Is(err, tc.want) {
			t.Fatalf("TreeHash(%q) = %v, want %v", tc.dir, err, tc.want)
		}
	}
	if _, err := c.TreeHash(ctx, main, "README.md"); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("file as directory: %v", err)
	}
	if _, err := c.ReadTree(ctx, main, "../etc"); err == nil {
		t.Fatal("path escaping the tree accepted")
	}
	if _, err := c.ReadTree(ctx, plumbing.NewHash("0123456789012345678901234567890123456789"), ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown commit: %v, want ErrNotFound", err)
	}
}

func TestReadTreeBounds(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) { o.MaxTreeFiles = 3 })
	ctx := context.Background()
	c := f.fetch()
	main := mustResolve(t, c, "main")

	_, err := c.ReadTree(ctx, main, "network/upf") // 4 files
	if !errors.Is(err, ErrTreeTooLarge) {
		t.Fatalf("err = %v, want ErrTreeTooLarge", err)
	}
	if !strings.Contains(err.Error(), "more than 3 files") || !strings.Contains(err.Error(), "network/upf") {
		t.Fatalf("unclear error: %v", err)
	}
	if _, err := c.ReadTree(ctx, main, "network/smf"); err != nil {
		t.Fatalf("small package: %v", err)
	}

	f2 := newFixture(t, func(o *Options) { o.MaxTreeBytes = 40 })
	c2 := f2.fetch()
	_, err = c2.ReadTree(ctx, mustResolve(t, c2, "main"), "network/upf")
	if !errors.Is(err, ErrTreeTooLarge) || !strings.Contains(err.Error(), "more than 40 bytes") {
		t.Fatalf("err = %v, want ErrTreeTooLarge over bytes", err)
	}
}

func TestResolveRefForms(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	main := f.remoteRef("main")
	for _, name := range []string{"main", "refs/heads/main", "refs/remotes/origin/main", main.String()} {
		if got := mustResolve(t, c, name); got != main {
			t.Fatalf("ResolveRef(%q) = %s, want %s", name, got, main)
		}
	}
	tree := mustGit(t, f.bare, "rev-parse", "main^{tree}")
	if _, err := c.ResolveRef(ctx, tree); err == nil || !strings.Contains(err.Error(), "not a commit") {
		t.Fatalf("tree id accepted as commit: %v", err)
	}
	if _, err := c.ResolveRef(ctx, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty name: %v", err)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, fmt.Sprintf("%s(%d)", k, len(m[k])))
	}
	return out
}
