package render

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// savingKptfile is a root Kptfile that asks kpt (v1.0.0-beta.67) to save a
// failed render, and to render breadth-first when bfs is set.
func savingKptfile(name string, bfs bool, pipeline string) string {
	extra := "    kpt.dev/save-on-render-failure: \"true\"\n"
	if bfs {
		extra += "    kpt.dev/bfs-rendering: \"true\"\n"
	}
	return strings.Replace(kptfile(name, pipeline), "  annotations:\n", "  annotations:\n"+extra, 1)
}

// TestSaveOnRenderFailure: as kpt v1.0.0-beta.67 with the root Kptfile's
// kpt.dev/save-on-render-failure, a failed render writes what it had
// rendered (a failed validator leaves the mutators' output; no file is
// deleted) and still fails; kpt v1.0.0-beta.56 knew no such annotation and
// writes nothing.
func TestSaveOnRenderFailure(t *testing.T) {
	files := failureTree(func(name, pipeline string) string { return savingKptfile(name, false, pipeline) })
	for _, kpt := range []KptRelease{KptBeta56, KptBeta67} {
		t.Run(string(kpt), func(t *testing.T) {
			fs, root := memPkg(t, files)
			res, err := Render(context.Background(), fs, root, Options{Resolve: failureResolver, Kpt: kpt})
			var fe *FunctionError
			if !errors.As(err, &fe) || fe.Function != "policy" || res.Results.ExitCode != 1 {
				t.Fatalf("err = %v (exit %d), want the policy function's failure", err, res.Results.ExitCode)
			}
			got := treeFiles(t, fs, root)
			if kpt == KptBeta56 {
				if res.SavedOnFailure || len(res.Changed) != 0 {
					t.Errorf("beta.56 saved %v", res.Changed)
				}
				for p, c := range files {
					if string(got[p]) != c {
						t.Errorf("%s changed:\n%s", p, got[p])
					}
				}
				return
			}
			if !res.SavedOnFailure || !reflect.DeepEqual(res.Changed, []string{"Kptfile", "r.yaml", "sub/r.yaml"}) || len(res.Deleted) != 0 {
				t.Errorf("saved %v changed %v deleted %v", res.SavedOnFailure, res.Changed, res.Deleted)
			}
			for _, p := range []string{"r.yaml", "sub/r.yaml"} {
				if !strings.Contains(string(got[p]), "namespace: prod") {
					t.Errorf("%s is not the mutators' output:\n%s", p, got[p])
				}
			}
			if string(got["drop/only.yaml"]) != files["drop/only.yaml"] {
				t.Errorf("a saved failure deleted or changed drop/only.yaml:\n%s", got["drop/only.yaml"])
			}
			k := string(got["Kptfile"])
			if !strings.Contains(k, "status: \"False\"") || !strings.Contains(k, "pkg.render: pkg .:\n        \tpipeline.run: already handled error") {
				t.Errorf("Kptfile status:\n%s", k)
			}
		})
	}
}

// TestSaveOnRenderFailureMutator: a mutator that fails leaves its input as
// it was before it ran, without the ids the run put on it; a failure two
// packages below the root returns nothing to it, and kpt then writes
// nothing but the root Kptfile's status.
func TestSaveOnRenderFailureMutator(t *testing.T) {
	resolve := fakeResolver(map[string]framework.ResourceListProcessor{
		"set-namespace": fakeSetNamespace, "boom": fakeFail,
	})
	fs, root := memPkg(t, map[string]string{
		"Kptfile": savingKptfile("m", false, `pipeline:
  mutators:
    - image: set-namespace
      configMap:
        namespace: prod
    - image: boom
      selectors:
        - kind: ConfigMap
`),
		"r.yaml": cm("a"),
	})
	res, err := Render(context.Background(), fs, root, Options{Resolve: resolve, Kpt: KptBeta67})
	if err == nil || !res.SavedOnFailure {
		t.Fatalf("err %v saved %v", err, res.SavedOnFailure)
	}
	r := string(treeFiles(t, fs, root)["r.yaml"])
	if !strings.Contains(r, "namespace: prod") || strings.Contains(r, "config.k8s.io/id") || strings.Contains(r, "kpt-resource-id") {
		t.Errorf("r.yaml:\n%s", r)
	}

	files := map[string]string{
		"Kptfile":     savingKptfile("deep", false, "pipeline:\n  mutators:\n    - image: set-namespace\n      configMap:\n        namespace: root\n"),
		"r.yaml":      cm("a"),
		"a/Kptfile":   kptfile("a", "pipeline:\n  mutators:\n    - image: set-namespace\n      configMap:\n        namespace: a\n"),
		"a/r.yaml":    cm("b"),
		"a/b/Kptfile": kptfile("b", "pipeline:\n  mutators:\n    - image: set-namespace\n      configMap:\n        namespace: b\n    - image: boom\n"),
		"a/b/r.yaml":  cm("c"),
	}
	fs, root = memPkg(t, files)
	res, err = Render(context.Background(), fs, root, Options{Resolve: resolve, Kpt: KptBeta67})
	if err == nil || !res.SavedOnFailure || !reflect.DeepEqual(res.Changed, []string{"Kptfile"}) {
		t.Fatalf("err %v saved %v changed %v", err, res.SavedOnFailure, res.Changed)
	}
	got := treeFiles(t, fs, root)
	for p, c := range files {
		if p != "Kptfile" && string(got[p]) != c {
			t.Errorf("%s changed:\n%s", p, got[p])
		}
	}
	if !strings.Contains(string(got["Kptfile"]), "pkg.render: pkg ./a/b:") {
		t.Errorf("Kptfile:\n%s", got["Kptfile"])
	}
}

// TestBreadthFirst: with kpt.dev/bfs-rendering, packages render top-down,
// each seeing itself and its descendants (never its parent or siblings),
// so a subpackage has the last word on its own resources; without it, the
// parent has.
func TestBreadthFirst(t *testing.T) {
	tree := func(bfs bool) map[string]string {
		k := kptfile("root", "pipeline:\n  mutators:\n    - image: m-root\n    - image: set-namespace\n      configMap:\n        namespace: root\n")
		if bfs {
			k = strings.Replace(k, "  annotations:\n", "  annotations:\n    kpt.dev/bfs-rendering: \"true\"\n", 1)
		}
		return map[string]string{
			"Kptfile":        k,
			"root.yaml":      cm("root-cm"),
			"b/Kptfile":      kptfile("b", "pipeline:\n  mutators:\n    - image: m-b\n"),
			"b/b.yaml":       cm("b-cm"),
			"a/Kptfile":      kptfile("a", "pipeline:\n  mutators:\n    - image: m-a\n    - image: set-namespace\n      configMap:\n        namespace: a\n"),
			"a/a.yaml":       cm("a-cm"),
			"a/deep/Kptfile": kptfile("deep", "pipeline:\n  mutators:\n    - image: m-deep\n"),
			"a/deep/d.yaml":  cm("deep-cm"),
		}
	}
	for _, bfs := range []bool{true, false} {
		rec := &recorder{}
		fs, root := memPkg(t, tree(bfs))
		res, err := Render(context.Background(), fs, root, Options{Kpt: KptBeta67, Resolve: fakeResolver(map[string]framework.ResourceListProcessor{
			"m-root": rec.fn("m-root"), "m-a": rec.fn("m-a"), "m-b": rec.fn("m-b"), "m-deep": rec.fn("m-deep"), "set-namespace": fakeSetNamespace,
		})})
		if err != nil {
			t.Fatal(err)
		}
		got := treeFiles(t, fs, root)
		if !bfs {
			if res.BreadthFirst || !strings.Contains(string(got["a/deep/d.yaml"]), "namespace: root") {
				t.Errorf("depth-first: the root should have the last word:\n%s", got["a/deep/d.yaml"])
			}
			continue
		}
		want := []string{
			"m-root: Kptfile/root,ConfigMap/root-cm,Kptfile/a,ConfigMap/a-cm,Kptfile/deep,ConfigMap/deep-cm,Kptfile/b,ConfigMap/b-cm",
			"m-a: Kptfile/a,ConfigMap/a-cm,Kptfile/deep,ConfigMap/deep-cm",
			"m-b: Kptfile/b,ConfigMap/b-cm",
			"m-deep: Kptfile/deep,ConfigMap/deep-cm",
		}
		if !reflect.DeepEqual(rec.seen, want) {
			t.Errorf("order:\n%s\nwant:\n%s", strings.Join(rec.seen, "\n"), strings.Join(want, "\n"))
		}
		if !res.BreadthFirst || res.Packages != 4 {
			t.Errorf("breadth-first %v, packages %d", res.BreadthFirst, res.Packages)
		}
		for p, ns := range map[string]string{"root.yaml": "root", "b/b.yaml": "root", "a/a.yaml": "a", "a/deep/d.yaml": "a"} {
			if !strings.Contains(string(got[p]), "namespace: "+ns) {
				t.Errorf("%s: want namespace %s (the nearest ancestor's last word):\n%s", p, ns, got[p])
			}
		}
	}
}

// TestSaveOnRenderFailureOutOfPlace: a render to an output (stdout, a
// directory) saves nothing of a failed render, as kpt.
func TestSaveOnRenderFailureOutOfPlace(t *testing.T) {
	files := failureTree(func(name, pipeline string) string { return savingKptfile(name, false, pipeline) })
	fs, root := memPkg(t, files)
	wrote := false
	res, err := Render(context.Background(), fs, root, Options{Resolve: failureResolver, Kpt: KptBeta67,
		Output: func([]*yaml.RNode) error { wrote = true; return nil }})
	if err == nil || wrote || res.SavedOnFailure {
		t.Errorf("err %v, output written %v, saved %v", err, wrote, res.SavedOnFailure)
	}
	got := treeFiles(t, fs, root)
	for p, c := range files {
		if string(got[p]) != c {
			t.Errorf("%s changed:\n%s", p, got[p])
		}
	}
}
