package render

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// memPkg writes files (path -> content) under /pkg in a fresh in-memory FS.
func memPkg(t testing.TB, files map[string]string) (filesys.FileSystem, string) {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	for p, c := range files {
		abs := filepath.Join("/pkg", p)
		if err := fs.MkdirAll(filepath.Dir(abs)); err != nil {
			t.Fatal(err)
		}
		if err := fs.WriteFile(abs, []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	return fs, "/pkg"
}

func kptfile(name, pipeline string) string {
	return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name +
		"\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n" + pipeline
}

func cm(name string, extra ...string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n" + strings.Join(extra, "")
}

func TestOrderDepthFirstAndVisibility(t *testing.T) {
	rec := &recorder{}
	fs, root := memPkg(t, map[string]string{
		"Kptfile": kptfile("root", `pipeline:
  mutators:
    - image: m-root
  validators:
    - image: v-root
`),
		"root.yaml": cm("root-cm"),
		"b/Kptfile": kptfile("b", `pipeline:
  mutators:
    - image: m-b
`),
		"b/b.yaml": cm("b-cm"),
		"a/Kptfile": kptfile("a", `pipeline:
  mutators:
    - image: m-a1
    - image: m-a2
  validators:
    - image: v-a
`),
		"a/a.yaml": cm("a-cm"),
		"a/deep/Kptfile": kptfile("deep", `pipeline:
  mutators:
    - image: m-deep
`),
		"a/deep/d.yaml":     cm("deep-cm"),
		"a/dir/in-a.yaml":   cm("a-nested-cm"),
		"c/no-pipeline.yml": cm("c-not-a-package"),
	})
	// image prefixes as kpt v1.0.0-beta.56 names them
	res, err := Render(context.Background(), fs, root, Options{Kpt: KptBeta56, Resolve: fakeResolver(map[string]framework.ResourceListProcessor{
		"m-root": rec.fn("m-root"), "v-root": rec.fn("v-root"), "m-b": rec.fn("m-b"),
		"m-a1": rec.fn("m-a1"), "m-a2": rec.fn("m-a2"), "v-a": rec.fn("v-a"), "m-deep": rec.fn("m-deep"),
	})})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"m-deep: Kptfile/deep,ConfigMap/deep-cm",
		"m-a1: Kptfile/deep,ConfigMap/deep-cm,Kptfile/a,ConfigMap/a-cm,ConfigMap/a-nested-cm",
		"m-a2: Kptfile/deep,ConfigMap/deep-cm,Kptfile/a,ConfigMap/a-cm,ConfigMap/a-nested-cm",
		"v-a: Kptfile/deep,ConfigMap/deep-cm,Kptfile/a,ConfigMap/a-cm,ConfigMap/a-nested-cm",
		"m-b: Kptfile/b,ConfigMap/b-cm",
		"m-root: Kptfile/deep,ConfigMap/deep-cm,Kptfile/a,ConfigMap/a-cm,ConfigMap/a-nested-cm,Kptfile/b,ConfigMap/b-cm,Kptfile/root,ConfigMap/c-not-a-package,ConfigMap/root-cm",
		"v-root: Kptfile/deep,ConfigMap/deep-cm,Kptfile/a,ConfigMap/a-cm,ConfigMap/a-nested-cm,Kptfile/b,ConfigMap/b-cm,Kptfile/root,ConfigMap/c-not-a-package,ConfigMap/root-cm",
	}
	if !reflect.DeepEqual(rec.seen, want) {
		t.Errorf("order:\n%s\nwant:\n%s", strings.Join(rec.seen, "\n"), strings.Join(want, "\n"))
	}
	var steps []string
	for _, s := range res.Steps {
		steps = append(steps, s.Package+" "+string(s.Kind)+" "+s.Image+" "+string(s.Status))
	}
	wantSteps := []string{
		"a/deep mutator gcr.io/kpt-fn/m-deep ok",
		"a mutator gcr.io/kpt-fn/m-a1 ok", "a mutator gcr.io/kpt-fn/m-a2 ok", "a validator gcr.io/kpt-fn/v-a ok",
		"b mutator gcr.io/kpt-fn/m-b ok",
		". mutator gcr.io/kpt-fn/m-root ok", ". validator gcr.io/kpt-fn/v-root ok",
	}
	if !reflect.DeepEqual(steps, wantSteps) {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(steps, "\n"), strings.Join(wantSteps, "\n"))
	}
	if res.Packages != 4 || len(res.Results.Items) != 7 {
		t.Errorf("packages %d, result items %d", res.Packages, len(res.Results.Items))
	}
}

func TestSelectorsAndExclusions(t *testing.T) {
	rec := &recorder{}
	fs, root := memPkg(t, map[string]string{
		"Kptfile": kptfile("sel", `pipeline:
  mutators:
    - image: by-kind
      selectors:
        - kind: ConfigMap
      exclude:
        - name: b
        - labels:
            skip: "yes"
    - image: by-meta
      selectors:
        - apiVersion: apps/v1
          namespace: ns1
        - annotations:
            pick: me
    - image: excl-only
      exclude:
        - kind: Kptfile
        - {}
  validators:
    - image: v-labels
      selectors:
        - labels:
            tier: web
`),
		"r.yaml": cm("a") + "---\n" + cm("b") + "---\n" + cm("c", "  labels:\n    skip: \"yes\"\n") + "---\n" +
			"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\n  namespace: ns1\n  labels:\n    tier: web\n---\n" +
			"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d2\n  namespace: ns2\n---\n" +
			"apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n    pick: me\n",
	})
	_, err := Render(context.Background(), fs, root, Options{Resolve: fakeResolver(map[string]framework.ResourceListProcessor{
		"by-kind": rec.fn("by-kind"), "by-meta": rec.fn("by-meta"), "excl-only": rec.fn("excl-only"), "v-labels": rec.fn("v-labels"),
	})})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"by-kind: ConfigMap/a",
		"by-meta: Deployment/d1,Service/s",
		"excl-only: ConfigMap/a,ConfigMap/b,ConfigMap/c,Deployment/d1,Deployment/d2,Service/s",
		"v-labels: Deployment/d1",
	}
	if !reflect.DeepEqual(rec.seen, want) {
		t.Errorf("seen:\n%s\nwant:\n%s", strings.Join(rec.seen, "\n"), strings.Join(want, "\n"))
	}
}

func TestSelectiveMutationMergesBack(t *testing.T) {
	fs, root := memPkg(t, map[string]string{
		"Kptfile": kptfile("merge", `pipeline:
  mutators:
    - image: set-namespace
      configMap:
        namespace: prod
      selectors:
        - name: b
`),
		"r.yaml": cm("a") + "---\n" + cm("b") + "---\n" + cm("c"),
	})
	if _, err := Render(context.Background(), fs, root, Options{Resolve: benchResolver()}); err != nil {
		t.Fatal(err)
	}
	got, _ := fs.ReadFile("/pkg/r.yaml")
	want := cm("a") + "---\n" + cm("b", "  namespace: prod\n") + "---\n" + cm("c")
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// failureTree is a root whose validator "policy" fails after set-namespace
// ran, a subpackage, and one whose function drops its only ConfigMap.
func failureTree(rootKptfile func(name, pipeline string) string) map[string]string {
	return map[string]string{
		"Kptfile": rootKptfile("fail", `pipeline:
  mutators:
    - image: set-namespace
      configMap:
        namespace: prod
  validators:
    - image: policy
`),
		"r.yaml":         cm("a"),
		"sub/Kptfile":    kptfile("sub", "pipeline:\n  mutators:\n    - image: set-namespace\n      configMap:\n        namespace: sub\n"),
		"sub/r.yaml":     cm("s"),
		"drop/Kptfile":   kptfile("drop", "pipeline:\n  mutators:\n    - image: drop-all-cm\n"),
		"drop/only.yaml": cm("gone"),
	}
}

// failureResolver resolves failureTree's functions.
var failureResolver = fakeResolver(map[string]framework.ResourceListProcessor{
	"set-namespace": fakeSetNamespace, "policy": fakeFail, "drop-all-cm": fakeDropConfigMaps,
})

// A failed render leaves the package as it was: under kpt v1.0.0-beta.56
// every file, under a release that records renders every file but the root
// Kptfile, whose status says the render failed.
func TestFailureWritesNothing(t *testing.T) {
	for _, rel := range KptReleases() {
		t.Run(string(rel), func(t *testing.T) {
			files := failureTree(kptfile)
			fs, root := memPkg(t, files)
			res, err := Render(context.Background(), fs, root, Options{Resolve: failureResolver, Kpt: rel})
			var fe *FunctionError
			if !errors.As(err, &fe) || fe.Function != "policy" {
				t.Fatalf("err = %v, want the policy function's failure", err)
			}
			// Changed lists what a render made, not the status of its failure
			if res.Results.ExitCode != 1 || len(res.Changed) != 0 || len(res.Deleted) != 0 {
				t.Errorf("exit %d changed %v deleted %v", res.Results.ExitCode, res.Changed, res.Deleted)
			}
			last := res.Results.Items[len(res.Results.Items)-1]
			if last.ExitCode != 1 || len(last.Results) != 1 || last.Results[0].Message != "policy violated" {
				t.Errorf("last item %+v", last)
			}
			if s := res.Steps[len(res.Steps)-1]; s.Status != StepFailed || s.Message != "policy violated" {
				t.Errorf("last step %+v", s)
			}
			got := treeFiles(t, fs, root)
			for p, c := range files {
				if p == "Kptfile" && rel.WritesRenderStatus() {
					if !strings.HasPrefix(string(got[p]), c) || !strings.Contains(string(got[p]), "reason: RenderFailed") {
						t.Errorf("%s does not record the failure after what it held:\n%s", p, got[p])
					}
					continue
				}
				if string(got[p]) != c {
					t.Errorf("%s changed:\n%s", p, got[p])
				}
			}
			if len(got) != len(files) {
				t.Errorf("files %v", got)
			}
		})
	}
}

func TestAddDeleteAndPaths(t *testing.T) {
	fs, root := memPkg(t, map[string]string{
		"Kptfile": kptfile("gen", `pipeline:
  mutators:
    - image: gen
      configPath: fns/gen.yaml
    - image: drop
`),
		"fns/gen.yaml": cm("gen-config", "  annotations:\n    config.kubernetes.io/local-config: \"true\"\n"),
		"a.yaml":       cm("keep") + "---\n" + cm("drop-me"),
		"b.yaml":       cm("drop-me-too"),
		"README.md":    "# readme\n",
	})
	gen := framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		rl.Items = append(rl.Items,
			yaml.MustParse(cm("made", "  namespace: ns1\n")),
			yaml.MustParse(cm("placed", "  annotations:\n    config.kubernetes.io/path: a.yaml\n")))
		return nil
	})
	drop := framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		var keep []*yaml.RNode
		for _, it := range rl.Items {
			if !strings.HasPrefix(it.GetName(), "drop-me") {
				keep = append(keep, it)
			}
		}
		rl.Items = keep
		return nil
	})
	// the files the functions change, without the status a later release records
	res, err := Render(context.Background(), fs, root, Options{Kpt: KptBeta56, Resolve: fakeResolver(map[string]framework.ResourceListProcessor{"gen": gen, "drop": drop})})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.yaml", "fns/ns1/configmap_made.yaml"}; !reflect.DeepEqual(res.Changed, want) {
		t.Errorf("changed %v, want %v", res.Changed, want)
	}
	if want := []string{"b.yaml"}; !reflect.DeepEqual(res.Deleted, want) {
		t.Errorf("deleted %v, want %v", res.Deleted, want)
	}
	files := treeFiles(t, fs, root)
	if got, want := string(files["a.yaml"]), cm("keep")+"---\n"+cm("placed"); got != want {
		t.Errorf("a.yaml:\n%s\nwant\n%s", got, want)
	}
	if got, want := string(files["fns/ns1/configmap_made.yaml"]), cm("made", "  namespace: ns1\n"); got != want {
		t.Errorf("made:\n%s", got)
	}
	if string(files["README.md"]) != "# readme\n" {
		t.Errorf("README changed")
	}
}

func TestFunctionConfigs(t *testing.T) {
	var seen []string
	show := framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		s, _ := rl.FunctionConfig.String()
		seen = append(seen, s)
		return nil
	})
	bump := framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		for _, it := range rl.Items {
			if it.GetName() == "cfg" {
				if err := it.PipeE(yaml.SetField("data", yaml.NewMapRNode(&map[string]string{"v": "2"}))); err != nil {
					return err
				}
			}
		}
		return nil
	})
	fs, root := memPkg(t, map[string]string{
		"Kptfile": kptfile("cfg", `pipeline:
  mutators:
    - image: show
      configMap:
        b: "2"
        a: x
    - image: bump
    - image: show
      configPath: cfg.yaml
  validators:
    - image: show
      configPath: cfg.yaml
`),
		"cfg.yaml": cm("cfg", "  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  v: \"1\"\n"),
	})
	if _, err := Render(context.Background(), fs, root, Options{Resolve: fakeResolver(map[string]framework.ResourceListProcessor{"show": show, "bump": bump})}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 {
		t.Fatalf("seen %d configs", len(seen))
	}
	if !strings.Contains(seen[0], "name: function-input") || !strings.Contains(seen[0], "a: x") || !strings.Contains(seen[0], "b: \"2\"") {
		t.Errorf("configMap config:\n%s", seen[0])
	}
	// a mutator's configPath is the package's resource as mutated so far...
	if !strings.Contains(seen[1], "v: 2") || !strings.Contains(seen[1], "config.kubernetes.io/path: 'cfg.yaml'") {
		t.Errorf("mutator configPath config:\n%s", seen[1])
	}
	// ...a validator's is the file as it is on disk
	if !strings.Contains(seen[2], "v: \"1\"") || strings.Contains(seen[2], "config.kubernetes.io/path") {
		t.Errorf("validator configPath config:\n%s", seen[2])
	}
}

func TestValidatorChangesDiscarded(t *testing.T) {
	fs, root := memPkg(t, map[string]string{
		"Kptfile": kptfile("v", "pipeline:\n  validators:\n    - image: set-namespace\n      configMap:\n        namespace: nope\n"),
		"r.yaml":  cm("a"),
	})
	res, err := Render(context.Background(), fs, root, Options{Resolve: benchResolver()})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := fs.ReadFile("/pkg/r.yaml"); string(b) != cm("a") || slices.Contains(res.Changed, "r.yaml") {
		t.Errorf("validator output kept: %s %v", b, res.Changed)
	}
}

func TestLimits(t *testing.T) {
	files := map[string]string{"Kptfile": kptfile("l", ""), "a.yaml": cm("a"), "b.yaml": cm("b"), "notes.txt": "x"}
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"files", Options{MaxFiles: 3}, "input too large: the number of files in the package tree is at least 4, the limit is 3"},
		{"bytes", Options{MaxBytes: 100}, "input too large: the size of the package's KRM files in bytes is at least"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, root := memPkg(t, files)
			_, err := Render(context.Background(), fs, root, tc.opts)
			var le *LimitError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("depth", func(t *testing.T) {
		deep := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  x: " +
			strings.Repeat("[", 30) + strings.Repeat("]", 30) + "\n"
		fs, root := memPkg(t, map[string]string{"Kptfile": kptfile("l", ""), "sub/deep.yaml": deep})
		_, err := Render(context.Background(), fs, root, Options{MaxYAMLDepth: 20})
		var le *LimitError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "sub/deep.yaml: input too large: YAML nesting depth is at least 21, the limit is 20") {
			t.Errorf("err = %v", err)
		}
		fs, root = memPkg(t, map[string]string{"Kptfile": kptfile("l", ""), "sub/deep.yaml": deep})
		if _, err := Render(context.Background(), fs, root, Options{MaxYAMLDepth: 40}); err != nil {
			t.Errorf("within the limit: %v", err)
		}
	})
	t.Run("unlimited", func(t *testing.T) {
		fs, root := memPkg(t, files)
		if _, err := Render(context.Background(), fs, root, Options{MaxFiles: -1, MaxBytes: -1, MaxYAMLDepth: -1}); err != nil {
			t.Error(err)
		}
	})
}

func TestExecPolicy(t *testing.T) {
	pkg := map[string]string{
		"Kptfile": kptfile("x", `pipeline:
  mutators:
    - exec: /opt/fns/set-ns --flag
      configMap:
        namespace: prod
    - image: set-labels
      configMap:
        a: b
  validators:
    - exec: checker
`),
		"r.yaml": cm("a"),
	}
	resolve := fakeResolver(map[string]framework.ResourceListProcessor{
		"/opt/fns/set-ns --flag": fakeSetNamespace, "set-labels": fakeSetLabels, "checker": fakeFail,
	})
	t.Run("refused", func(t *testing.T) {
		fs, root := memPkg(t, pkg)
		res, err := Render(context.Background(), fs, root, Options{AllowExec: true, ExecAllowlist: []string{"/opt/other"}, Resolve: resolve})
		var ue *UnsupportedFunctionError
		if !errors.As(err, &ue) {
			t.Fatalf("err = %v", err)
		}
		msg := err.Error()
		for _, want := range []string{`pkg/Kptfile: exec function "/opt/fns/set-ns --flag"`, "allowlist does not name it"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message %q lacks %q", msg, want)
			}
		}
		if strings.Count(msg, "allowlist") != 1 || strings.Contains(msg, "package .") {
			t.Errorf("message %q: the refusal said more than once, or the package unnamed", msg)
		}
		if len(res.Steps) != 1 || res.Steps[0].Status != StepFailed || res.Results.ExitCode != 1 {
			t.Errorf("steps %+v", res.Steps)
		}
		if b, _ := fs.ReadFile("/pkg/r.yaml"); string(b) != cm("a") {
			t.Errorf("written: %s", b)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		fs, root := memPkg(t, pkg)
		_, err := Render(context.Background(), fs, root, Options{AllowExec: true, ExecAllowlist: []string{"/opt/fns/set-ns", "checker"}, Resolve: resolve})
		var fe *FunctionError
		if !errors.As(err, &fe) || fe.Function != "checker" {
			t.Fatalf("err = %v, want the checker to run and fail", err)
		}
	})
	t.Run("fork skips exec", func(t *testing.T) {
		fs, root := memPkg(t, pkg)
		res, err := Render(context.Background(), fs, root, Options{AllowExec: false, ExecAllowlist: []string{"*"}, Resolve: resolve})
		if !errors.Is(err, ErrIncomplete) {
			t.Fatalf("err = %v", err)
		}
		var st []StepStatus
		for _, s := range res.Steps {
			st = append(st, s.Status)
		}
		if !reflect.DeepEqual(st, []StepStatus{StepSkipped, StepOK, StepSkipped}) {
			t.Errorf("statuses %v", st)
		}
		sk := res.Steps[0]
		if len(sk.Results) != 1 || sk.Results[0].Severity != framework.Warning || !strings.Contains(sk.Results[0].Message, "forks") {
			t.Errorf("skip result %+v", sk.Results)
		}
		if res.Complete() || len(res.Skipped()) != 2 || res.Results.ExitCode != 0 || len(res.Results.Items) != 3 {
			t.Errorf("complete=%v skipped=%d exit=%d items=%d", res.Complete(), len(res.Skipped()), res.Results.ExitCode, len(res.Results.Items))
		}
		if b, _ := fs.ReadFile("/pkg/r.yaml"); string(b) != cm("a") {
			t.Errorf("written although incomplete: %s", b)
		}
	})
	t.Run("allowlist matching", func(t *testing.T) {
		o := Options{ExecAllowlist: []string{"/opt/fns/a", "b"}}
		for exec, want := range map[string]bool{
			"/opt/fns/a": true, "/opt/fns/./a --x": true, "/opt/fns/b": false, "b": true, "b --y": true, "a": false, "'/opt/fns/a'": true, "": false,
		} {
			if got := o.ExecAllowed(exec); got != want {
				t.Errorf("ExecAllowed(%q) = %v", exec, got)
			}
		}
	})
}

func TestUnsupportedImage(t *testing.T) {
	fs, root := memPkg(t, map[string]string{
		"Kptfile": kptfile("x", "pipeline:\n  mutators:\n    - image: ghcr.io/acme/frobnicate:v1\n"),
		"r.yaml":  cm("a"),
	})
	res, err := Render(context.Background(), fs, root, Options{})
	if err == nil || !strings.Contains(err.Error(), `function "ghcr.io/acme/frobnicate:v1"`) ||
		!strings.Contains(err.Error(), "set-namespace") || !strings.Contains(err.Error(), "frobnicate") {
		t.Fatalf("err = %v", err)
	}
	if res.Results.ExitCode != 1 || len(res.Results.Items) != 1 || res.Results.Items[0].ExitCode != 1 {
		t.Errorf("results %+v", res.Results)
	}
}

// TestUnsupportedImageFailsAtItsTurn: as kpt, which pulls an image only
// when its turn comes, the functions before an image porchbot cannot run
// run first; a tag: constraint no release meets fails before anything
// runs, as kpt resolves it first.
func TestUnsupportedImageFailsAtItsTurn(t *testing.T) {
	pipeline := "pipeline:\n  mutators:\n    - image: set-namespace:v0.4.1\n      configMap:\n        namespace: prod\n    - image: ghcr.io/acme/frobnicate:v1\n"
	fs, root := memPkg(t, map[string]string{"Kptfile": kptfile("x", pipeline), "r.yaml": cm("a")})
	res, err := Render(context.Background(), fs, root, Options{})
	if err == nil || len(res.Steps) != 2 || res.Steps[0].Status != StepOK || res.Steps[1].Status != StepFailed ||
		!strings.Contains(res.Steps[1].Message, "frobnicate") {
		t.Fatalf("err %v, steps %+v", err, res.Steps)
	}
	if b := treeFiles(t, fs, root)["r.yaml"]; strings.Contains(string(b), "namespace") {
		t.Errorf("a failed render wrote:\n%s", b)
	}
	saving := strings.Replace(kptfile("x", pipeline), "  annotations:\n", "  annotations:\n    kpt.dev/save-on-render-failure: \"true\"\n", 1)
	fs, root = memPkg(t, map[string]string{"Kptfile": saving, "r.yaml": cm("a")})
	if res, err = Render(context.Background(), fs, root, Options{Kpt: KptBeta67}); err == nil || !res.SavedOnFailure ||
		!strings.Contains(string(treeFiles(t, fs, root)["r.yaml"]), "namespace: prod") {
		t.Errorf("saved on failure: %v %v\n%s", err, res.SavedOnFailure, treeFiles(t, fs, root)["r.yaml"])
	}
	constrained := "pipeline:\n  mutators:\n    - image: set-labels\n      configMap:\n        a: b\n    - image: set-namespace\n      tag: \"~9.9\"\n"
	fs, root = memPkg(t, map[string]string{"Kptfile": kptfile("x", constrained), "r.yaml": cm("a")})
	if res, err = Render(context.Background(), fs, root, Options{}); err == nil || len(res.Steps) != 1 || res.Steps[0].Status != StepFailed {
		t.Errorf("an unmet tag constraint: err %v, steps %+v", err, res.Steps)
	}
}

func TestKptfileErrors(t *testing.T) {
	for name, tc := range map[string]struct{ kf, want string }{
		"unknown field":   {"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\npipeline:\n  mutators:\n    - image: set-labels\n      args: [a]\n", `unknown field "args" in pipeline.mutators[0]`},
		"old version":     {"apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\nmetadata:\n  name: x\n", `"kpt.dev/v1alpha2" is an old version of the Kptfile schema; porchbot reads kpt.dev/v1. Upgrade the package: kpt fn eval`},
		"bad image":       {kptfile("x", "pipeline:\n  mutators:\n    - image: Set-Labels\n"), `function name "Set-Labels" is invalid`},
		"both":            {kptfile("x", "pipeline:\n  mutators:\n    - image: set-labels\n      exec: foo\n"), `/pkg/Kptfile:10:13: pipeline.mutators[0]: a function has "image" or "exec", not both`},
		"missing config":  {kptfile("x", "pipeline:\n  mutators:\n    - image: set-labels\n      configPath: nope.yaml\n"), "functionConfig must exist in the current package"},
		"outside package": {kptfile("x", "pipeline:\n  mutators:\n    - image: set-labels\n      configPath: ../x.yaml\n"), `"../x.yaml" must be a slash-separated path inside the package`},
	} {
		t.Run(name, func(t *testing.T) {
			fs, root := memPkg(t, map[string]string{"Kptfile": tc.kf, "r.yaml": cm("a")})
			if _, err := Render(context.Background(), fs, root, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestKptfileErrorWording: errors name the Kptfile as users know it
// (Options.DisplayDir), say how to fix a missing Kptfile or an old schema,
// and never name a Go type.
func TestKptfileErrorWording(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  []string
	}{
		"missing": {map[string]string{"r.yaml": cm("a")},
			[]string{`no Kptfile found at "network/upf"`, "kpt pkg init network/upf"}},
		"old schema": {map[string]string{"Kptfile": "apiVersion: kpt.dev/v1alpha1\nkind: Kptfile\nmetadata:\n  name: x\n", "r.yaml": cm("a")},
			[]string{"network/upf/Kptfile:1:13:", "old version of the Kptfile schema", "Upgrade the package"}},
		"unknown field": {map[string]string{"Kptfile": kptfile("x", "pipeline:\n  mutators:\n    - image: set-labels\n      args: [a]\n"), "r.yaml": cm("a")},
			[]string{"network/upf/Kptfile:10:7:", `unknown field "args"`}},
		"sub bad image": {map[string]string{"Kptfile": kptfile("x", ""), "r.yaml": cm("a"),
			"db/Kptfile": kptfile("db", "pipeline:\n  mutators:\n    - image: Set-Labels\n")},
			[]string{"network/upf/db/Kptfile: invalid pipeline function \"Set-Labels\"", "pipeline.mutators[0].image"}},
	} {
		t.Run(name, func(t *testing.T) {
			fs, root := memPkg(t, tc.files)
			res, err := Render(context.Background(), fs, root, Options{DisplayDir: "network/upf"})
			if err == nil {
				t.Fatal("rendered")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "render.") || strings.Contains(err.Error(), "v1.Function") || strings.Contains(err.Error(), "/pkg") {
				t.Errorf("err names a Go type or the file system's path: %v", err)
			}
			if res.Results.ExitCode != 1 {
				t.Errorf("results exit code %d, want 1", res.Results.ExitCode)
			}
		})
	}
}

func TestGuardrails(t *testing.T) {
	rec := &recorder{}
	fs, root := memPkg(t, map[string]string{
		"Kptfile":     kptfile("g", "pipeline:\n  mutators:\n    - image: own-m\n  validators:\n    - image: own-v\n"),
		"r.yaml":      cm("a"),
		"sub/Kptfile": kptfile("sub", "pipeline:\n  mutators:\n    - image: sub-m\n"),
		"sub/s.yaml":  cm("s"),
		"policy.yaml": cm("policy", "  annotations:\n    config.kubernetes.io/local-config: \"true\"\n"),
	})
	res, err := Render(context.Background(), fs, root, Options{
		ExtraMutators:   []Function{{Image: "guard-m"}},
		ExtraValidators: []Function{{Image: "guard-v", ConfigPath: "policy.yaml"}},
		Resolve: fakeResolver(map[string]framework.ResourceListProcessor{
			"own-m": rec.fn("own-m"), "own-v": rec.fn("own-v"), "sub-m": rec.fn("sub-m"), "guard-m": rec.fn("guard-m"), "guard-v": rec.fn("guard-v"),
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range rec.seen {
		order = append(order, strings.SplitN(s, ":", 2)[0])
	}
	if want := []string{"sub-m", "own-m", "guard-m", "own-v", "guard-v"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	var guard []bool
	for _, s := range res.Steps {
		guard = append(guard, s.Guardrail)
	}
	if want := []bool{false, false, true, false, true}; !reflect.DeepEqual(guard, want) {
		t.Errorf("guardrail flags %v", guard)
	}
}

func TestInMemoryAndSerializedAgree(t *testing.T) {
	plainPkg := map[string]string{
		"Kptfile": kptfile("p", `pipeline:
  mutators:
    - image: set-namespace
      configMap:
        namespace: prod
    - image: set-labels
      configMap:
        a: b
    - image: set-image
      configMap:
        name: nginx
        newTag: "2"
`),
		"d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          image: nginx:1\n",
	}
	commented := map[string]string{}
	for k, v := range plainPkg {
		commented[k] = v
	}
	commented["d.yaml"] = "# head\n\n" + strings.Replace(plainPkg["d.yaml"], "name: d\n", "name: d # the d\n", 1)
	for name, files := range map[string]map[string]string{"plain": plainPkg, "commented": commented} {
		t.Run(name, func(t *testing.T) {
			fs1, root := memPkg(t, files)
			r1, err := Render(context.Background(), fs1, root, Options{Resolve: benchResolver()})
			if err != nil {
				t.Fatal(err)
			}
			fs2, _ := memPkg(t, files)
			r2, err := Render(context.Background(), fs2, root, Options{Resolve: benchResolver(), serialized: true})
			if err != nil {
				t.Fatal(err)
			}
			compareFileMaps(t, treeFiles(t, fs2, root), treeFiles(t, fs1, root))
			if r2.stats.inMemory != 0 || r2.stats.serialized != 3 {
				t.Errorf("serialized run stats %+v", r2.stats)
			}
			if name == "plain" && r1.stats.inMemory != 3 {
				t.Errorf("plain package should run in memory: %+v", r1.stats)
			}
			if name == "commented" && (r1.stats.serialized != 0 || r1.stats.headerTrip != 3) {
				// a header comment and a line comment: in memory, the
				// resource with the header read back on its own
				t.Errorf("commented package should run in memory, its header read back alone: %+v", r1.stats)
			}
		})
	}
}

func TestResultListYAML(t *testing.T) {
	l := newResultList()
	l.ExitCode = 1
	l.Items = []FunctionResult{{Image: "gcr.io/kpt-fn/x:v1", ExitCode: 1, Stderr: "boom",
		Results: []*framework.Result{{Message: "bad", Severity: framework.Error,
			ResourceRef: &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, NameMeta: yaml.NameMeta{Name: "a"}},
			Field:       &framework.Field{Path: "data.x"}, File: &framework.File{Path: "a.yaml", Index: 1}}}}}
	b, err := l.YAML()
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: kpt.dev/v1
kind: FunctionResultList
metadata:
  name: fnresults
exitCode: 1
items:
  - image: gcr.io/kpt-fn/x:v1
    stderr: boom
    exitCode: 1
    results:
      - message: bad
        severity: error
        resourceRef:
          apiVersion: v1
          kind: ConfigMap
          name: a
        field:
          path: data.x
        file:
          path: a.yaml
          index: 1
`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`/bin/fn a b`:           {"/bin/fn", "a", "b"},
		`fn "a b" 'c d' e\ f`:   {"fn", "a b", "c d", "e f"},
		`fn "say \"hi\""`:       {"fn", `say "hi"`},
		`  fn   x  # comment y`: {"fn", "x"},
		``:                      nil,
	} {
		got, err := splitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := splitCommand(`fn "open`); err == nil {
		t.Error("unclosed quote accepted")
	}
}

func TestContextCancelled(t *testing.T) {
	fs, root := memPkg(t, map[string]string{
		"Kptfile": kptfile("c", "pipeline:\n  mutators:\n    - image: set-labels\n      configMap:\n        a: b\n"),
		"r.yaml":  cm("a"),
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Render(ctx, fs, root, Options{Resolve: benchResolver()}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}
