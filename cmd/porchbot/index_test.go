package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexCLI: `porchbot index` from a checkout and from a file:// URL
// gives the same bytes; `index verify` passes, then reports a moved tag
// with exit code 1.
func TestIndexCLI(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(dir, "basens"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "basens", "Kptfile"), []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\ninfo:\n  description: base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "basens")
	git("tag", "basens/v1")
	git("commit", "-q", "--allow-empty", "-m", "later")

	cli := runCLI
	out := filepath.Join(t.TempDir(), "index.yaml")
	if code, _, stderr := cli("index", dir, "-o", out, "--repository", "acme/catalog"); code != 0 {
		t.Fatalf("index: %d %s", code, stderr)
	}
	fromDir, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	code, fromURL, stderr := cli("index", "--repository", "acme/catalog", "file://"+dir)
	if code != 0 || fromURL != string(fromDir) {
		t.Fatalf("from the URL (%d, %s):\n%s\nfrom the checkout:\n%s", code, stderr, fromURL, fromDir)
	}
	for _, want := range []string{"kind: PackageIndex", "repository: acme/catalog", "name: basens", "description: base", "tag: basens/v1", "digest: sha256:"} {
		if !strings.Contains(fromURL, want) {
			t.Errorf("index lacks %q:\n%s", want, fromURL)
		}
	}
	if code, stdout, stderr := cli("index", "verify", out, dir); code != 0 || !strings.Contains(stdout, "1 revision(s) of 1 package(s) verified") {
		t.Fatalf("verify: %d\n%s%s", code, stdout, stderr)
	}
	git("tag", "-f", "basens/v1", "HEAD")
	code, stdout, stderr := cli("index", "verify", out, dir)
	if code != 1 || !strings.Contains(stdout, "basens/v1: tag moved") || !strings.Contains(stderr, "1 problem(s)") {
		t.Fatalf("verify after moving the tag: %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := cli("index", "/nonexistent/repo"); code != 1 || !strings.Contains(stderr, "clone /nonexistent/repo") {
		t.Fatalf("a missing repository: %d %s", code, stderr)
	}
}
