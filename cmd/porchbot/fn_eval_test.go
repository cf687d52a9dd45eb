package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/comments"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/order"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// fnEvalDir holds ResourceLists as `kpt fn eval` hands them to a function,
// and what catalog releases printed for them (testdata/fn-eval/README.md).
const fnEvalDir = "../../testdata/fn-eval"

// TestRunFnMatchesReleases: `porchbot fn <name>:<version>` on each recorded
// ResourceList gives the release's items (content, comments, styles and
// order), results, stderr and exit status. The release's framework may
// write its results in kyaml v0.10's form (`results: {name, items}`), which
// kpt reads as the same list.
func TestRunFnMatchesReleases(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join(fnEvalDir, "*", "*", "input.yaml"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no cases in %s (%v)", fnEvalDir, err)
	}
	for _, in := range inputs {
		dir := filepath.Dir(in)
		fn := filepath.Base(filepath.Dir(dir))
		input, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		versions, err := os.ReadFile(filepath.Join(dir, "releases"))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range strings.Fields(string(versions)) {
			rel := filepath.Join(dir, v)
			t.Run(fn+"/"+filepath.Base(dir)+"/"+v, func(t *testing.T) {
				want := readRecorded(t, rel)
				var out, errOut bytes.Buffer
				err := runFn(context.Background(), []string{fn + ":" + v}, bytes.NewReader(input), &out, &errOut)
				if (err != nil) != (want.exitCode != "0") {
					t.Fatalf("runFn: %v (stderr %q), the release exited %s", err, errOut.String(), want.exitCode)
				}
				if errOut.String() != want.stderr {
					t.Errorf("stderr:\n%q\nthe release's:\n%q", errOut.String(), want.stderr)
				}
				gotItems, gotResults := resourceListParts(t, out.Bytes(), nil)
				wantItems, wantResults := resourceListParts(t, want.stdout, input)
				if !reflect.DeepEqual(gotItems, wantItems) {
					t.Errorf("items:\n%s\nthe release's:\n%s", strings.Join(gotItems, "---\n"), strings.Join(wantItems, "---\n"))
				}
				if !reflect.DeepEqual(gotResults, wantResults) {
					t.Errorf("results:\n%v\nthe release's:\n%v", gotResults, wantResults)
				}
			})
		}
	}
}

type recordedRun struct {
	stdout           []byte
	stderr, exitCode string
}

func readRecorded(t *testing.T, dir string) recordedRun {
	t.Helper()
	var r recordedRun
	var err error
	if r.stdout, err = os.ReadFile(filepath.Join(dir, "output.yaml")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	r.stderr = string(b)
	if b, err = os.ReadFile(filepath.Join(dir, "exit-code")); err != nil {
		t.Fatal(err)
	}
	r.exitCode = strings.TrimSpace(string(b))
	return r
}

// resourceListParts are a ResourceList's items, each written out by one
// encoder, and its results as a list (kyaml v0.10's `{name, items}` read
// as its items). With the input the function read, the items are put
// through what kpt's function runner does to a function's output, as
// `porchbot fn` does: each item's comments and field order come from the
// input item of the same id.
func resourceListParts(t *testing.T, b, input []byte) ([]string, []any) {
	t.Helper()
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	inputs := map[string]*yaml.RNode{}
	for _, it := range listItems(t, input) {
		inputs[it.GetAnnotations()[kioutil.IdAnnotation]] = it
	}
	var items []string
	for _, it := range listItems(t, b) {
		if in, ok := inputs[it.GetAnnotations()[kioutil.IdAnnotation]]; ok && input != nil {
			if err := comments.CopyComments(in, it); err != nil {
				t.Fatal(err)
			}
			if err := order.SyncOrder(in, it); err != nil {
				t.Fatal(err)
			}
		}
		items = append(items, it.MustString())
	}
	rl := parseList(t, b)
	var results []any
	if f := rl.Field("results"); f != nil {
		list := f.Value
		if list.YNode().Kind == yaml.MappingNode {
			list = list.Field("items").Value
		}
		if err := list.YNode().Decode(&results); err != nil {
			t.Fatal(err)
		}
	}
	return items, results
}

func parseList(t *testing.T, b []byte) *yaml.RNode {
	t.Helper()
	rl, err := yaml.Parse(string(b))
	if err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	return rl
}

// listItems are the items of a ResourceList (none without one).
func listItems(t *testing.T, b []byte) []*yaml.RNode {
	t.Helper()
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var out []*yaml.RNode
	if f := parseList(t, b).Field("items"); f != nil {
		for _, it := range f.Value.Content() {
			out = append(out, yaml.NewRNode(it))
		}
	}
	return out
}
