// Package upstreamtest makes upstream git repositories for tests with the
// git CLI (skipping the test when git is not on PATH).
package upstreamtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a git work tree on branch main.
type Repo struct {
	t   testing.TB
	Dir string
}

// New initialises an empty repository in a temporary directory.
func New(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	r := &Repo{t: t, Dir: filepath.Join(t.TempDir(), "catalog")}
	r.Git("init", "-q", "-b", "main", r.Dir)
	return r
}

// Git runs git in the work tree (init: anywhere) and returns its trimmed
// output; a failure fails the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	if args[0] != "init" {
		cmd.Dir = r.Dir
	}
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Commit writes files (path → content; "" deletes) and commits them all,
// returning the commit id.
func (r *Repo) Commit(files map[string]string) string {
	r.t.Helper()
	for p, c := range files {
		dst := filepath.Join(r.Dir, p)
		if c == "" {
			if err := os.Remove(dst); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(dst, []byte(c), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "commit")
	return r.Git("rev-parse", "HEAD")
}

// Release commits files under dir and tags the commit dir/version (kpt's
// package tag), returning the commit id.
func (r *Repo) Release(dir, version string, files map[string]string) string {
	r.t.Helper()
	under := make(map[string]string, len(files))
	for p, c := range files {
		under[dir+"/"+p] = c
	}
	h := r.Commit(under)
	r.Git("tag", dir+"/"+version)
	return h
}

// Kptfile is the Kptfile kpt pkg get writes for package name fetched from
// repo at directory dir, ref ref, resolved as lockRef at commit.
func Kptfile(name, repo, dir, ref, lockRef, commit string) string {
	return `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: ` + name + `
upstream:
  type: git
  git:
    repo: ` + repo + `
    directory: ` + dir + `
    ref: ` + ref + `
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git:
    repo: ` + repo + `
    directory: ` + dir + `
    ref: ` + lockRef + `
    commit: ` + commit + `
`
}
