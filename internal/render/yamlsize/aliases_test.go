package yamlsize

import (
	"errors"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// laughs is the billion laughs: 9 levels of 9 aliases, 9^9 scalars once
// expanded, in under 1 KiB.
func laughs(t *testing.T) string {
	b, err := os.ReadFile("../../../testdata/attacks/billion-laughs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func parse(t *testing.T, s string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(s), &n); err != nil {
		t.Fatal(err)
	}
	return &n
}

func TestExpandStopsTheBillionLaughs(t *testing.T) {
	src := laughs(t)
	if len(src) > 1024 {
		t.Fatalf("the bomb is %d bytes", len(src))
	}
	n := parse(t, src)
	_, err := Expand(n, Bounds{Aliases: 10_000, Bytes: 1 << 20})
	var ae *AliasError
	if !errors.As(err, &ae) || ae.Limit != 10_000 || !strings.Contains(err.Error(), "alias references") {
		t.Fatalf("err = %v", err)
	}
	_, err = Expand(n, Bounds{Bytes: 1 << 20})
	if !errors.As(err, &ae) || ae.Limit != 1<<20 || !strings.Contains(err.Error(), "aliases expanded") {
		t.Fatalf("err = %v", err)
	}
}

func TestExpandMeasures(t *testing.T) {
	n := parse(t, "a: &x [ab, cd]\nb: *x\nc: *x\n")
	e, err := Expand(n, Bounds{Aliases: 2, Bytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	// document, mapping, 3 keys, the list and its 2 items three times
	if e.Nodes != 1+1+3+3*3 || e.Aliases != 2 {
		t.Fatalf("%+v", e)
	}
	if _, err := Expand(n, Bounds{Aliases: 1}); err == nil {
		t.Fatal("2 aliases passed a bound of 1")
	}
	// without aliases, bytes are not bounded here (the package limits are)
	if _, err := Expand(parse(t, "a: "+strings.Repeat("x", 100)+"\n"), Bounds{Bytes: 10}); err != nil {
		t.Fatal(err)
	}
}

func TestExpandRefusesAnAliasInsideItsAnchor(t *testing.T) {
	n := parse(t, "a: &x [1, 2]\n")
	seq := n.Content[0].Content[1]
	seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.AliasNode, Value: "x", Alias: seq})
	_, err := Expand(n, Bounds{})
	if err == nil || !strings.Contains(err.Error(), "contains it") {
		t.Fatalf("err = %v", err)
	}
}
