package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// lsTree returns `git ls-tree -r` of rev on the server: path -> "mode type hash".
func lsTree(t *testing.T, bare, rev string) map[string]string {
	t.Helper()
	out := mustGit(t, bare, "ls-tree", "-r", "--full-tree", rev)
	m := map[string]string{}
	if out == "" {
		return m
	}
	for _, line := range strings.Split(out, "\n") {
		meta, path, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("ls-tree line %q", line)
		}
		m[path] = meta
	}
	return m
}

func TestCommitReplacesOnlyTheSubtree(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()

	// Give the package a symbolic link and a submodule entry, as someone
	// else might.
	if err := os.Symlink("Kptfile", filepath.Join(f.work.dir, "network/upf/link")); err != nil {
		t.Fatal(err)
	}
	f.work.git("add", "-A")
	f.work.git("update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("ab", 20)+",network/upf/vendor/lib")
	f.work.git("commit", "--quiet", "-m", "link and submodule")
	f.work.git("push", "--quiet", "origin", "main")

	c := f.fetch()
	parent := mustResolve(t, c, "main")
	before := lsTree(t, f.bare, "main")

	files := map[string][]byte{
		"Kptfile":           []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\n  annotations: {rendered: \"true\"}\n"),
		"scripts/render.sh": []byte("#!/bin/sh\necho rendered\n"),
		"new/service.yaml":  []byte("kind: Service\n"),
		"link":              []byte("new.yaml"),
	}
	commit := commitFiles(t, c, parent, "network/upf", files, "Render network/upf\n\nkpt: {\"package\":\"network/upf\",\"task\":\"render\"}")
	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: parent, New: commit}); err != nil {
		t.Fatal(err)
	}
	if got := f.remoteRef("main"); got != commit {
		t.Fatalf("server main = %s, want %s", got, commit)
	}
	mustGit(t, f.bare, "fsck", "--strict", "--no-progress")

	after := lsTree(t, f.bare, "main")
	for path, meta := range before {
		if !strings.HasPrefix(path, "network/upf/") && after[path] != meta {
			t.Errorf("%s outside the package changed: %q -> %q", path, meta, after[path])
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok && !strings.HasPrefix(path, "network/upf/") {
			t.Errorf("%s appeared outside the package", path)
		}
	}
	blob := func(content []byte) string {
		return plumbing.ComputeHash(plumbing.BlobObject, content).String()
	}
	wantPkg := map[string]string{
		"network/upf/Kptfile":           "100644 blob " + blob(files["Kptfile"]),
		"network/upf/scripts/render.sh": "100755 blob " + blob(files["scripts/render.sh"]),
		"network/upf/new/service.yaml":  "100644 blob " + blob(files["new/service.yaml"]),
		"network/upf/link":              "120000 blob " + blob(files["link"]),
		"network/upf/vendor/lib":        "160000 commit " + strings.Repeat("ab", 20),
	}
	for path, meta := range after {
		if strings.HasPrefix(path, "network/upf/") {
			if wantPkg[path] != meta {
				t.Errorf("%s = %q, want %q", path, meta, wantPkg[path])
			}
			delete(wantPkg, path)
		}
	}
	for path := range wantPkg {
		t.Errorf("%s missing from the package", path)
	}

	// The commit is what was asked for.
	out := mustGit(t, f.bare, "log", "-1", "--format=%P%n%an <%ae>%n%B", "main")
	wantLog := parent.String() + "\nporchbot[bot] <porchbot[bot]@users.noreply.github.com>\nRender network/upf\n\nkpt: {\"package\":\"network/upf\",\"task\":\"render\"}"
	if out != wantLog {
		t.Fatalf("commit =\n%s\nwant\n%s", out, wantLog)
	}

	// Reading it back gives the files (the submodule is not a file).
	got, err := c.ReadTree(ctx, commit, "network/upf")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(files) {
		t.Fatalf("ReadTree = %v", keys(got))
	}
	for p, content := range files {
		if string(got[p]) != string(content) {
			t.Fatalf("%s = %q", p, got[p])
		}
	}
}

func TestCommitDeleteAndCreate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	parent := mustResolve(t, c, "main")

	// Deleting a package keeps its siblings; deleting the last one removes
	// the parent directory too.
	c1 := commitFiles(t, c, parent, "network/upf", nil, "delete upf")
	c2 := commitFiles(t, c, c1, "network/smf", map[string][]byte{}, "delete smf")
	// A new package in a new directory, on top.
	c3 := commitFiles(t, c, c2, "edge/site-1/upf", map[string][]byte{"Kptfile": []byte("kind: Kptfile\n")}, "new package")
	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: parent, New: c3}); err != nil {
		t.Fatal(err)
	}
	check := func(rev string, want ...string) {
		t.Helper()
		var paths []string
		for p := range lsTree(t, f.bare, rev) {
			paths = append(paths, p)
		}
		if strings.Join(sorted(paths), ",") != strings.Join(sorted(want), ",") {
			t.Fatalf("%s: %v, want %v", rev, sorted(paths), sorted(want))
		}
	}
	check("main~2", "README.md", "network/smf/Kptfile")
	check("main~1", "README.md")
	check("main", "README.md", "edge/site-1/upf/Kptfile")
	if out := mustGit(t, f.bare, "ls-tree", "main~1"); strings.Contains(out, "network") {
		t.Fatalf("empty directory left behind: %s", out)
	}
	mustGit(t, f.bare, "fsck", "--strict", "--no-progress")

	// Deleting everything gives the empty tree.
	empty := commitFiles(t, c, c3, "", nil, "empty")
	if h, err := c.TreeHash(ctx, empty, ""); err != nil || h.String() != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Fatalf("empty tree = %s %v", h, err)
	}

	// A root commit on a new branch.
	root := commitFiles(t, c, plumbing.ZeroHash, "pkg", map[string][]byte{"Kptfile": []byte("x\n")}, "root")
	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/orphan", New: root}); err != nil {
		t.Fatal(err)
	}
	check("orphan", "pkg/Kptfile")
	if out := mustGit(t, f.bare, "log", "--format=%P", "orphan"); out != "" {
		t.Fatalf("root commit has parents %q", out)
	}
}

func TestCommitNoChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	parent := mustResolve(t, c, "main")
	files, err := c.ReadTree(ctx, parent, "network/smf")
	if err != nil {
		t.Fatal(err)
	}
	req := CommitRequest{Parent: parent, Dir: "network/smf", Files: files, Message: "same", Author: botSignature()}
	h, err := c.Commit(ctx, req)
	if !errors.Is(err, ErrNoChanges) || h != parent {
		t.Fatalf("Commit = %s, %v; want parent and ErrNoChanges", h, err)
	}
	req.AllowEmpty = true
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	req.Author.When = when
	req.Committer = object.Signature{Name: "Committer", Email: "c@example.com", When: when}
	h, err = c.Commit(ctx, req)
	if err != nil || h == parent {
		t.Fatalf("AllowEmpty: %s %v", h, err)
	}
	// Deterministic: same request, same commit.
	if h2, _ := c.Commit(ctx, req); h2 != h {
		t.Fatalf("same request gave %s and %s", h, h2)
	}
	t1, _ := c.TreeHash(ctx, h, "")
	t0, _ := c.TreeHash(ctx, parent, "")
	if t1 != t0 {
		t.Fatal("empty commit changed the tree")
	}
}

func TestCommitRejectsBadInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	parent := mustResolve(t, c, "main")
	for name, req := range map[string]CommitRequest{
		"dotdot":          {Dir: "pkg", Files: map[string][]byte{"../x": nil}},
		"absolute":        {Dir: "pkg", Files: map[string][]byte{"/x": nil}},
		"double slash":    {Dir: "pkg", Files: map[string][]byte{"a//b": nil}},
		"dot git":         {Dir: "pkg", Files: map[string][]byte{".GIT/config": nil}},
		"file and dir":    {Dir: "pkg", Files: map[string][]byte{"a": nil, "a/b": nil}},
		"bad dir":         {Dir: "../pkg", Files: map[string][]byte{"a": nil}},
		"dir under file":  {Dir: "README.md/pkg", Files: map[string][]byte{"a": nil}},
		"no author":       {Dir: "pkg", Files: map[string][]byte{"a": nil}, Author: object.Signature{}},
		"unknown parent":  {Parent: plumbing.NewHash(strings.Repeat("12", 20)), Dir: "pkg", Files: map[string][]byte{"a": nil}},
		"bad author mail": {Dir: "pkg", Files: map[string][]byte{"a": nil}, Author: object.Signature{Name: "x", Email: "a>b"}},
	} {
		if req.Parent.IsZero() {
			req.Parent = parent
		}
		if req.Author.Name == "" && name != "no author" {
			req.Author = botSignature()
		}
		if _, err := c.Commit(ctx, req); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
