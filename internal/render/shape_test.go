package render

import (
	"math/rand"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/comments"
	"sigs.k8s.io/kustomize/kyaml/order"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// randomTree makes a small YAML tree over few keys and kinds, so that two
// of them share keys and differ in kinds and order often.
func randomTree(rnd *rand.Rand, depth int) *yaml.Node {
	switch k := rnd.Intn(10); {
	case depth == 0 || k < 3:
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: []string{"a", "b", "c"}[rnd.Intn(3)]}
		if rnd.Intn(6) == 0 {
			n.Tag, n.Value = yaml.NodeTagNull, "null"
		}
		return n
	case k < 6:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for i := rnd.Intn(4); i > 0; i-- {
			n.Content = append(n.Content, randomTree(rnd, depth-1))
		}
		return n
	default:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for i := rnd.Intn(5); i > 0; i-- {
			key := []string{"name", "kind", "spec", "x", "y"}[rnd.Intn(5)]
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
				randomTree(rnd, depth-1))
		}
		return n
	}
}

// mutateTree changes a copy of n a little: reorders a mapping, changes a
// node's kind, adds or drops an entry.
func mutateTree(rnd *rand.Rand, n *yaml.Node) *yaml.Node {
	c := yaml.CopyYNode(n)
	var nodes []*yaml.Node
	var walk func(*yaml.Node)
	walk = func(x *yaml.Node) {
		nodes = append(nodes, x)
		for _, ch := range x.Content {
			walk(ch)
		}
	}
	walk(c)
	for i := rnd.Intn(3); i >= 0; i-- {
		x := nodes[rnd.Intn(len(nodes))]
		switch rnd.Intn(4) {
		case 0:
			if x.Kind == yaml.MappingNode && len(x.Content) >= 4 {
				x.Content[0], x.Content[1], x.Content[2], x.Content[3] = x.Content[2], x.Content[3], x.Content[0], x.Content[1]
			}
		case 1:
			*x = *randomTree(rnd, 2)
		case 2:
			if x.Kind == yaml.MappingNode {
				x.Content = append(x.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "new"}, randomTree(rnd, 1))
			}
		case 3:
			if len(x.Content) >= 2 {
				x.Content = x.Content[2:]
			}
		}
	}
	return c
}

// kindsClash is shapeClash on from's shapes.
func kindsClash(from, to *yaml.Node) bool { return shapeClash(shapeRef{shapeOf(from, nil), 0}, to) }

// TestShapeChecksAsKyaml: on many pairs of trees (random ones, and trees
// with their own small mutations), where shapeClash finds no clash kyaml's
// comment copy does not fail, and where shapeOrderMatches says the order
// matches kyaml's order sync leaves the output as it is (asked, as the
// render asks it, only where no clash was found); and both checks give both
// answers often.
func TestShapeChecksAsKyaml(t *testing.T) {
	rnd := rand.New(rand.NewSource(13))
	var buf shapes
	clashes, reorders := 0, 0
	for i := 0; i < 20000; i++ {
		from := randomTree(rnd, 4)
		var to *yaml.Node
		if i%2 == 0 {
			to = randomTree(rnd, 4)
		} else {
			to = mutateTree(rnd, from)
		}
		buf = shapeOf(from, buf)
		ref := shapeRef{buf, 0}
		if shapeClash(ref, to) {
			clashes++
			continue // the render asks no more of a clash (the serialized run takes over)
		}
		if err := comments.CopyComments(yaml.NewRNode(yaml.CopyYNode(from)), yaml.NewRNode(yaml.CopyYNode(to))); err != nil {
			t.Fatalf("pair %d: no clash found, but the comment copy fails (%v)\nfrom:\n%s\nto:\n%s", i, err, dump(from), dump(to))
		}
		if !shapeOrderMatches(ref, to) {
			reorders++
			continue
		}
		synced := yaml.CopyYNode(to)
		if err := order.SyncOrder(yaml.NewRNode(yaml.CopyYNode(from)), yaml.NewRNode(synced)); err != nil {
			t.Fatalf("pair %d: %v", i, err)
		}
		if got, want := dump(synced), dump(to); got != want {
			t.Fatalf("pair %d: the order matches, but the order sync changes\n%s\ninto\n%s\n(from:\n%s)", i, want, got, dump(from))
		}
	}
	if clashes < 1000 || clashes > 19000 || reorders < 300 || reorders > 20000-clashes-300 {
		t.Fatalf("too one-sided: %d clashes, %d order mismatches in 20000 pairs", clashes, reorders)
	}
}

func dump(n *yaml.Node) string {
	s, err := yaml.NewRNode(n).String()
	if err != nil {
		return err.Error()
	}
	return s
}
