package builtins

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The cases are kept in testdata/conformance/render (see its README);
// PORCHBOT_CONFORMANCE_DIR runs another copy of them instead (CI runs the
// project's shared corpus, which the copy follows).
var conformanceDir = conformanceCorpus("../../../testdata/conformance/render")

// pipelineFunction is one function of a Kptfile pipeline, as far as the
// conformance cases use it.
type pipelineFunction struct {
	Image      string            `yaml:"image"`
	ConfigMap  map[string]string `yaml:"configMap,omitempty"`
	ConfigPath string            `yaml:"configPath,omitempty"`
	Selectors  []selector        `yaml:"selectors,omitempty"`
	Exclude    []selector        `yaml:"exclude,omitempty"`
}

// selector is the part of kpt's resource selector the runner supports.
type selector struct {
	APIVersion string `yaml:"apiVersion,omitempty"`
	Kind       string `yaml:"kind,omitempty"`
	Name       string `yaml:"name,omitempty"`
	Namespace  string `yaml:"namespace,omitempty"`
}

func (s selector) matches(rn *yaml.RNode) bool {
	return (s.APIVersion == "" || s.APIVersion == rn.GetApiVersion()) &&
		(s.Kind == "" || s.Kind == rn.GetKind()) &&
		(s.Name == "" || s.Name == rn.GetName()) &&
		(s.Namespace == "" || s.Namespace == rn.GetNamespace())
}

// selected tells whether kpt would pass rn to a function with these
// selectors and exclusions.
func (f pipelineFunction) selected(rn *yaml.RNode) bool {
	in := len(f.Selectors) == 0
	for _, s := range f.Selectors {
		if s.matches(rn) {
			in = true
		}
	}
	for _, s := range f.Exclude {
		if s.matches(rn) {
			in = false
		}
	}
	return in
}

type kptfilePipeline struct {
	Pipeline struct {
		Mutators   []pipelineFunction `yaml:"mutators,omitempty"`
		Validators []pipelineFunction `yaml:"validators,omitempty"`
	} `yaml:"pipeline"`
}

// expectedResults is the subset of kpt's FunctionResultList the cases check.
type expectedResults struct {
	ExitCode int `yaml:"exitCode"`
	Items    []struct {
		Exec     string `yaml:"exec"`
		ExitCode int    `yaml:"exitCode"`
		Results  []struct {
			Message  string `yaml:"message"`
			Severity string `yaml:"severity"`
			Field    struct {
				Path string `yaml:"path"`
			} `yaml:"field"`
			File struct {
				Path  string `yaml:"path"`
				Index int    `yaml:"index"`
			} `yaml:"file"`
		} `yaml:"results"`
	} `yaml:"items"`
}

// fnRun is what the runner records per function.
type fnRun struct {
	image    string
	exitCode int
	results  framework.Results
}

// newFunctionInput builds the ConfigMap kpt passes for a Kptfile `configMap:`.
func newFunctionInput(data map[string]string) *yaml.RNode {
	cm := yaml.MustParse(`apiVersion: v1
kind: ConfigMap
metadata:
  name: function-input
  annotations:
    config.kubernetes.io/local-config: "true"
`)
	node := yaml.NewMapRNode(&data)
	if err := cm.PipeE(yaml.SetField("data", node)); err != nil {
		panic(err)
	}
	return cm
}

// runPackage renders the package in dir like `kpt fn render` does for a
// package without subpackages and selectors, with porchbot's built-ins. It
// returns the function runs and whether the pipeline succeeded; on success
// the package is written back.
func runPackage(t *testing.T, dir string) ([]fnRun, bool) {
	t.Helper()
	kf, err := os.ReadFile(filepath.Join(dir, "Kptfile"))
	if err != nil {
		t.Fatal(err)
	}
	var p kptfilePipeline
	if err := yaml.Unmarshal(kf, &p); err != nil {
		t.Fatal(err)
	}
	reader := kio.LocalPackageReader{
		PackagePath:       dir,
		PackageFileName:   "Kptfile",
		MatchFilesGlob:    append(append([]string{}, kio.MatchAll...), "Kptfile"),
		PreserveSeqIndent: true,
		WrapBareSeqNode:   true,
	}
	items, err := reader.Read()
	if err != nil {
		t.Fatal(err)
	}
	var runs []fnRun
	run := func(f pipelineFunction, validator bool) bool {
		spec, err := Resolve(f.Image, "")
		if err != nil {
			t.Fatalf("no built-in for %s: %v", f.Image, err)
		}
		var fc *yaml.RNode
		switch {
		case f.ConfigPath != "":
			fc, err = yaml.ReadFile(filepath.Join(dir, f.ConfigPath))
			if err != nil {
				t.Fatal(err)
			}
		case f.ConfigMap != nil:
			fc = newFunctionInput(f.ConfigMap)
		}
		var in []*yaml.RNode
		var selectedIdx []int
		for i, it := range items {
			if !f.selected(it) {
				continue
			}
			selectedIdx = append(selectedIdx, i)
			if validator {
				it = it.Copy()
			}
			in = append(in, it)
		}
		rl := &framework.ResourceList{Items: in, FunctionConfig: fc}
		perr := spec.New().Process(rl)
		r := fnRun{image: f.Image, results: rl.Results}
		if perr != nil {
			r.exitCode = 1
		}
		runs = append(runs, r)
		if perr != nil {
			return false
		}
		if validator {
			return true
		}
		if len(selectedIdx) == len(items) {
			items = rl.Items
			return true
		}
		// merge the function's output for the selected items back in place
		if len(rl.Items) != len(selectedIdx) {
			t.Fatalf("%s: with selectors the runner needs as many outputs as inputs", f.Image)
		}
		for j, i := range selectedIdx {
			items[i] = rl.Items[j]
		}
		return true
	}
	for _, f := range p.Pipeline.Mutators {
		if !run(f, false) {
			return runs, false
		}
	}
	for _, f := range p.Pipeline.Validators {
		if !run(f, true) {
			return runs, false
		}
	}
	if err := (kio.LocalPackageWriter{PackagePath: dir}).Write(items); err != nil {
		t.Fatal(err)
	}
	return runs, true
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func formatResult(message, severity, field, file string, index int) string {
	s := fmt.Sprintf("%s [%s]", message, severity)
	if field != "" {
		s += " field=" + field
	}
	if file != "" || index != 0 {
		s += fmt.Sprintf(" file=%s", file)
		if index != 0 {
			s += fmt.Sprintf("#%d", index)
		}
	}
	return s
}

func TestConformance(t *testing.T) {
	entries, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Fatalf("conformance cases: %v", err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		caseDir := filepath.Join(conformanceDir, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			kf, err := os.ReadFile(filepath.Join(caseDir, "pkg", "Kptfile"))
			if err != nil {
				t.Fatal(err)
			}
			var p kptfilePipeline
			if err := yaml.Unmarshal(kf, &p); err != nil {
				t.Fatal(err)
			}
			work := filepath.Join(t.TempDir(), "pkg")
			copyDir(t, filepath.Join(caseDir, "pkg"), work)
			runs, ok := runPackage(t, work)

			// exit code
			ec, err := os.ReadFile(filepath.Join(caseDir, "exit-code"))
			if err != nil {
				t.Fatal(err)
			}
			wantExit := strings.TrimSpace(string(ec)) != "0"
			if wantExit == ok {
				t.Errorf("pipeline succeeded=%v, want exit-code %s", ok, strings.TrimSpace(string(ec)))
			}

			// files
			got, want := readTree(t, work), readTree(t, filepath.Join(caseDir, "expected"))
			var names []string
			for k := range want {
				names = append(names, k)
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					names = append(names, k)
				}
			}
			sort.Strings(names)
			for _, name := range names {
				if got[name] != want[name] {
					t.Errorf("%s differs:\n--- got ---\n%s\n--- want ---\n%s", name, got[name], want[name])
				}
			}

			// results
			b, err := os.ReadFile(filepath.Join(caseDir, "expected-results.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var exp expectedResults
			if err := yaml.Unmarshal(b, &exp); err != nil {
				t.Fatal(err)
			}
			if len(runs) != len(exp.Items) {
				t.Fatalf("ran %d functions, expected results for %d", len(runs), len(exp.Items))
			}
			for i, item := range exp.Items {
				r := runs[i]
				if r.image != item.Exec {
					t.Errorf("function %d: ran %s, want %s", i, r.image, item.Exec)
				}
				if r.exitCode != item.ExitCode {
					t.Errorf("%s: exit code %d, want %d", item.Exec, r.exitCode, item.ExitCode)
				}
				var gotR, wantR []string
				for _, x := range item.Results {
					wantR = append(wantR, formatResult(x.Message, x.Severity, x.Field.Path, x.File.Path, x.File.Index))
				}
				for _, x := range r.results {
					field, file, idx := "", "", 0
					if x.Field != nil {
						field = x.Field.Path
					}
					if x.File != nil {
						file, idx = x.File.Path, x.File.Index
					}
					gotR = append(gotR, formatResult(x.Message, string(x.Severity), field, file, idx))
				}
				if strings.Join(gotR, "\n") != strings.Join(wantR, "\n") {
					t.Errorf("%s results:\n--- got ---\n%s\n--- want ---\n%s", item.Exec,
						strings.Join(gotR, "\n"), strings.Join(wantR, "\n"))
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no conformance cases found")
	}
}

// conformanceCorpus is PORCHBOT_CONFORMANCE_DIR when set, else def.
func conformanceCorpus(def string) string {
	if d := os.Getenv("PORCHBOT_CONFORMANCE_DIR"); d != "" {
		return d
	}
	return def
}
