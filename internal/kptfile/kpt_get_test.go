package kptfile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestUpstreamMatchesKptPkgGet fetches a package with `kpt pkg get` from a
// local git repository and checks that renaming the upstream Kptfile and
// setting upstream and upstreamLock gives kpt's downstream Kptfile: byte for
// byte when the upstream Kptfile indents lists the way kpt pkg get writes
// them ("wide"), and the same content when it does not (kpt pkg get
// re-indents every list; porchbot keeps the file's own indentation).
func TestUpstreamMatchesKptPkgGet(t *testing.T) {
	for _, wide := range []bool{true, false} {
		name := "compact"
		if wide {
			name = "wide"
		}
		t.Run(name, func(t *testing.T) { testUpstreamMatchesKptPkgGet(t, wide) })
	}
}

func testUpstreamMatchesKptPkgGet(t *testing.T, wide bool) {
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		t.Skip("kpt is not installed; the comparison with kpt pkg get is skipped")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	repo := filepath.Join(base, "up")
	env := append(os.Environ(), "HOME="+base, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	run := func(dir string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	upstreamKptfile := `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: upf
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: User plane function
  keywords:
  - 5g
pipeline:
  mutators:
  - image: gcr.io/kpt-fn/set-namespace:v0.4.1
    configMap:
      namespace: upf
`
	if wide {
		upstreamKptfile = strings.NewReplacer("\n  - ", "\n    - ", "\n    configMap", "\n      configMap", "\n      namespace", "\n        namespace").Replace(upstreamKptfile)
	}
	pkgDir := filepath.Join(repo, "network", "upf")
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkgDir, FileName), []byte(upstreamKptfile), 0o644); err != nil {
		t.Fatal(err)
	}
	run(repo, "git", "init", "-q", "-b", "main")
	run(repo, "git", "add", "-A")
	run(repo, "git", "commit", "-qm", "upf")
	run(repo, "git", "tag", "network/upf/v1")
	sha := run(repo, "git", "rev-parse", "HEAD")

	repoURL := "file://" + repo
	run(base, kpt, "pkg", "get", repoURL+".git/network/upf@network/upf/v1", "edge-upf")
	want, err := os.ReadFile(filepath.Join(base, "edge-upf", FileName))
	if err != nil {
		t.Fatal(err)
	}

	f, err := Parse([]byte(upstreamKptfile))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.SetName("edge-upf"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetUpstream(&Upstream{Type: OriginGit, Git: &Git{Repo: repoURL, Directory: "/network/upf", Ref: "network/upf/v1"}, UpdateStrategy: ResourceMerge}); err != nil {
		t.Fatal(err)
	}
	if err := f.SetUpstreamLock(&UpstreamLock{Type: OriginGit, Git: &GitLock{Repo: repoURL, Directory: "/network/upf", Ref: "network/upf/v1", Commit: sha}}); err != nil {
		t.Fatal(err)
	}
	got, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if wide {
		if !bytes.Equal(got, want) {
			t.Errorf("porchbot:\n%s\nkpt pkg get:\n%s", got, want)
		}
		return
	}
	kptFile, err := Parse(want)
	if err != nil {
		t.Fatalf("kpt's Kptfile: %v", err)
	}
	if !reflect.DeepEqual(f.Kptfile(), kptFile.Kptfile()) {
		t.Errorf("content differs:\nporchbot:\n%s\nkpt pkg get:\n%s", got, want)
	}
	if !bytes.Contains(got, []byte("\n  keywords:\n  - 5g\n")) {
		t.Errorf("porchbot re-indented the file's lists:\n%s", got)
	}
}
