package yamlsize

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// parsedNodes counts the nodes the YAML parser makes of b (aliases not
// expanded) and the documents; ok is false when b does not parse.
func parsedNodes(b []byte) (nodes int64, ok bool) {
	d := yaml.NewDecoder(bytes.NewReader(b))
	var count func(n *yaml.Node) int64
	count = func(n *yaml.Node) int64 {
		c := int64(1)
		for _, x := range n.Content {
			c += count(x)
		}
		return c
	}
	for {
		var n yaml.Node
		err := d.Decode(&n)
		if errors.Is(err, io.EOF) {
			return nodes, true
		}
		if err != nil {
			return 0, false
		}
		nodes += count(&n) + PerDocument
	}
}

var estimateSeeds = []string{
	"",
	"a: b\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: \"1\"\n",
	"[a,b,c,[d,e],{f: g, h}]\n",
	"- a\n- b\n-\n- - c\n  - d\n",
	"a:\nb:\n? c\n: d\n",
	"k: |\n  line with: colons, [brackets] and - dashes\n  more\nj: >-\n    folded\n\n    text\nl: x\n",
	"- k: |\n    text\n  a: [1, 1, 1, 1]\n",
	"k: 'it''s: [1, 2]'\nj: \"a \\\" [b, c]\"\nx: a \"b, c\"\n",
	"a: &x [1, 2, 3]\nb: *x\nc: !!str 5\n",
	"---\na: 1\n---\n- b\n...\n---\nc\n",
	"{a: 1, b: [2, 3], c: {d: e}}\n",
	"k: v # comment: [1, 2]\n# - x\n",
	"[a: b, c: d]\n",
	"a:\n  - b: |\n      x\n    c: [1, 2, 3]\n",
	"{\"a\":1,\"b\":[1,2]}\n",
	"k: |2\n   x\n  y\n",
	"? [a, b]\n: [c, d]\n",
}

func TestEstimateNodesIsAnUpperBound(t *testing.T) {
	for _, s := range estimateSeeds {
		real, ok := parsedNodes([]byte(s))
		if !ok {
			t.Fatalf("seed does not parse: %q", s)
		}
		if got := EstimateNodes([]byte(s)); got < real {
			t.Errorf("EstimateNodes(%q) = %d, the parser makes %d", s, got, real)
		}
	}
}

func TestEstimateNodesOfTinyScalars(t *testing.T) {
	// 1 MiB of "[a,a,a,…]": half a million nodes, counted as such
	b := []byte("[" + strings.Repeat("a,", 512<<10) + "a]\n")
	real, ok := parsedNodes(b)
	if !ok {
		t.Fatal("does not parse")
	}
	got := EstimateNodes(b)
	if got < real || got > 4*real {
		t.Fatalf("EstimateNodes = %d for %d real nodes", got, real)
	}
}

func TestEstimateNodesOfOrdinaryYAML(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 100; i++ {
		b.WriteString("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n  labels:\n    app.kubernetes.io/part-of: shop\nspec:\n  template:\n    spec:\n      containers:\n        - name: main\n          image: nginx:1.25\n          args: [\"--port\", \"80\"]\n")
	}
	real, _ := parsedNodes([]byte(b.String()))
	got := EstimateNodes([]byte(b.String()))
	if got < real || 2*got > 3*real {
		t.Fatalf("EstimateNodes = %d for %d real nodes", got, real)
	}
}

// FuzzEstimateNodes: for anything the parser accepts, the estimate is at
// least what the parser makes.
func FuzzEstimateNodes(f *testing.F) {
	for _, s := range estimateSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		real, ok := parsedNodes([]byte(s))
		if !ok {
			return
		}
		if got := EstimateNodes([]byte(s)); got < real {
			t.Fatalf("EstimateNodes(%q) = %d, the parser makes %d", s, got, real)
		}
	})
}
