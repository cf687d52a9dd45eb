package render

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"sigs.k8s.io/kustomize/kyaml/comments"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// A package whose files start with header comments, run through set-labels
// twice.
var headerPkg = map[string]string{
	"web.yaml":  "# The web tier.\n# Owned by the checkout team.\n\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web # the web tier\ndata:\n  k: v\n",
	"tail.yaml": "# no blank line below\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tail\n",
}

const headerPipeline = `pipeline:
  mutators:
    - %s/set-labels
      configMap:
        a: b
    - %s/set-labels
      configMap:
        c: d
`

// What the catalog's set-labels, like any kyaml function, leaves after two
// runs under kpt: each header comment once (kpt drops the blank line).
var headerWant = map[string]string{
	"web.yaml":  "# The web tier.\n# Owned by the checkout team.\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web # the web tier\n  labels:\n    a: b\n    c: d\ndata:\n  k: v\n",
	"tail.yaml": "# no blank line below\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tail\n  labels:\n    a: b\n    c: d\n",
}

func headerFiles(kptfilePipeline string) map[string]string {
	files := map[string]string{"Kptfile": kptfile("headers", kptfilePipeline)}
	for k, v := range headerPkg {
		files[k] = v
	}
	return files
}

// Regression: a built-in run twice duplicated a file's header comment (the
// runner's re-parse moved the comment kpt had put on the resource to its
// first key, and kpt's comment copy then put it back on the resource).
func TestHeaderCommentNotDuplicated(t *testing.T) {
	pl := strings.ReplaceAll(strings.ReplaceAll(headerPipeline, "%s/", "image: gcr.io/kpt-fn/"), "set-labels\n", "set-labels:v0.2.1\n")
	for _, serialized := range []bool{false, true} {
		fs, root := memPkg(t, headerFiles(pl))
		if _, err := Render(context.Background(), fs, root, Options{serialized: serialized}); err != nil {
			t.Fatal(err)
		}
		for name, want := range headerWant {
			got, err := fs.ReadFile(filepath.Join(root, name))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("serialized=%v %s:\n%s\nwant\n%s", serialized, name, got, want)
			}
		}
	}
}

// The same under kpt, with `porchbot fn set-labels` as exec functions.
func TestKptHeaderCommentOnce(t *testing.T) {
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		t.Skip("kpt not installed: ", err)
	}
	tmp := t.TempDir()
	fnDir := buildFnScripts(t, tmp)
	dir := filepath.Join(tmp, "pkg")
	pl := strings.ReplaceAll(headerPipeline, "%s", "exec: "+fnDir)
	for name, content := range headerFiles(pl) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(kpt, "fn", "render", "--allow-exec", dir).CombinedOutput(); err != nil {
		t.Fatalf("kpt fn render: %v\n%s", err, out)
	}
	for name, want := range headerWant {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s:\n%s\nwant\n%s", name, got, want)
		}
	}
}

// copyResults must give what parseStructuredResult reads back from the
// marshalled results, or decline.
func TestCopyResultsMatchesRoundTrip(t *testing.T) {
	ref := &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		NameMeta: yaml.NameMeta{Name: "a", Namespace: "ns"}}
	cases := []framework.Results{
		{{Message: "plain"}},
		{{Message: "all", Severity: framework.Error, ResourceRef: ref, Field: &framework.Field{Path: "data.x"},
			File: &framework.File{Path: "a.yaml", Index: 2}, Tags: map[string]string{"k": "v"}}},
		{nil, {Message: "after nil"}},
		{{Message: "empty parts", Field: &framework.Field{}, File: &framework.File{}, ResourceRef: &yaml.ResourceIdentifier{},
			Tags: map[string]string{}}},
		{{Message: "quotes ' \" \n multi\nline  ", Severity: framework.Warning}, {Message: "", Severity: framework.Info}},
		{{Message: "yes"}, {Message: "123"}, {Message: "- x"}, {Message: "a: b"}, {Message: "#c"}, {Message: "\xff\xfe"}},
	}
	for i, rs := range cases {
		got, ok := copyResults(rs)
		if !ok {
			t.Errorf("case %d declined", i)
			continue
		}
		b, err := yaml.Marshal(rs)
		if err != nil {
			t.Fatal(err)
		}
		node, err := yaml.Parse(string(b))
		if err != nil {
			t.Fatal(err)
		}
		var want FunctionResult
		if err := parseStructuredResult(node, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want.Results) {
			t.Errorf("case %d:\n got %#v\nwant %#v", i, got, want.Results)
		}
	}
	if _, ok := copyResults(framework.Results{{Message: "v", Field: &framework.Field{Path: "x", ProposedValue: "y"}}}); ok {
		t.Error("copied a result with a proposed value")
	}
	if got, ok := copyResults(nil); !ok || got != nil {
		t.Errorf("no results: %v %v", got, ok)
	}
}

// kindsClash may report a clash where kpt's comment copy finds none, never
// miss one.
func TestKindsClashCoversCopyCommentsErrors(t *testing.T) {
	base := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n"
	docs := []string{
		"spec:\n  x: y\n",
		"spec:\n  x:\n    b: c\n",
		"spec:\n  x: [a]\n",
		"spec:\n  x: ~\n",
		"spec:\n  x: {}\n",
		"spec: {}\n",
		"spec: s\n",
		"spec:\n  l: [a, b]\n",
		"spec:\n  l: [[a], b]\n",
		"spec:\n  l:\n    - {name: a, v: 1}\n    - {name: b, v: 2}\n",
		"spec:\n  l:\n    - {name: b, v: 1}\n    - {name: a, v: [2]}\n",
		"spec:\n  l:\n    - {name: a, v: {x: 1}}\n",
		"spec:\n  template:\n    spec:\n      containers:\n        - name: a\n          image: x\n        - name: b\n          image: y\n",
		"spec:\n  template:\n    spec:\n      containers:\n        - name: b\n          image: [y]\n        - name: a\n          image: x\n",
		"spec:\n  template:\n    spec:\n      containers:\n        - name: a\n          ports: [{containerPort: 80}]\n",
		"spec:\n  template:\n    spec:\n      containers:\n        - name: a\n          ports: {containerPort: 80}\n",
		"spec:\n  template:\n    spec:\n      containers: x\n",
		"spec:\n  x: y\n  x: {a: b}\n",
	}
	for _, f := range docs {
		for _, to := range docs {
			from, out := yaml.MustParse(base+f), yaml.MustParse(base+to)
			err := comments.CopyComments(from, out)
			if err != nil && !kindsClash(from.YNode(), yaml.MustParse(base+to).YNode()) {
				t.Errorf("missed the clash CopyComments reports (%v):\n%s---\n%s", err, f, to)
			}
		}
		// false alarms only where kinds are mixed in a list, or in the
		// values of one key
		mixed := strings.Contains(f, "[[a], b]") || strings.Contains(f, "[2]") || strings.Contains(f, "[y]") ||
			strings.Count(f, "  x:") > 1
		if n := yaml.MustParse(base + f).YNode(); kindsClash(n, yaml.MustParse(base+f).YNode()) != mixed {
			t.Errorf("clash with itself %v, want %v:\n%s", !mixed, mixed, f)
		}
	}
}

// A function that changes a field's kind fails under kpt (its comment copy
// fails); in memory it must fail the same way as when serialized.
func TestInMemoryKindChangeAsSerialized(t *testing.T) {
	retype := framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		for _, it := range rl.Items {
			if it.GetKind() == "ConfigMap" {
				if err := it.PipeE(yaml.SetField("data", yaml.MustParse("[a, b]"))); err != nil {
					return err
				}
			}
		}
		return nil
	})
	files := map[string]string{
		"Kptfile": kptfile("p", "pipeline:\n  mutators:\n    - image: retype\n"),
		"cm.yaml": cm("c", "data:\n  k: v\n"),
	}
	var errs [2]string
	var stats [2]runStats
	for i, serialized := range []bool{false, true} {
		fs, root := memPkg(t, files)
		res, err := Render(context.Background(), fs, root,
			Options{Resolve: fakeResolver(map[string]framework.ResourceListProcessor{"retype": retype}), serialized: serialized})
		if err == nil {
			t.Fatalf("serialized=%v: no error", serialized)
		}
		errs[i], stats[i] = err.Error(), res.stats
		got, _ := fs.ReadFile(filepath.Join(root, "cm.yaml"))
		if string(got) != files["cm.yaml"] {
			t.Errorf("serialized=%v: file written:\n%s", serialized, got)
		}
	}
	if errs[0] != errs[1] {
		t.Errorf("in memory: %s\nserialized: %s", errs[0], errs[1])
	}
	if stats[0].serialized != 1 {
		t.Errorf("in-memory run did not fall back to the serialized one: %+v", stats[0])
	}
}

// Nodes a function made without a tag reach the next function tagged as if
// read back from YAML, in memory as serialized.
func TestInMemoryTagsAsReadBack(t *testing.T) {
	var mu sync.Mutex
	seen := map[bool][]string{}
	set := framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		for _, it := range rl.Items {
			if it.GetKind() != "ConfigMap" {
				continue
			}
			for _, v := range []string{"2024-01-01", "012", "1_000", "x", "true"} {
				if err := it.PipeE(yaml.LookupCreate(yaml.MappingNode, "data"),
					yaml.SetField("k"+v, yaml.NewRNode(&yaml.Node{Kind: yaml.ScalarNode, Value: v}))); err != nil {
					return err
				}
			}
		}
		return nil
	})
	var serialized bool
	read := framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		for _, it := range rl.Items {
			data := it.Field("data")
			if data == nil {
				continue
			}
			_ = data.Value.VisitFields(func(f *yaml.MapNode) error {
				mu.Lock()
				seen[serialized] = append(seen[serialized], f.Key.YNode().Value+"="+f.Value.YNode().Tag)
				mu.Unlock()
				return nil
			})
		}
		return nil
	})
	files := map[string]string{
		"Kptfile": kptfile("p", "pipeline:\n  mutators:\n    - image: set\n    - image: read\n"),
		"cm.yaml": cm("c"),
	}
	outs := map[bool]map[string][]byte{}
	for _, serialized = range []bool{false, true} {
		fs, root := memPkg(t, files)
		if _, err := Render(context.Background(), fs, root, Options{serialized: serialized,
			Resolve: fakeResolver(map[string]framework.ResourceListProcessor{"set": set, "read": read})}); err != nil {
			t.Fatal(err)
		}
		outs[serialized] = treeFiles(t, fs, root)
	}
	if !reflect.DeepEqual(seen[false], seen[true]) || len(seen[true]) == 0 {
		t.Errorf("tags seen in memory %v, serialized %v", seen[false], seen[true])
	}
	compareFileMaps(t, outs[true], outs[false])
}

// renderBothWays renders a generated package of built-ins in memory and
// the same package serialized, on disk, requires the same files of both
// and returns the in-memory render's result.
func renderBothWays(t *testing.T) *Result {
	t.Helper()
	dir := t.TempDir()
	disk := filesys.MakeFsOnDisk()
	for _, d := range []string{"a", "b"} {
		genPackageAt(t, disk, filepath.Join(dir, d), 30, 4, benchPipeline)
	}
	r1, err := Render(context.Background(), disk, filepath.Join(dir, "a"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(context.Background(), disk, filepath.Join(dir, "b"), Options{serialized: true}); err != nil {
		t.Fatal(err)
	}
	compareFileMaps(t, treeFiles(t, disk, filepath.Join(dir, "b")), treeFiles(t, disk, filepath.Join(dir, "a")))
	return r1
}

// The built-ins run in memory without their runner bookkeeping, and give
// what they give serialized (through Process); on disk too. Nothing having
// comments, they run on the resources themselves: no copy.
func TestBuiltinsInMemoryOnDisk(t *testing.T) {
	if s := renderBothWays(t).stats; s.inMemory != 4 || s.inPlace != 4 || s.roundTrip != 0 || s.replays != 0 || s.compacted {
		t.Errorf("stats %+v: want 4 in-memory runs in place, no round trip, no replay", s)
	}
}

// Compacted (as a large package is before its first function runs in place),
// the resources render to the same files.
func TestBuiltinsRunInPlaceCompacted(t *testing.T) {
	defer func(c int) { compactFrom = c }(compactFrom)
	compactFrom = 0
	if s := renderBothWays(t).stats; s.inPlace != 4 || !s.compacted {
		t.Errorf("stats %+v: want 4 runs in place, compacted", s)
	}
}

// A built-in run in place that reorders fields (set-namespace v0.1.0 takes
// every resource through JSON, which sorts keys) leaves what kpt's order
// sync needs the input for: the render starts again with copies, gives the
// serialized run's files, and tells its progress once.
func TestInPlaceReplaysWithCopies(t *testing.T) {
	files := map[string]string{
		"Kptfile": `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: replay
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        tier: web
    - image: gcr.io/kpt-fn/set-namespace:v0.1.0
      configMap:
        namespace: prod
`,
		"app.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          image: nginx
  replicas: 2
`,
	}
	var events []string
	progress := Progress{
		Start: func(s Step) { events = append(events, "start "+s.Image) },
		Step:  func(s Step) { events = append(events, "step "+s.Image+" "+string(s.Status)) },
	}
	fs, root := memPkg(t, files)
	res, err := Render(context.Background(), fs, root, Options{Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	fs2, root2 := memPkg(t, files)
	if _, err := Render(context.Background(), fs2, root2, Options{serialized: true}); err != nil {
		t.Fatal(err)
	}
	compareFileMaps(t, treeFiles(t, fs2, root2), treeFiles(t, fs, root))
	if res.stats.replays != 1 {
		t.Errorf("stats %+v: want one replay", res.stats)
	}
	want := []string{
		"start gcr.io/kpt-fn/set-labels:v0.2.0", "step gcr.io/kpt-fn/set-labels:v0.2.0 " + string(StepOK),
		"start gcr.io/kpt-fn/set-namespace:v0.1.0", "step gcr.io/kpt-fn/set-namespace:v0.1.0 " + string(StepOK),
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("progress:\n got %q\nwant %q", events, want)
	}
	if len(res.Steps) != 2 || len(res.Results.Items) != 2 {
		t.Errorf("%d steps, %d result items; want 2 of each", len(res.Steps), len(res.Results.Items))
	}
}

// Compaction gives every mapping key its text from one string per
// distinct key, and changes nothing else.
func TestCompactInternsKeys(t *testing.T) {
	var nodes []*yaml.RNode
	for _, name := range []string{"a", "b"} {
		n, err := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  k: v\n")
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	want := []string{nodes[0].MustString(), nodes[1].MustString()}
	keys := map[string]string{}
	for _, n := range nodes {
		compact(n.YNode(), shapeOf(n.YNode(), nil), keys)
	}
	for i, n := range nodes {
		if got := n.MustString(); got != want[i] {
			t.Errorf("compacted:\n%s\nwant:\n%s", got, want[i])
		}
	}
	a, b := nodes[0].YNode().Content[4], nodes[1].YNode().Content[4]
	if a.Value != "metadata" || unsafe.StringData(a.Value) != unsafe.StringData(b.Value) {
		t.Errorf("the two metadata keys do not share their text")
	}
}

// A render that is all its process does paces the collector at
// smallGCPercent while a small package is in memory, and leaves the pace
// as it found it; any other render leaves it alone.
func TestOwnProcessPacesTheCollector(t *testing.T) {
	before := debug.SetGCPercent(137)
	defer debug.SetGCPercent(before)
	var during int
	probe := framework.ResourceListProcessorFunc(func(*framework.ResourceList) error {
		during = debug.SetGCPercent(-1)
		debug.SetGCPercent(during)
		return nil
	})
	for _, own := range []bool{true, false} {
		fs, root := memPkg(t, map[string]string{
			"Kptfile": kptfile("p", "pipeline:\n  mutators:\n    - image: probe\n"),
			"cm.yaml": cm("c"),
		})
		if _, err := Render(context.Background(), fs, root, Options{OwnProcess: own,
			Resolve: fakeResolver(map[string]framework.ResourceListProcessor{"probe": probe})}); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: smallGCPercent, false: 137}[own]; during != want {
			t.Errorf("OwnProcess %v: GOGC %d during the render, want %d", own, during, want)
		}
		if after := debug.SetGCPercent(137); after != 137 {
			t.Errorf("OwnProcess %v: GOGC %d after the render", own, after)
		}
	}
}
