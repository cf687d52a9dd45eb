package builtins

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func TestAllSortedAndComplete(t *testing.T) {
	specs := All()
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
		if s.New == nil || s.Summary == "" {
			t.Errorf("%s: incomplete spec", s.Name)
		}
		switch s.Kind {
		case "mutator", "validator", "both":
		default:
			t.Errorf("%s: kind %q", s.Name, s.Kind)
		}
		if s.New() == nil {
			t.Errorf("%s: New returned nil", s.Name)
		}
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("not sorted: %v", names)
	}
	for _, want := range []string{"apply-replacements", "apply-setters", "ensure-name-substring", "search-replace",
		"set-annotations", "set-image", "set-labels", "set-namespace", "starlark"} {
		if _, ok := Lookup(want); !ok {
			t.Errorf("missing %s", want)
		}
	}
}

func TestLookup(t *testing.T) {
	for image, want := range map[string]string{
		"gcr.io/kpt-fn/set-namespace:v0.4.1":                        "set-namespace",
		"ghcr.io/kptdev/krm-functions-catalog/set-namespace:latest": "set-namespace",
		"set-namespace": "set-namespace",
		"docker.io/foo/set-namespace@sha256:0123456789abcdef":          "set-namespace",
		"localhost:5000/kpt-fn/set-labels:v0.2.0":                      "set-labels",
		"localhost:5000/kpt-fn/apply-setters":                          "apply-setters",
		"gcr.io/kpt-fn/starlark:v0.4.3@sha256:0123456789abcdef":        "starlark",
		"  gcr.io/kpt-fn/Search-Replace:v0.2  ":                        "search-replace",
		"gcr.io/kpt-fn/ensure-name-substring:v0.2.0":                   "ensure-name-substring",
		"ghcr.io/kptdev/krm-functions-catalog/apply-replacements:v0.1": "apply-replacements",
	} {
		s, ok := Lookup(image)
		if !ok || s.Name != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", image, s.Name, ok, want)
		}
	}
	for _, image := range []string{"gcr.io/kpt-fn/source-gcloud-config:v0.1", "", "set-namespace-extra", "gcr.io/set-namespace/other:v1"} {
		if s, ok := Lookup(image); ok {
			t.Errorf("Lookup(%q) = %q, want no match", image, s.Name)
		}
	}
}

// The functions never modify the caller's nodes; the results come back in rl.
func TestProcessDoesNotTouchInputNodes(t *testing.T) {
	in := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
	before := in.MustString()
	fc := newFunctionInput(map[string]string{"namespace": "x"})
	fcBefore := fc.MustString()
	rl := &framework.ResourceList{Items: []*yaml.RNode{in}, FunctionConfig: fc}
	spec, _ := Lookup("set-namespace")
	if err := spec.New().Process(rl); err != nil {
		t.Fatal(err)
	}
	if in.MustString() != before || fc.MustString() != fcBefore {
		t.Errorf("input nodes modified:\n%s\n%s", in.MustString(), fc.MustString())
	}
	want := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n"
	if got := rl.Items[0].MustString(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Without kpt's path annotations, the id annotations the runner adds are
// removed again, with the annotations map they required.
func TestNoLeftoverAnnotations(t *testing.T) {
	for _, name := range Names() {
		rl := &framework.ResourceList{
			Items: []*yaml.RNode{yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n")},
		}
		spec, _ := Lookup(name)
		_ = spec.New().Process(rl)
		for _, it := range rl.Items {
			if it.GetName() != "a" {
				continue // a resource the function made (export-terraform's ConfigMap)
			}
			if s := it.MustString(); strings.Contains(s, "annotations") || strings.Contains(s, "config.k8s.io/id") {
				t.Errorf("%s left annotations:\n%s", name, s)
			}
		}
	}
}

// Under kpt (exec mode) the items carry kpt's id annotations; they must
// come back unchanged.
func TestKeepsCallerIDAnnotations(t *testing.T) {
	item := yaml.MustParse(`apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  annotations:
    config.k8s.io/id: '7'
    internal.config.kubernetes.io/id: '7'
`)
	rl := &framework.ResourceList{Items: []*yaml.RNode{item}, FunctionConfig: newFunctionInput(map[string]string{"namespace": "x"})}
	spec, _ := Lookup("set-namespace")
	if err := spec.New().Process(rl); err != nil {
		t.Fatal(err)
	}
	got := rl.Items[0].MustString()
	want := `apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  annotations:
    config.k8s.io/id: '7'
    internal.config.kubernetes.io/id: '7'
  namespace: x
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Built-ins may run concurrently (one render per pull request).
func TestConcurrentRuns(t *testing.T) {
	dirs := []string{"chain", "setters", "replacements", "validator-fails"}
	for i := 0; i < 8; i++ {
		dir := dirs[i%len(dirs)]
		t.Run(fmt.Sprintf("%s-%d", dir, i), func(t *testing.T) {
			t.Parallel()
			work := filepath.Join(t.TempDir(), "pkg")
			copyDir(t, filepath.Join(conformanceDir, dir, "pkg"), work)
			runPackage(t, work)
		})
	}
}
