package render

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/comments"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// placementBase is a resource with every kind of node a comment can sit
// on: keys first and not, values, block and flow collections, sequences
// of scalars and of mappings, block scalars, empty and long values
// (folded scalars are never stable: kpt's comment copy restyles them).
const placementBase = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%d
  labels:
    app: app
  annotations:
    note: "quoted value"
spec:
  replicas: 2
  empty:
  flow: {a: 1, b: [x, y]}
  script: |
    echo hi
  template:
    spec:
      containers:
      - name: c
        image: nginx:1.25
        args:
        - --a
        - --b
        ports:
        - containerPort: 80
          protocol: TCP
      - name: d
        image: busybox
  list:
    - 1
    - 2
  long: a very long value with spaces that goes past the encoder's line width for sure, yes indeed it does
`

// allNodes lists n and everything in it, depth first.
func allNodes(n *yaml.Node) []*yaml.Node {
	out := []*yaml.Node{n}
	for _, c := range n.Content {
		out = append(out, allNodes(c)...)
	}
	return out
}

// placementFiles returns the base resource with one comment added on one
// node, for every node and every kind of comment (head, line, foot, one
// line or two), each as the file text kyaml writes for it.
func placementFiles(t testing.TB) []string {
	t.Helper()
	count := len(allNodes(yaml.MustParse(fmt.Sprintf(placementBase, 0)).YNode()))
	var files []string
	for i := 0; i < count; i++ {
		for kind := 0; kind < 6; kind++ {
			n := yaml.MustParse(fmt.Sprintf(placementBase, len(files)))
			x := allNodes(n.YNode())[i]
			c := "# kpt-set: ${v}"
			if kind >= 3 {
				c = "# one\n# two"
			}
			switch kind % 3 {
			case 0:
				x.HeadComment = c
			case 1:
				x.LineComment = strings.SplitN(c, "\n", 2)[0]
			case 2:
				x.FootComment = c
			}
			s, err := n.String()
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, s)
		}
	}
	return files
}

// readResource reads a file's one resource as the render reads it.
func readResource(t testing.TB, s string) *yaml.RNode {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: strings.NewReader(s), PreserveSeqIndent: true}).Read()
	if err != nil || len(nodes) != 1 {
		t.Fatalf("%v (%d resources):\n%s", err, len(nodes), s)
	}
	return nodes[0]
}

// throughResourceList returns n as a function reads it from the
// ResourceList kpt writes, between two other resources.
func throughResourceList(t testing.TB, n *yaml.RNode) *yaml.RNode {
	t.Helper()
	other := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n")
	var buf bytes.Buffer
	if err := (kio.ByteWriter{Writer: &buf, KeepReaderAnnotations: true, WrappingAPIVersion: kio.ResourceListAPIVersion,
		WrappingKind: kio.ResourceListKind}).Write([]*yaml.RNode{other, n, other.Copy()}); err != nil {
		t.Fatal(err)
	}
	out, err := (&kio.ByteReader{Reader: &buf}).Read()
	if err != nil || len(out) != 3 {
		t.Fatalf("%v (%d resources)", err, len(out))
	}
	return out[1]
}

// sameComments reports where a and b differ in shape, values or comments.
func sameComments(a, b *yaml.Node, at string) string {
	switch {
	case a == nil || b == nil:
		if a != b {
			return at + ": one side missing"
		}
		return ""
	case a.Kind != b.Kind || a.Value != b.Value || len(a.Content) != len(b.Content):
		return fmt.Sprintf("%s: %v %q (%d) vs %v %q (%d)", at, a.Kind, a.Value, len(a.Content), b.Kind, b.Value,
			len(b.Content))
	case a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment:
		return fmt.Sprintf("%s: comments %q %q %q vs %q %q %q", at, a.HeadComment, a.LineComment, a.FootComment,
			b.HeadComment, b.LineComment, b.FootComment)
	}
	for i := range a.Content {
		if d := sameComments(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// The in-memory path hands a function the resources themselves where kpt
// hands it what a ResourceList round trip makes of them, and keeps a
// function's output where kpt reads it back: for every comment placement
// stableSize accepts, the round trip must change nothing.
func TestStableCommentsSurviveRoundTrip(t *testing.T) {
	var stable, moved int
	for _, f := range placementFiles(t) {
		in := readResource(t, f)
		_, _, ok := stableResource(in)
		diff := sameComments(in.YNode(), throughResourceList(t, in.Copy()).YNode(), "")
		if ok {
			stable++
			if diff != "" {
				t.Errorf("accepted as stable, but the round trip moves a comment (%s):\n%s", diff, f)
			}
		} else if diff != "" {
			moved++
		}
	}
	t.Logf("%d placements stable, %d moved by the round trip", stable, moved)
	// the predicate must accept the common placements and the round trip
	// must move some others (the header comment at least)
	if stable < 50 || moved == 0 {
		t.Errorf("%d stable placements, %d moved: the cases do not exercise the predicate", stable, moved)
	}
}

// commentsKept must never say that kpt's comment copy changes nothing where
// it changes something.
func TestCommentsKeptMatchesCopyComments(t *testing.T) {
	const in = `apiVersion: apps/v1
kind: Deployment
metadata:
  # the name
  name: app
spec:
  replicas: 2 # kpt-set: ${replicas}
  template:
    spec:
      containers:
      - name: c
        image: nginx:1.25 # kpt-set: ${image}
        args:
        - --a # first
        - --b
      - name: d
        # the image
        image: busybox
`
	edits := map[string]func(n *yaml.Node){
		"none": func(*yaml.Node) {},
		"line comment dropped": func(n *yaml.Node) {
			nodeAt(n, "spec", "replicas").LineComment = ""
		},
		"head comment dropped": func(n *yaml.Node) {
			keyAt(n, "metadata", "name").HeadComment = ""
		},
		"comment changed": func(n *yaml.Node) {
			nodeAt(n, "spec", "replicas").LineComment = "# other"
		},
		"value changed": func(n *yaml.Node) {
			nodeAt(n, "spec", "template", "spec", "containers", "0", "image").Value = "nginx:2"
		},
		"value replaced": func(n *yaml.Node) {
			v := nodeAt(n, "spec", "template", "spec", "containers", "0", "image")
			*v = yaml.Node{Kind: yaml.ScalarNode, Value: "nginx:2", Tag: yaml.NodeTagString}
		},
		"containers swapped": func(n *yaml.Node) {
			c := nodeAt(n, "spec", "template", "spec", "containers")
			c.Content[0], c.Content[1] = c.Content[1], c.Content[0]
		},
		"container renamed": func(n *yaml.Node) {
			nodeAt(n, "spec", "template", "spec", "containers", "1", "name").Value = "c"
		},
		"container prepended": func(n *yaml.Node) {
			c := nodeAt(n, "spec", "template", "spec", "containers")
			c.Content = append([]*yaml.Node{yaml.MustParse("name: e\nimage: x\n").YNode()}, c.Content...)
		},
		"container dropped": func(n *yaml.Node) {
			c := nodeAt(n, "spec", "template", "spec", "containers")
			c.Content = c.Content[1:]
		},
		"args swapped": func(n *yaml.Node) {
			a := nodeAt(n, "spec", "template", "spec", "containers", "0", "args")
			a.Content[0], a.Content[1] = a.Content[1], a.Content[0]
		},
		"schema comment": func(n *yaml.Node) {
			nodeAt(n, "spec", "template", "spec", "containers").LineComment = `# {"type": "array"}`
		},
		"field added first": func(n *yaml.Node) {
			m := nodeAt(n, "metadata")
			m.Content = append([]*yaml.Node{{Kind: yaml.ScalarNode, Value: "namespace", Tag: yaml.NodeTagString},
				{Kind: yaml.ScalarNode, Value: "prod", Tag: yaml.NodeTagString}}, m.Content...)
		},
	}
	var changed int
	for name, edit := range edits {
		from := yaml.MustParse(in)
		to := from.Copy()
		edit(to.YNode())
		kept := commentsKept(from.YNode(), to.YNode())
		before := to.MustString()
		if err := comments.CopyComments(from, to); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		after := to.MustString()
		if kept && before != after {
			t.Errorf("%s: commentsKept, but the comment copy changes:\n%s\ninto\n%s", name, before, after)
		}
		if before != after {
			changed++
		}
		if (name == "none" || name == "comment changed" || name == "value changed" || name == "field added first") && !kept {
			t.Errorf("%s: not kept, but the copy has nothing to do", name)
		}
	}
	if changed == 0 {
		t.Error("no edit makes the comment copy change anything: the cases do not exercise commentsKept")
	}
}

// nodeAt returns the value at the path (mapping keys, sequence indexes).
func nodeAt(n *yaml.Node, path ...string) *yaml.Node {
	for _, p := range path {
		if n.Kind == yaml.SequenceNode {
			var i int
			fmt.Sscan(p, &i)
			n = n.Content[i]
			continue
		}
		n = n.Content[keyIndex(n, p)+1]
	}
	return n
}

// keyAt returns the key node at the path.
func keyAt(n *yaml.Node, path ...string) *yaml.Node {
	m := nodeAt(n, path[:len(path)-1]...)
	return m.Content[keyIndex(m, path[len(path)-1])]
}

// mergeKeyCandidates must name every key kyaml's schema pairs list
// elements by.
func TestMergeKeyCandidatesCoverSchema(t *testing.T) {
	known := map[string]bool{}
	for _, k := range mergeKeyCandidates {
		known[k] = true
	}
	seen := map[*spec.Schema]bool{}
	var visit func(s *spec.Schema)
	visit = func(s *spec.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		var keys []string
		if v, ok := s.Extensions["x-kubernetes-patch-merge-key"].(string); ok {
			keys = append(keys, v)
		}
		if v, ok := s.Extensions["x-kubernetes-list-map-keys"].([]interface{}); ok {
			for _, k := range v {
				keys = append(keys, fmt.Sprint(k))
			}
		}
		for _, k := range keys {
			if !known[k] {
				t.Errorf("merge key %q is missing from mergeKeyCandidates", k)
				known[k] = true
			}
		}
		for name := range s.Properties {
			p := s.Properties[name]
			visit(&p)
		}
		if s.Items != nil {
			visit(s.Items.Schema)
		}
	}
	defs := openapi.Schema().Definitions
	if len(defs) == 0 {
		t.Fatal("no schema")
	}
	for name := range defs {
		d := defs[name]
		visit(&d)
	}
}

// Every placement rendered by kpt (the built-ins as exec functions), in
// memory and serialized: the same files. One package holds only resources
// with stable comments (so every function runs in memory), one the same
// with header comments, the other every placement (the same functions,
// apply-setters in the first only).
func TestCommentPlacementsAsKpt(t *testing.T) {
	kpt, rel := installedKpt(t)
	tmp := t.TempDir()
	fnDir := buildFnScripts(t, tmp)
	pipeline := imageLine.ReplaceAllString(benchPipeline, "exec: "+fnDir+"/$1")
	// apply-setters where no setter comment sits on a mapping (which kpt's
	// comment copy refuses once the setter made it a scalar)
	setters := pipeline + "    - exec: " + fnDir + "/apply-setters\n      configMap:\n        v: \"[a, b]\"\n"
	var stableFiles, all, headers []string
	shape := readResource(t, fmt.Sprintf(placementBase, 0)).YNode()
	for _, f := range placementFiles(t) {
		in := readResource(t, f)
		if sameShape(shape, in.YNode()) {
			// not the comments that change a flow collection into other
			// data (which functions then refuse)
			all = append(all, f)
		}
		if _, _, ok := stableResource(in); ok {
			stableFiles = append(stableFiles, f)
			headers = append(headers, headerForms[len(headers)%len(headerForms)]+f)
		}
	}
	disk := filesys.MakeFsOnDisk()
	for name, files := range map[string][]string{"stable": stableFiles, "all": all, "headers": headers} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each in its own directories: kpt's run dominates
			write := func(dir string) {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: placements\n" + pipeline
				if name == "stable" {
					kf = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: placements\n" + setters
				}
				if err := os.WriteFile(filepath.Join(dir, "Kptfile"), []byte(kf), 0o644); err != nil {
					t.Fatal(err)
				}
				for i, f := range files {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%03d.yaml", i)), []byte(f), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			kdir := filepath.Join(tmp, name, "kpt")
			write(kdir)
			cmd := exec.Command(kpt, "fn", "render", "--allow-exec", kdir)
			cmd.Env = append(os.Environ(), "KPT_DISABLE_ATTRIBUTION=")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("kpt fn render: %v\n%s", err, out)
			}
			want := treeFiles(t, disk, kdir)
			for _, serialized := range []bool{false, true} {
				dir := filepath.Join(tmp, name, fmt.Sprint(serialized))
				write(dir)
				opts := corpusOptions(fnDir, rel)
				opts.serialized = serialized
				res, err := Render(context.Background(), disk, dir, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !serialized && name != "all" && (res.stats.serialized != 0 || res.stats.roundTrip != 0) {
					t.Errorf("stable comments and headers did not stay in memory: %+v", res.stats)
				}
				if !serialized && name == "headers" && res.stats.headerTrip == 0 {
					t.Errorf("no header read back alone: %+v", res.stats)
				}
				got := treeFiles(t, disk, dir)
				if len(got) != len(want) {
					t.Fatalf("serialized=%v: %d files, kpt %d", serialized, len(got), len(want))
				}
				for f, w := range want {
					if !bytes.Equal(got[f], w) {
						t.Errorf("serialized=%v: %s differs from kpt's:\n%s\nkpt:\n%s", serialized, f, got[f], w)
					}
				}
			}
		})
	}
}

// sameShape reports whether a and b hold the same keys and collections
// (values aside).
func sameShape(a, b *yaml.Node) bool {
	if a.Kind != b.Kind || len(a.Content) != len(b.Content) {
		return false
	}
	if a.Kind == yaml.ScalarNode {
		return true
	}
	for i := range a.Content {
		if a.Kind == yaml.MappingNode && i%2 == 0 && a.Content[i].Value != b.Content[i].Value {
			return false
		}
		if !sameShape(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

// headerForms are the header comments a file can start with. Not here: a
// header with a blank line within ("# one\n\n# two\n\n"), which kpt renders
// otherwise than porchbot's serialized path too (and which is not a
// headerResource, so it takes that path).
var headerForms = []string{"# header\n", "# header\n\n", "# one\n# two\n", "# one\n# two\n\n", ""}

// A resource with a header comment (headerResource) goes through a
// ResourceList of its own, in and out: that must give what the whole list
// gives, for it and for its stable neighbours, as read from files and as a
// function returns them (the header moved by the first round trip).
func TestHeaderRoundTripAlone(t *testing.T) {
	cfg := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata:\n  a: b\n")
	var neighbours, hs []*yaml.RNode
	for i, f := range placementFiles(t) {
		x := readResource(t, f)
		if _, _, ok := stableResource(x); !ok {
			continue
		}
		neighbours = append(neighbours, x)
		for _, h := range headerForms[:len(headerForms)-1] {
			if i%20 == 0 {
				hs = append(hs, readResource(t, h+f))
			}
		}
	}
	for _, h := range headerForms[:len(headerForms)-1] {
		hs = append(hs, readResource(t, h+"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h # x\ndata:\n  a: b # c\n"))
	}
	var checked int
	for _, u := range hs {
		if _, _, ok := stableResource(u); ok || !headerResource(u) {
			t.Fatalf("not a header resource:\n%s", u.MustString())
		}
		// as read, then as the function gets it back (what it returns)
		moved, err := throughList(u, cfg, nil, &kio.ByteReadWriter{KeepReaderAnnotations: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []*yaml.RNode{u, moved} {
			if _, _, ok := stableResource(v); !ok && !headerResource(v) {
				continue // not read back alone
			}
			alone, err := throughList(v, cfg, nil, &kio.ByteReader{})
			if err != nil {
				t.Fatal(err)
			}
			for j, x := range neighbours {
				if j%7 != 0 {
					continue
				}
				var buf bytes.Buffer
				if err := (kio.ByteWriter{Writer: &buf, KeepReaderAnnotations: true, FunctionConfig: cfg,
					WrappingAPIVersion: kio.ResourceListAPIVersion, WrappingKind: kio.ResourceListKind}).Write(
					[]*yaml.RNode{x, v, x, v}); err != nil {
					t.Fatal(err)
				}
				full, err := (&kio.ByteReader{Reader: &buf}).Read()
				if err != nil || len(full) != 4 {
					t.Fatalf("%v (%d)", err, len(full))
				}
				xAlone, err := throughList(x, cfg, nil, &kio.ByteReader{})
				if err != nil {
					t.Fatal(err)
				}
				for k, want := range []*yaml.RNode{xAlone, alone, xAlone, alone} {
					if d := sameComments(want.Document(), full[k].Document(), ""); d != "" {
						t.Errorf("item %d differs in the whole list (%s):\n%s\nnext to\n%s", k, d, v.MustString(),
							x.MustString())
					}
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d lists checked", checked)
	}
}
