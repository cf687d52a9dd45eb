package builtins

import (
	"errors"
	"strings"
	"testing"
)

// Images resolve to the release kpt would run: a name without registry is
// under the catalog's registry, a floating tag is the newest patch release of
// its line, and the Kptfile's `tag` constraint picks the newest release it
// allows.
func TestResolveTiesImagesToReleases(t *testing.T) {
	for _, c := range []struct{ image, tag, name, version string }{
		{"gcr.io/kpt-fn/set-namespace:v0.4.1", "", "set-namespace", "v0.4.1"},
		{"ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.0", "", "starlark", "v0.4.0"},
		{"set-namespace:v0.4", "", "set-namespace", "v0.4.1"},
		{"  GCR.io/kpt-fn/Set-Labels:v0.2  ", "", "set-labels", "v0.2.1"},
		{"starlark:v0.4", "", "starlark", "v0.4.3"},
		{"gcr.io/kpt-fn/starlark:v0.5.0", "", "starlark", "v0.5.0"},
		{"gcr.io/kpt-fn/set-image", "v0.1", "set-image", "v0.1.1"},
		{"gcr.io/kpt-fn/starlark", "~0.4.1", "starlark", "v0.4.3"},
		{"gcr.io/kpt-fn/starlark", ">=v0.4.0, <v0.5", "starlark", "v0.4.3"},
		{"gcr.io/kpt-fn/starlark", "^0.5", "starlark", "v0.5.1"},
		{"gcr.io/kpt-fn/starlark", "0.4.x", "starlark", "v0.4.3"},
		{"gcr.io/kpt-fn/starlark:latest", "v0.4.2", "starlark", "v0.4.2"}, // kpt: the tag field wins
		{"gcr.io/kpt-fn/starlark", "0.4.1 - 0.4.2", "starlark", "v0.4.2"}, // kpt's constraints are Masterminds semver's
		{"gcr.io/kpt-fn/set-namespace", "v0.4.0 || v0.3.4", "set-namespace", "v0.4.0"},
		{"gcr.io/kpt-fn/set-namespace", "v0.4", "set-namespace", "v0.4.1"},    // a literal tag: the line's floating tag
		{"gcr.io/kpt-fn/set-namespace:latest", "", "set-namespace", "v0.4.1"}, // latest: the newest release porchbot knows
		{"gcr.io/kpt-fn/set-namespace", "", "set-namespace", "v0.4.1"},
		{"starlark", "", "starlark", "v0.5.1"},
	} {
		r, err := Resolve(c.image, c.tag)
		if err != nil {
			t.Errorf("Resolve(%q, %q): %v", c.image, c.tag, err)
			continue
		}
		if r.Spec.Name != c.name || r.Version != c.version || r.New == nil || r.New() == nil {
			t.Errorf("Resolve(%q, %q) = %s %s, want %s %s", c.image, c.tag, r.Spec.Name, r.Version, c.name, c.version)
		}
	}
}

// A tag, constraint or digest porchbot cannot tie to a release it
// reproduces fails with one message: the image, the releases porchbot runs
// and the two ways on.
func TestResolveRefusesWhatItCannotTie(t *testing.T) {
	for _, c := range []struct{ image, tag, why string }{
		{"gcr.io/kpt-fn/set-namespace:v0.9.0", "", `the tag "v0.9.0" is not a release of set-namespace`},
		{"gcr.io/kpt-fn/set-namespace:v0.4.7", "", `the tag "v0.4.7" is not a release`},
		{"gcr.io/kpt-fn/set-namespace:stable", "", `the tag "stable" is not a release`},
		{"gcr.io/kpt-fn/set-namespace:v0", "", `the tag "v0" is not a release`},
		{"gcr.io/kpt-fn/set-namespace:0.4.1", "", `the tag "0.4.1" is not a release`},
		{"gcr.io/kpt-fn/set-namespace:v0.4.1@sha256:0123456789abcdef", "", "the digest sha256:0123456789abcdef"},
		{"gcr.io/kpt-fn/set-namespace@sha256:0123456789abcdef", "", "the digest"},
		{"gcr.io/kpt-fn/set-namespace", ">v0.9", `no release of set-namespace meets the version constraint ">v0.9"`},
		{"gcr.io/kpt-fn/set-namespace", "0.4.1", `the tag "0.4.1" is not a release`}, // an exact version is the tag as written
		{"gcr.io/kpt-fn/set-namespace", "-bad", "neither a version constraint nor a valid image tag"},
	} {
		_, err := Resolve(c.image, c.tag)
		var verr *VersionError
		if !errors.As(err, &verr) {
			t.Errorf("Resolve(%q, %q) = %v, want a VersionError", c.image, c.tag, err)
			continue
		}
		msg := err.Error()
		for _, want := range []string{c.why, "never runs another version", "porchbot runs set-namespace " + strings.Join(verr.Versions, ", "),
			"pin one of them (e.g. image: gcr.io/kpt-fn/set-namespace:", "exec allowlist name a program for this image"} {
			if !strings.Contains(msg, want) {
				t.Errorf("Resolve(%q, %q): message lacks %q:\n%s", c.image, c.tag, want, msg)
			}
		}
	}
}

// Every catalog release of a built-in either runs or is refused by name:
// a release porchbot does not reproduce is never replaced by a neighbour.
func TestResolveNeverSubstitutesARelease(t *testing.T) {
	for _, s := range All() {
		runs := map[string]bool{}
		for _, v := range s.Versions() {
			runs[v] = true
		}
		if len(runs) == 0 {
			t.Errorf("%s runs no release", s.Name)
		}
		for _, r := range s.releases {
			got, err := Resolve("gcr.io/kpt-fn/"+s.Name+":"+r.version, "")
			switch {
			case runs[r.version] && (err != nil || got.Version != r.version):
				t.Errorf("%s %s: got %s, %v", s.Name, r.version, got.Version, err)
			case !runs[r.version] && (err == nil || !strings.Contains(err.Error(), "a release porchbot does not reproduce")):
				t.Errorf("%s %s is not reproduced, but resolved to %s (%v)", s.Name, r.version, got.Version, err)
			}
		}
	}
}

func TestResolveOtherImages(t *testing.T) {
	for image, want := range map[string]string{
		"gcr.io/example/frobnicate:v1":            "has no built-in named frobnicate",
		"docker.io/foo/set-namespace:v0.4.1":      "has no built-in for images of docker.io/foo",
		"localhost:5000/kpt-fn/set-labels":        "has no built-in for images of localhost:5000/kpt-fn",
		"gcr.io/kpt-fn/source-gcloud-config:v0.1": "has no built-in named source-gcloud-config",
		"gcr.io/kpt-fn/set-namespace-x:v0.1":      "has no built-in named set-namespace-x",
		"gcr.io/kpt-fn/sub/set-namespace:v0.1":    "has no built-in for images of gcr.io/kpt-fn/sub",
	} {
		_, err := Resolve(image, "")
		var nb *ErrNotBuiltin
		if !errors.As(err, &nb) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "set-namespace, set-project-id, starlark") {
			t.Errorf("Resolve(%q) = %v, want ErrNotBuiltin saying %q", image, err, want)
		}
	}
}

func TestVersionRanges(t *testing.T) {
	s := Spec{releases: append(notReproduced("v0.1.0"), releases(nil, "v0.3.0", "v0.3.1", "v0.3.2", "v0.4.0", "v0.5.0", "v0.5.1")...)}
	if got, want := s.VersionRanges(), "v0.3.0–v0.3.2, v0.4.0, v0.5.0–v0.5.1"; got != want {
		t.Errorf("VersionRanges = %q, want %q", got, want)
	}
}

// TestResolveLatestSaysWhatRan: latest (or no tag) runs the newest release
// porchbot knows and says so; when porchbot's table of the catalog has a
// newer release it does not reproduce, the note says kpt would pull that.
func TestResolveLatestSaysWhatRan(t *testing.T) {
	r, err := Resolve("gcr.io/kpt-fn/set-labels:latest", "")
	if err != nil || r.Version != "v0.2.1" || !strings.Contains(r.Note, "latest is v0.2.1, the newest release of set-labels porchbot knows") {
		t.Fatalf("set-labels:latest = %s %q (%v)", r.Version, r.Note, err)
	}
	if r, err := Resolve("gcr.io/kpt-fn/set-labels:v0.2.1", ""); err != nil || r.Note != "" {
		t.Fatalf("a release named: note %q (%v)", r.Note, err)
	}
	made := func() Function { return nil }
	s := Spec{Name: "fn", releases: []release{{version: "v0.1.0", new: made}, {version: "v0.1.1", new: made}, {version: "v0.2.0"}}}
	r, err = s.latest(func(why string) error { return errors.New(why) })
	if err != nil || r.Version != "v0.1.1" || !strings.Contains(r.Note, "kpt would pull v0.2.0 or newer, which porchbot does not reproduce: pin v0.1.1") {
		t.Fatalf("newest not reproduced: %s %q (%v)", r.Version, r.Note, err)
	}
	none := Spec{Name: "fn", releases: []release{{version: "v0.1.0"}}}
	if _, err := none.latest(func(why string) error { return errors.New(why) }); err == nil || !strings.Contains(err.Error(), "reproduces no release of fn") {
		t.Fatalf("nothing reproduced: %v", err)
	}
}
