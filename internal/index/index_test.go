package index_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/index"
)

// TestTreeDigestDefinition spells the documented definition out: paths
// sorted, each "path NUL length NUL bytes", SHA-256.
func TestTreeDigestDefinition(t *testing.T) {
	files := map[string][]byte{"sub/Kptfile": []byte("b"), "Kptfile": []byte("kind: Kptfile\n")}
	h := sha256.New()
	h.Write([]byte("Kptfile\x0014\x00kind: Kptfile\n"))
	h.Write([]byte("sub/Kptfile\x001\x00b"))
	if got, want := index.TreeDigest(files), "sha256:"+hex.EncodeToString(h.Sum(nil)); got != want {
		t.Fatalf("digest %s, want %s", got, want)
	}
	// A renamed file with the same bytes is other content.
	if index.TreeDigest(map[string][]byte{"a": []byte("x")}) == index.TreeDigest(map[string][]byte{"b": []byte("x")}) {
		t.Fatal("names do not count")
	}
	// Length framing: "ab"+"c" is not "a"+"bc".
	if index.TreeDigest(map[string][]byte{"a": []byte("b\x00c")}) == index.TreeDigest(map[string][]byte{"a": []byte("b"), "\x00c": nil}) {
		t.Fatal("framing is ambiguous")
	}
}

// repo is a git repository in a temporary directory, driven with git.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	r.git("remote", "add", "origin", "https://github.example.com/acme/catalog.git")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(files map[string]string) string {
	r.t.Helper()
	for p, data := range files {
		full := filepath.Join(r.dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "change")
	return r.git("rev-parse", "HEAD")
}

const upfKptfile = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: upf
upstream:
  type: git
  git:
    repo: https://github.com/acme/blueprints
    directory: /upf
    ref: upf/v4
upstreamLock:
  type: git
  git:
    repo: https://github.com/acme/blueprints
    directory: /upf
    ref: upf/v4
    commit: 0123456789abcdef0123456789abcdef01234567
info:
  site: https://example.com/upf
  description: User plane
  keywords: [5g, upf]
`

func TestBuildVerify(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	c1 := r.write(map[string]string{"network/upf/Kptfile": upfKptfile, "network/upf/deploy.yaml": "replicas: 1\n", "README.md": "x\n"})
	r.git("tag", "network/upf/v1")
	c2 := r.write(map[string]string{"network/upf/deploy.yaml": "replicas: 2\n", "basens/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n"})
	r.git("tag", "-a", "-m", "v2", "network/upf/v2")
	r.git("tag", "basens/v1")
	r.git("tag", "not-a-revision")
	r.write(map[string]string{"README.md": "y\n"}) // no package changed: not a revision

	src, name, err := index.Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if name != "acme/catalog" {
		t.Fatalf("repository name %q", name)
	}
	prev := &index.Index{Packages: []index.Package{{Name: "network/upf", Revisions: []index.Revision{
		{Revision: 1, Tag: "network/upf/v1", Commit: c1, Digest: "sha256:" + strings.Repeat("0", 64), Approvers: []string{"bob"}},
	}}}}
	idx, err := index.Build(ctx, src, index.Options{Repository: name, Previous: prev,
		Approvers:   map[string][]string{"network/upf/v2": {"carol", "Bob"}},
		Downstreams: map[string][]index.Downstream{"network/upf": {{Repository: "acme/edge-1", Package: "upf", Revision: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Packages) != 2 || idx.Packages[0].Name != "basens" || idx.Packages[1].Name != "network/upf" {
		t.Fatalf("packages %+v", idx.Packages)
	}
	upf := idx.Packages[1]
	if upf.Description != "User plane" || upf.Site != "https://example.com/upf" || strings.Join(upf.Keywords, ",") != "5g,upf" ||
		upf.Upstream == nil || upf.Upstream.Ref != "upf/v4" || upf.Upstream.Commit == "" || len(upf.Downstreams) != 1 {
		t.Fatalf("upf %+v", upf)
	}
	if len(upf.Revisions) != 2 || upf.Revisions[0].Revision != 2 || upf.Revisions[0].Commit != c2 || upf.Revisions[1].Commit != c1 {
		t.Fatalf("revisions %+v", upf.Revisions)
	}
	// v1 kept the previous index's digest and approvers (same commit).
	if upf.Revisions[1].Approvers[0] != "bob" || !strings.HasSuffix(upf.Revisions[1].Digest, strings.Repeat("0", 64)) {
		t.Fatalf("v1 %+v", upf.Revisions[1])
	}
	want := index.TreeDigest(map[string][]byte{"Kptfile": []byte(upfKptfile), "deploy.yaml": []byte("replicas: 2\n")})
	if v2 := upf.Revisions[0]; v2.Digest != want || strings.Join(v2.Approvers, ",") != "Bob,carol" || v2.Published.IsZero() {
		t.Fatalf("v2 %+v, want digest %s", v2, want)
	}

	// The same bytes twice, and through Decode.
	a, err := index.Encode(idx)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := index.Build(ctx, src, index.Options{Repository: name, Previous: prev,
		Approvers:   map[string][]string{"network/upf/v2": {"carol", "Bob"}},
		Downstreams: map[string][]index.Downstream{"network/upf": {{Repository: "acme/edge-1", Package: "upf", Revision: 1}}}})
	b, _ := index.Encode(again)
	if string(a) != string(b) {
		t.Fatalf("not the same bytes:\n%s\n%s", a, b)
	}
	dec, err := index.Decode(a)
	if err != nil {
		t.Fatal(err)
	}

	// Downstreams unknown (nil: an offline build) are the previous
	// index's; known and empty, there are none.
	carried, err := index.Build(ctx, src, index.Options{Repository: name, Previous: dec})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := index.Encode(carried); string(c) != string(a) {
		t.Fatalf("an offline build on the index does not give its bytes:\n%s\n%s", c, a)
	}
	none, err := index.Build(ctx, src, index.Options{Repository: name, Previous: dec, Downstreams: map[string][]index.Downstream{}})
	if err != nil {
		t.Fatal(err)
	}
	if ds := none.Packages[1].Downstreams; len(ds) != 0 {
		t.Fatalf("downstreams %+v after the registry knew none", ds)
	}

	// Verify: the fake v1 digest is a content problem; the rest holds.
	problems, err := index.Verify(ctx, dec, src, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || problems[0].Tag != "network/upf/v1" || problems[0].Kind != index.ProblemContent {
		t.Fatalf("problems %v", problems)
	}

	// A fresh build is true to the repository; then move a tag, delete
	// one, add one.
	fresh, err := index.Build(ctx, src, index.Options{Repository: name})
	if err != nil {
		t.Fatal(err)
	}
	if problems, err := index.Verify(ctx, fresh, src, "."); err != nil || len(problems) != 0 {
		t.Fatalf("fresh index: %v (%v)", problems, err)
	}
	r.git("tag", "-f", "basens/v1", "HEAD")
	r.git("tag", "-d", "network/upf/v1")
	r.git("tag", "network/upf/v3")
	src, _, err = index.Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	problems, err = index.Verify(ctx, fresh, src, ".")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.Tag+": "+p.Kind)
	}
	if strings.Join(got, "\n") != "basens/v1: tag moved\nnetwork/upf/v1: tag missing\nnetwork/upf/v3: not in index" {
		t.Fatalf("problems:\n%s", strings.Join(got, "\n"))
	}
}

func TestRepositoryName(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/acme/catalog.git": "acme/catalog",
		"https://github.com/acme/catalog":     "acme/catalog",
		"git@github.com:acme/catalog.git":     "acme/catalog",
		"ssh://git@ghe.example.com/acme/cat/": "acme/cat",
		"http://127.0.0.1:8080/acme/catalog":  "acme/catalog",
		"/just/a/path":                        "/just/a/path",
		"https://example.com/one":             "https://example.com/one",
	} {
		if got := index.RepositoryName(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
