package downstreams

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/upstream/upstreamtest"
)

func ds(repo, pkg, upRepo, upDir string) Downstream {
	return Downstream{Repo: repo, Package: pkg, Upstream: kptfile.Git{Repo: upRepo, Directory: upDir, Ref: "v1"}}
}

func names(ds []Downstream) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Repo+":"+d.Package)
	}
	return out
}

func TestRegistryFindAcrossForms(t *testing.T) {
	r := NewRegistry()
	r.Replace("team/a", []Downstream{
		ds("team/a", "app", "https://github.com/Org/Catalog.git", "/app"),
		ds("team/a", "other", "https://github.com/org/catalog", "/other"),
		ds("team/a", "local", "/tmp/catalog", "/app"),
	})
	r.Replace("team/b", []Downstream{ds("team/b", "web/app", "git@github.com:org/catalog", "app/")})
	r.Replace("team/c", []Downstream{ds("team/c", "app", "https://ghe.example.com/org/catalog", "/app")})

	want := []string{"team/a:app", "team/b:web/app"}
	for _, q := range []struct{ url, dir string }{
		{"https://github.com/org/catalog.git", "app"},
		{"ssh://git@github.com/ORG/catalog", "/app/"},
		{"git@github.com:org/catalog.git", "/app"},
	} {
		if got := names(r.Find(q.url, q.dir)); !reflect.DeepEqual(got, want) {
			t.Errorf("Find(%q, %q) = %v, want %v", q.url, q.dir, got, want)
		}
	}
	if got := names(r.Find("https://github.com/org/catalog", "/app/sub")); got != nil {
		t.Errorf("a subdirectory matched: %v", got)
	}
	if got := names(r.Find("/tmp/catalog", "/app")); got != nil {
		t.Errorf("a local path matched: %v", got)
	}

	// Tracking: every directory of the upstream repository, any URL form.
	if got := names(r.Tracking("git@github.com:ORG/catalog.git")); !reflect.DeepEqual(got, []string{"team/a:app", "team/a:other", "team/b:web/app"}) {
		t.Errorf("Tracking = %v", got)
	}
	if got := r.Tracking("/tmp/catalog"); got != nil {
		t.Errorf("Tracking of a local path: %v", names(got))
	}

	// Replace forgets what a repository no longer has.
	r.Replace("Team/A", nil)
	if got := names(r.Find("https://github.com/org/catalog", "app")); !reflect.DeepEqual(got, []string{"team/b:web/app"}) {
		t.Errorf("after Replace: %v", got)
	}
	if r.Repos() != 2 {
		t.Errorf("Repos = %d, want 2", r.Repos())
	}
}

func TestFromTree(t *testing.T) {
	files := map[string][]byte{
		"pkgs/app/Kptfile": []byte(upstreamtest.Kptfile("app", "https://github.com/org/catalog", "/app", "v1", "app/v1",
			"0123456789012345678901234567890123456789")),
		"pkgs/app/cm.yaml": []byte("kind: ConfigMap\n"),
		"pkgs/app/sub/Kptfile": []byte(`apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: sub
upstream:
  type: git
  git:
    repo: git@github.com:org/other
    directory: sub
    ref: main
`),
		"pkgs/own/Kptfile":    []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: own\n"),
		"pkgs/broken/Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: [\n"),
		"elsewhere/x/Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n"),
	}
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	read := func(p string) ([]byte, error) {
		if b, ok := files[p]; ok {
			return b, nil
		}
		return nil, errors.New("missing")
	}
	got, err := FromTree("team/a", 7, paths, "pkgs", read)
	if err == nil {
		t.Error("the broken Kptfile was not reported")
	} else if want := "pkgs/broken/Kptfile"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %s", err, want)
	}
	if len(got) != 2 {
		t.Fatalf("got %+v, want app and app/sub", got)
	}
	app, sub := got[0], got[1]
	if app.Package != "app" || app.Dir != "pkgs/app" || app.InstallationID != 7 || app.Strategy != "resource-merge" ||
		app.Lock == nil || app.Lock.Ref != "app/v1" || app.Upstream.Directory != "/app" {
		t.Errorf("app = %+v", app)
	}
	if sub.Package != "app/sub" || sub.Lock != nil || sub.Upstream.Repo != "git@github.com:org/other" {
		t.Errorf("sub = %+v", sub)
	}
}
