package update

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mergeBothWays merges with and without the pruning of same fields and
// fails when the results (files, conflicts or errors) differ.
func mergeBothWays(t *testing.T, origin, updated, local Files, opts Options) {
	t.Helper()
	defer func() { walkPruned = true }()
	walkPruned = true
	pr, perr := Merge(origin, updated, local, opts)
	walkPruned = false
	wr, werr := Merge(origin, updated, local, opts)
	if (perr == nil) != (werr == nil) || (perr != nil && perr.Error() != werr.Error()) {
		t.Fatalf("pruned: %v, whole walk: %v", perr, werr)
	}
	if d := diffFiles(pr.Files, wr.Files); d != "" {
		t.Fatalf("pruned merge differs from the whole walk:\n%s", d)
	}
	if len(pr.Conflicts) != len(wr.Conflicts) {
		t.Fatalf("pruned: %+v, whole walk: %+v", pr.Conflicts, wr.Conflicts)
	}
	for i := range pr.Conflicts {
		if pr.Conflicts[i] != wr.Conflicts[i] {
			t.Fatalf("conflict %d: pruned %+v, whole walk %+v", i, pr.Conflicts[i], wr.Conflicts[i])
		}
	}
}

// TestPruneSameIsInvisible: the conformance cases and the generated live
// cases merge the same with the pruning as with kyaml's whole walk.
func TestPruneSameIsInvisible(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(conformanceDir, "*", "origin"))
	if shared := os.Getenv("PORCHBOT_UPDATE_CONFORMANCE_DIR"); shared != "" {
		more, _ := filepath.Glob(filepath.Join(shared, "*", "origin"))
		dirs = append(dirs, more...)
	}
	for _, o := range dirs {
		dir := filepath.Dir(o)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			for _, side := range []string{SideUpstream, SideLocal} {
				mergeBothWays(t, readDir(t, o), readDir(t, filepath.Join(dir, "updated")), readDir(t, filepath.Join(dir, "local")), Options{OnConflict: side})
			}
		})
	}
	for _, c := range liveCases() {
		t.Run(c.name, func(t *testing.T) {
			origin := genUpdatePackage(c.resources, c.files)
			local := fetchedLike(t, origin)
			c.local(local)
			mergeBothWays(t, origin, c.upstream(origin), local, Options{Strategy: c.strategy})
		})
	}
	t.Run("reordered-and-added", func(t *testing.T) {
		origin := Files{"Kptfile": []byte(fuzzKptfile), "r.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {x: y}\ndata:\n  a: '1'\n  b: two # c\n  c: {d: e}\n")}
		updated := Files{"Kptfile": origin["Kptfile"], "r.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {x: y}\n  name: a\ndata:\n  c: {d: e}\n  a: '2'\n  z: new\n  b: two # c\n")}
		local := Files{"Kptfile": origin["Kptfile"], "r.yaml": []byte(strings.Replace(string(origin["r.yaml"]), "  a: '1'\n", "  a: '1'\n  l: ours\n", 1))}
		mergeBothWays(t, origin, updated, local, Options{})
	})
}

// FuzzPruneSame: any three parseable packages merge the same with the
// pruning as with kyaml's whole walk.
func FuzzPruneSame(f *testing.F) {
	addConformanceSeeds(f)
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  a: b\n"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  a: c\n  x: {}\n"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  a: b\n  k: [1]\n"))
	f.Fuzz(func(t *testing.T, o, u, l []byte) {
		origin, updated, local, ok := fuzzPackages(o, u, l)
		if !ok {
			return
		}
		mergeBothWays(t, origin, updated, local, Options{})
	})
}
