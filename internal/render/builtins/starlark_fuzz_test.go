package builtins

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/render/yamlsize"
)

var starlarkFuzzSeeds = []string{
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n",
	"a: &x [1, 2.5, true, null, \"s\"]\nb: *x\n",
	"base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n",
	"a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
	"n: 123456789012345678901234567890\nf: .inf\nt: !!binary aGVsbG8=\nd: 2024-01-01\n",
	"? [a, b]\n: c\n",
	"- - - - [deep]\n",
	"k: !!int \"12\"\nm: {1: one, 2.5: x}\n",
}

// fuzzBounds keep each fuzz input's expansion small, as the render's
// defaults keep a package's.
var fuzzBounds = yamlsize.Bounds{Aliases: 1000, Bytes: 64 << 10}

// FuzzYAMLToStarlark: whatever YAML reaches the starlark function, turning
// it into Starlark values neither panics nor does unbounded work: documents
// beyond the alias bounds are refused before conversion, and what is
// converted holds no more values than the bounds allow.
func FuzzYAMLToStarlark(f *testing.F) {
	for _, s := range starlarkFuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 8<<10 {
			return
		}
		d := yaml.NewDecoder(strings.NewReader(src))
		for {
			var n yaml.Node
			if err := d.Decode(&n); err != nil {
				if errors.Is(err, io.EOF) {
					return
				}
				return // not YAML: nothing reaches the function
			}
			e, err := yamlsize.Expand(&n, fuzzBounds)
			if err != nil {
				continue // refused before conversion
			}
			v, err := nodeToStarlark(&n)
			if err != nil {
				continue
			}
			if got := countValues(v); got > e.Nodes {
				t.Fatalf("%d values from %d expanded nodes", got, e.Nodes)
			}
			if _, err := fromStarlark(v); err != nil && !strings.Contains(err.Error(), "out of range") {
				t.Fatalf("back from starlark: %v", err)
			}
			// as starlark v0.1.x decode it (keys as values, merges in place)
			conv := &v01Converter{fromInput: map[*starlark.Dict]map[string]bool{}}
			if v, err := conv.value(&n); err == nil {
				if got := countValues(v); got > e.Nodes {
					t.Fatalf("v0.1: %d values from %d expanded nodes", got, e.Nodes)
				}
				_ = conv.outputError(v)
			}
		}
	})
}

// countValues counts the values in v (keys and elements included).
func countValues(v starlark.Value) int64 {
	switch x := v.(type) {
	case *starlark.Dict:
		c := int64(1)
		for _, it := range x.Items() {
			c += countValues(it[0]) + countValues(it[1])
		}
		return c
	case *starlark.List:
		c := int64(1)
		for i := 0; i < x.Len(); i++ {
			c += countValues(x.Index(i))
		}
		return c
	}
	return 1
}

func TestStarlarkRefusesAnAliasBomb(t *testing.T) {
	// the billion laughs: 9^9 strings once expanded
	b, err := os.ReadFile("../../../testdata/attacks/billion-laughs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	item, err := yaml.Parse(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := item.PipeE(yaml.SetAnnotation("internal.config.kubernetes.io/path", "bomb.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err = starlarkResourceList([]*yaml.RNode{item}, nil)
	var ae *yamlsize.AliasError
	if !errors.As(err, &ae) || !strings.HasPrefix(err.Error(), "bomb.yaml: input too large: the number of YAML alias references") {
		t.Fatalf("err = %v", err)
	}
	// an alias inside its own anchor would recurse forever
	self := yaml.MustParse("a: &x [1]\n").YNode()
	seq := self.Content[1]
	seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.AliasNode, Value: "x", Alias: seq})
	if _, err := starlarkResourceList([]*yaml.RNode{yaml.NewRNode(self)}, nil); !errors.As(err, &ae) {
		t.Fatalf("err = %v", err)
	}
}
