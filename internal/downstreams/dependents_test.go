package downstreams

import (
	"reflect"
	"testing"

	"github.com/porchbot/porchbot/internal/kptfile"
)

func TestNameableIn(t *testing.T) {
	for _, c := range []struct {
		d    Downstream
		want bool
	}{
		{Downstream{Repo: "acme/edge", Public: true}, true},
		{Downstream{Repo: "acme/secret"}, false},
		{Downstream{Repo: "ACME/Catalog"}, true}, // the thread's own repository
	} {
		if got := c.d.NameableIn("acme/catalog"); got != c.want {
			t.Errorf("%+v in acme/catalog: %v, want %v", c.d, got, c.want)
		}
	}
}

func TestOfPackage(t *testing.T) {
	own := func(pkg, dir, upDir string) Downstream {
		d := ds("acme/catalog", pkg, "https://github.com/acme/catalog", upDir)
		d.Dir = dir
		return d
	}
	all := []Downstream{
		ds("acme/edge", "upf", "https://github.com/acme/catalog", "/network/upf/"),
		ds("acme/edge", "smf", "https://github.com/acme/catalog", "network/smf"),
		ds("acme/edge", "deep", "https://github.com/acme/catalog", "network/upf/sub"),
		own("mirror", "mirror", "./network/upf"),
		own("network/upf/sub", "network/upf/sub", "network/upf"), // its own subpackage
		own("network/upf", "network/upf", "network/upf"),         // itself
	}
	if got := names(OfPackage(all, "ACME/catalog", "network/upf")); !reflect.DeepEqual(got, []string{"acme/edge:upf", "acme/catalog:mirror"}) {
		t.Errorf("OfPackage = %v", got)
	}
}

func TestTrackedRevision(t *testing.T) {
	d := ds("acme/edge", "upf", "https://github.com/acme/catalog", "network/upf")
	for _, c := range []struct {
		ref  string
		lock *kptfile.GitLock
		rev  int
		at   string
	}{
		{"network/upf/v2", nil, 2, "network/upf/v2"},
		{"refs/tags/network/upf/v3", nil, 3, "network/upf/v3"},
		{"main", &kptfile.GitLock{Ref: "network/upf/v4", Commit: "abc"}, 4, "network/upf/v4"},
		{"main", &kptfile.GitLock{Commit: "abc"}, 0, "main"},
		{"other/v1", nil, 0, "other/v1"},
	} {
		d.Upstream.Ref, d.Lock = c.ref, c.lock
		if got := d.TrackedRevision("network/upf"); got != c.rev {
			t.Errorf("%s %+v: revision %d, want %d", c.ref, c.lock, got, c.rev)
		}
		if at, _ := d.TrackedRef(); at != c.at {
			t.Errorf("%s %+v: ref %q, want %q", c.ref, c.lock, at, c.at)
		}
	}
}
