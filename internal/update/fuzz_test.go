package update

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// fuzzKptfile is the Kptfile of the fuzzed packages: a fetched package, so
// that the local one is a kpt package with an upstream.
const fuzzKptfile = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
upstream:
  type: git
  git:
    repo: https://example.com/up.git
    directory: /app
    ref: v1
  updateStrategy: resource-merge
`

// fuzzPackage turns fuzz bytes into a package: the Kptfile, the bytes as a
// YAML file of resources, and a README.
func fuzzPackage(resources []byte) Files {
	return Files{"Kptfile": []byte(fuzzKptfile), "resources.yaml": resources, "README.md": []byte("# app\n")}
}

// fuzzPackages are the three packages of fuzz bytes; ok is false when one
// of them does not parse.
func fuzzPackages(o, u, l []byte) (origin, updated, local Files, ok bool) {
	origin, updated, local = fuzzPackage(o), fuzzPackage(u), fuzzPackage(l)
	for _, p := range []Files{origin, updated, local} {
		if CheckFiles("fuzz", p) != nil {
			return nil, nil, nil, false
		}
	}
	return origin, updated, local, true
}

// FuzzMerge: any three parseable packages merge without a panic, and a
// package merged with itself (origin = updated = local) is the identity
// once kpt's normal form (merge comments, identifiers) is reached, with no
// conflict.
func FuzzMerge(f *testing.F) {
	addConformanceSeeds(f)
	f.Add([]byte("a: 1\n"), []byte("- x\n- y\n"), []byte(""))
	f.Fuzz(func(t *testing.T, o, u, l []byte) {
		origin, updated, local, ok := fuzzPackages(o, u, l)
		if !ok {
			return
		}
		_, _ = Merge(origin, updated, local, Options{})
		_, _ = Merge(origin, updated, local, Options{OnConflict: SideLocal})

		self, err := Merge(local, local, local, Options{})
		if err != nil {
			return // kyaml refuses some inputs (duplicate resources, …) the same way each time
		}
		if len(self.Conflicts) != 0 {
			t.Fatalf("conflicts merging a package with itself: %+v", self.Conflicts)
		}
		again, err := Merge(self.Files, self.Files, self.Files, Options{})
		if err != nil {
			t.Fatalf("merging the normal form with itself: %v", err)
		}
		if d := diffFiles(again.Files, self.Files); d != "" {
			t.Fatalf("merging a package with itself changed it:\n%s", d)
		}
	})
}

// addConformanceSeeds seeds a fuzz target with the deployment.yaml of each
// conformance case (origin, updated, local).
func addConformanceSeeds(f *testing.F) {
	cases, _ := filepath.Glob(filepath.Join(conformanceDir, "*", "origin", "deployment.yaml"))
	for _, o := range cases {
		dir := filepath.Dir(filepath.Dir(o))
		ob, _ := os.ReadFile(o)
		ub, _ := os.ReadFile(filepath.Join(dir, "updated", "deployment.yaml"))
		lb, _ := os.ReadFile(filepath.Join(dir, "local", "deployment.yaml"))
		f.Add(ob, ub, lb)
	}
}

var updateStrategyLine = regexp.MustCompile(`updateStrategy: [a-z-]+`)

// notFixpoint are the kpt outputs that kpt itself changes when it merges
// them with themselves: `EXTRA: on` becomes `EXTRA: "on"` (checked with
// kpt 1.0.0-beta.56: origin = updated = local).
var notFixpoint = map[string]bool{"multi-resource-file": true}

// TestMergeWithItselfIsIdentity: every package kpt wrote (the expected
// result of each conformance case) merged with itself is unchanged, byte
// for byte, with every strategy; where kpt normalises a value on the way,
// the normalised package merged with itself is unchanged.
func TestMergeWithItselfIsIdentity(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(conformanceDir, "*", "expected"))
	if len(dirs) == 0 {
		t.Fatal("no case")
	}
	for _, d := range dirs {
		p := readDir(t, d)
		for _, s := range []string{"", "resource-merge", "fast-forward", "force-delete-replace", "copy-merge"} {
			if notFixpoint[filepath.Base(filepath.Dir(d))] {
				r, err := Merge(p, p, p, Options{Strategy: s})
				if err != nil {
					t.Fatalf("%s (%s): %v", d, s, err)
				}
				p = r.Files
			}
			res, err := Merge(p, p, p, Options{Strategy: s})
			if err != nil {
				t.Fatalf("%s (%s): %v", d, s, err)
			}
			// the strategy override is recorded in the Kptfile, as kpt does
			want := p
			if s != "" {
				want = Files{}
				for k, v := range p {
					want[k] = v
				}
				want["Kptfile"] = updateStrategyLine.ReplaceAll(p["Kptfile"], []byte("updateStrategy: "+s))
			}
			if diff := diffFiles(res.Files, want); diff != "" || len(res.Conflicts) != 0 {
				t.Errorf("%s (%s) merged with itself changed:\n%s%+v", d, s, diff, res.Conflicts)
			}
		}
	}
}
