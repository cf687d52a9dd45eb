package upstream

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/upstream/upstreamtest"
)

func newStore(t *testing.T) *gitstore.Store {
	t.Helper()
	s, err := gitstore.New(gitstore.Options{Dir: t.TempDir(), AllowLocalAndSSH: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// refsRepo has, for one name "v1", a package tag app/v1, a branch v1 and
// a plain tag v1, each on its own commit.
func refsRepo(t *testing.T) (r *upstreamtest.Repo, pkgTag, branch, tag, tagOnly string) {
	r = upstreamtest.New(t)
	tag = r.Commit(map[string]string{"app/Kptfile": "kind: Kptfile\n", "app/cm.yaml": "a: tag\n"})
	r.Git("tag", "v1")
	tagOnly = r.Commit(map[string]string{"app/cm.yaml": "a: tag-only\n"})
	r.Git("tag", "-a", "-m", "annotated", "only")
	branch = r.Commit(map[string]string{"app/cm.yaml": "a: branch\n"})
	r.Git("branch", "v1")
	pkgTag = r.Commit(map[string]string{"app/cm.yaml": "a: pkg\n", "app/sub/x.yaml": "b: 1\n"})
	r.Git("tag", "app/v1")
	r.Commit(map[string]string{"app/cm.yaml": "a: main\n"})
	return r, pkgTag, branch, tag, tagOnly
}

func TestResolveInKptOrder(t *testing.T) {
	r, pkgTag, branch, _, tagOnly := refsRepo(t)
	ctx := context.Background()
	repo, err := Open(ctx, newStore(t), r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir, ref, wantRef, wantCommit string
	}{
		{"/app", "v1", "app/v1", pkgTag},     // the package's tag first
		{"app/", "v1", "app/v1", pkgTag},     // whatever the slashes
		{"/app/sub", "v1", "app/v1", pkgTag}, // a parent directory's tag
		{"/other", "v1", "v1", branch},       // then a branch, before a tag
		{"/other", "only", "only", tagOnly},  // then a tag (annotated: peeled)
		{"/app", branch, branch, branch},     // then a commit id
		{"/app", "app/v1", "app/v1", pkgTag}, // a full tag name
		{"/", "v1", "v1", branch},            // a package at the root
		{"/app", strings.ToUpper(branch), strings.ToUpper(branch), branch},
	} {
		rev, err := repo.Resolve(ctx, tc.dir, tc.ref)
		if err != nil {
			t.Errorf("Resolve(%q, %q): %v", tc.dir, tc.ref, err)
			continue
		}
		if rev.Ref != tc.wantRef || rev.Commit.String() != tc.wantCommit {
			t.Errorf("Resolve(%q, %q) = %s %s, want %s %s", tc.dir, tc.ref, rev.Ref, rev.Commit, tc.wantRef, tc.wantCommit)
		}
	}
	for _, ref := range []string{"v9", "", "0000000000000000000000000000000000000001"} {
		if _, err := repo.Resolve(ctx, "/app", ref); !errors.Is(err, ErrRefNotFound) {
			t.Errorf("Resolve(%q): %v, want ErrRefNotFound", ref, err)
		}
	}
	if _, err := repo.Resolve(ctx, "/app", "v9"); err == nil || !strings.Contains(err.Error(), "app/v9") {
		t.Errorf("the error does not say which tags were tried: %v", err)
	}
}

func TestFilesAtCommit(t *testing.T) {
	r, pkgTag, _, _, _ := refsRepo(t)
	ctx := context.Background()
	repo, err := Open(ctx, newStore(t), "file://"+r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := repo.Resolve(ctx, "/app", "v1")
	if err != nil || rev.Commit.String() != pkgTag {
		t.Fatalf("Resolve: %v %v", rev, err)
	}
	files, err := repo.Files(ctx, rev.Commit, "/app")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || string(files["cm.yaml"]) != "a: pkg\n" || string(files["sub/x.yaml"]) != "b: 1\n" || files["Kptfile"] == nil {
		t.Errorf("files = %v", files)
	}
	if _, err := repo.Files(ctx, rev.Commit, "/missing"); !errors.Is(err, gitstore.ErrNotFound) {
		t.Errorf("a missing directory: %v", err)
	}
	c, err := repo.Commit(ctx, pkgTag)
	if err != nil || c.String() != pkgTag {
		t.Errorf("Commit: %v %v", c, err)
	}
	if _, err := repo.Commit(ctx, "abc"); err == nil {
		t.Error("a short commit id was accepted as a lock")
	}
}

func TestFilesLeaveOutSymlinks(t *testing.T) {
	r := upstreamtest.New(t)
	r.Commit(map[string]string{"app/cm.yaml": "a: 1\n"})
	if err := os.Symlink("/etc/passwd", filepath.Join(r.Dir, "app", "passwd.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("cm.yaml", filepath.Join(r.Dir, "app", "again.yaml")); err != nil {
		t.Fatal(err)
	}
	r.Commit(nil)
	r.Git("tag", "app/v1")
	ctx := context.Background()
	repo, err := Open(ctx, newStore(t), r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := repo.Resolve(ctx, "/app", "v1")
	if err != nil {
		t.Fatal(err)
	}
	files, err := repo.Files(ctx, rev.Commit, "/app")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files["cm.yaml"] == nil {
		t.Errorf("files = %v, want cm.yaml alone", files)
	}
}

func TestFilesBounded(t *testing.T) {
	r := upstreamtest.New(t)
	r.Commit(map[string]string{"app/a.yaml": "a: 1\n", "app/b.yaml": "b: 2\n", "app/c.yaml": "c: 3\n"})
	r.Git("tag", "v1")
	s, err := gitstore.New(gitstore.Options{Dir: t.TempDir(), AllowLocalAndSSH: true, MaxTreeFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	repo, err := Open(ctx, s, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := repo.Resolve(ctx, "/app", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Files(ctx, rev.Commit, "/app"); !errors.Is(err, gitstore.ErrTreeTooLarge) {
		t.Errorf("3 files under a bound of 2: %v", err)
	}
}

func TestOpenURLForms(t *testing.T) {
	r := upstreamtest.New(t)
	want := r.Commit(map[string]string{"app/Kptfile": "kind: Kptfile\n"})
	r.Git("tag", "app/v1")
	bare := filepath.Join(t.TempDir(), "up.git")
	r.Git("clone", "-q", "--bare", r.Dir, bare)
	ctx := context.Background()
	for _, u := range []string{r.Dir, "file://" + r.Dir, bare, "file://" + bare} {
		repo, err := Open(ctx, newStore(t), u)
		if err != nil {
			t.Errorf("Open(%q): %v", u, err)
			continue
		}
		if rev, err := repo.Resolve(ctx, "/app", "v1"); err != nil || rev.Commit.String() != want {
			t.Errorf("%s: Resolve = %v %v", u, rev, err)
		}
	}
	if _, err := Open(ctx, newStore(t), filepath.Join(t.TempDir(), "nothing")); err == nil {
		t.Error("a missing repository was opened")
	}
	// the bot's store refuses local paths: a Kptfile cannot make it read the disk
	s, err := gitstore.New(gitstore.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, u := range []string{r.Dir, "file://" + r.Dir, "git@github.com:org/repo.git"} {
		if _, err := Open(ctx, s, u); err == nil {
			t.Errorf("a store without AllowLocalAndSSH opened %q", u)
		}
	}
}
