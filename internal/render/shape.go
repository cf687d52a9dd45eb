package render

import "sigs.k8s.io/kustomize/kyaml/yaml"

// Shapes: what kpt's two steps after a function need of its input as it
// was. kpt copies comments from each input resource to its output
// (comments.CopyComments), which fails where it meets at one place a node of
// one kind in the input and of another in the output, and puts the output's
// fields back in the input's order (order.SyncOrder). Whether either would
// act is told by the kinds, nullness, mapping keys and child order of the
// input alone, which a resource's shapes hold in a fifth of a node tree's
// memory: a function run in place keeps them instead of a copy (runInPlace
// in fast.go), and the copy path takes them of its input for the same
// checks. shapeClash and shapeOrderMatches are tested against kyaml's own
// comment copy and order sync (TestShapeChecksAsKyaml,
// TestKindsClashCoversCopyCommentsErrors).

// shape is one node; its children are kids[first : first+n] of the
// resource's shapes.
type shape struct {
	kind     yaml.Kind
	null     bool
	value    string // scalars (mapping keys are what is compared)
	first, n int32
}

// shapes is a resource's shapes, the root first.
type shapes []shape

// shapeOf records n and everything in it, appending to buf[:0].
func shapeOf(n *yaml.Node, buf shapes) shapes {
	s, _ := buf[:0].add(n, false)
	return s
}

// plainShapeOf is shapeOf for a resource that has no comment and no folded
// scalar anywhere (plain), its document included, appending to slab (a
// resource's shapes end where the next one's begin); ok is false when it
// has one. It tags the nodes an earlier function made without a tag, as the
// function would read them from a ResourceList.
func plainShapeOf(n *yaml.RNode, slab shapes) (shapes, bool) {
	if d := n.Document(); d != n.YNode() && !plainShallow(d) {
		return nil, false
	}
	return slab[:0].add(n.YNode(), true)
}

// add appends n's shape and its children's, the root first; with plain it
// stops and answers false at a node with a comment or a folded scalar.
func (s shapes) add(n *yaml.Node, plain bool) (shapes, bool) {
	s = append(s, shape{})
	if !s.fill(len(s)-1, n, plain) {
		return s, false
	}
	return s, true
}

func (s *shapes) fill(at int, n *yaml.Node, plain bool) bool {
	if plain {
		if !plainShallow(n) {
			return false
		}
		if n.Tag == "" && (n.Kind == yaml.ScalarNode || n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) {
			// made in process by an earlier function: tagged as when read
			// back, as the copies are (nodeSlab.copy)
			n.Tag = n.ShortTag()
		}
	}
	(*s)[at] = shape{kind: n.Kind, null: isNullNode(n)}
	if n.Kind == yaml.ScalarNode {
		(*s)[at].value = n.Value
	}
	if len(n.Content) == 0 {
		return true
	}
	first := len(*s)
	(*s)[at].first, (*s)[at].n = int32(first), int32(len(n.Content))
	for range n.Content {
		*s = append(*s, shape{})
	}
	for i, c := range n.Content {
		if c == nil {
			(*s)[first+i] = shape{null: true}
			continue
		}
		if !s.fill(first+i, c, plain) {
			return false
		}
	}
	return true
}

// shapeRef is a node of a resource's shapes.
type shapeRef struct {
	s shapes
	i int32
}

func (r shapeRef) node() shape { return r.s[r.i] }

func (r shapeRef) child(k int) shapeRef { return shapeRef{r.s, r.s[r.i].first + int32(k)} }

func (r shapeRef) keyIndex(k string) int {
	n := r.node()
	for i := 0; i+1 < int(n.n); i += 2 {
		if r.child(i).node().value == k {
			return i
		}
	}
	return -1
}

func (r shapeRef) hasDupKeys() bool {
	n := int(r.node().n)
	if n/2 > 16 {
		seen := make(map[string]bool, n/2)
		for i := 0; i+1 < n; i += 2 {
			k := r.child(i).node().value
			if seen[k] {
				return true
			}
			seen[k] = true
		}
		return false
	}
	for i := 0; i+1 < n; i += 2 {
		for j := i + 2; j+1 < n; j += 2 {
			if r.child(i).node().value == r.child(j).node().value {
				return true
			}
		}
	}
	return false
}

// shapeClash reports whether comments.CopyComments(from, to) may fail, from
// being the node the shapes were taken of: it does when it meets at one
// place a node of one kind in from and of another in to (neither null).
// Mapping values are compared by key and sequence elements all with all,
// which covers the element pairs CopyComments walks (by index, or by merge
// key for the lists the schema says are associative), so this may report a
// clash where there is none, never miss one.
func shapeClash(from shapeRef, to *yaml.Node) bool {
	f := from.node()
	if f.null || isNullNode(to) {
		return false
	}
	if f.kind != to.Kind {
		return true
	}
	switch f.kind {
	case yaml.SequenceNode:
		var fs []shapeRef
		for i := 0; i < int(f.n); i++ {
			fs = append(fs, from.child(i))
		}
		return shapeClashAt(fs, to.Content)
	case yaml.MappingNode:
		for i := 0; i+1 < len(to.Content); i += 2 {
			k := to.Content[i]
			if k == nil || k.Kind != yaml.ScalarNode {
				return true
			}
			if fi := from.keyIndex(k.Value); fi >= 0 && shapeClash(from.child(fi+1), to.Content[i+1]) {
				return true
			}
		}
	}
	return false
}

// shapeClashAt reports whether the nodes found at one place in from and in
// to differ in kind, there or below.
func shapeClashAt(from []shapeRef, to []*yaml.Node) bool {
	fk, fok := uniformShapeKind(from)
	tk, tok := uniformKind(to)
	switch {
	case fk == 0 || tk == 0:
		return false
	case !fok || !tok || fk != tk:
		return true
	case fk == yaml.SequenceNode:
		var fe []shapeRef
		var te []*yaml.Node
		for _, r := range from {
			for i := 0; i < int(r.node().n); i++ {
				fe = append(fe, r.child(i))
			}
		}
		for _, n := range to {
			te = append(te, n.Content...)
		}
		return shapeClashAt(fe, te)
	case fk == yaml.MappingNode && len(from) == 1 && len(to) == 1:
		return shapeClash(from[0], to[0])
	case fk == yaml.MappingNode:
		return shapeClashMappings(from, to)
	}
	return false
}

// shapeClashMappings is shapeClashAt for mappings: the values of each key
// compared.
func shapeClashMappings(from []shapeRef, to []*yaml.Node) bool {
	var done map[string]bool
	if len(to) > 1 {
		done = map[string]bool{}
	}
	for _, t := range to {
		if t == nil {
			continue
		}
		for i := 0; i+1 < len(t.Content); i += 2 {
			k := t.Content[i]
			if k == nil || k.Kind != yaml.ScalarNode {
				return true
			}
			if done != nil {
				if done[k.Value] {
					continue
				}
				done[k.Value] = true
			}
			fv := shapeValuesOf(from, k.Value)
			if len(fv) > 0 && shapeClashAt(fv, valuesOf(to, k.Value)) {
				return true
			}
		}
	}
	return false
}

// uniformShapeKind is uniformKind for shapes.
func uniformShapeKind(nodes []shapeRef) (yaml.Kind, bool) {
	var kind yaml.Kind
	for _, r := range nodes {
		n := r.node()
		if n.null {
			continue
		}
		if kind == 0 {
			kind = n.kind
		} else if n.kind != kind {
			return kind, false
		}
	}
	return kind, true
}

// shapeValuesOf is valuesOf for shapes.
func shapeValuesOf(mappings []shapeRef, k string) []shapeRef {
	var out []shapeRef
	for _, m := range mappings {
		n := m.node()
		if n.null || n.kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < int(n.n); i += 2 {
			if m.child(i).node().value == k {
				out = append(out, m.child(i+1))
			}
		}
	}
	return out
}

// shapeOrderMatches reports whether order.SyncOrder(from, to) would leave to
// as it is, from being the node the shapes were taken of: in every mapping
// it visits, the keys to shares with from come first and in from's order,
// and sequences are visited element by element.
func shapeOrderMatches(from shapeRef, to *yaml.Node) bool {
	if to == nil {
		return true
	}
	f := from.node()
	if f.kind == yaml.DocumentNode {
		if f.n == 0 {
			return true
		}
		from = from.child(0)
		f = from.node()
	}
	if to.Kind == yaml.DocumentNode {
		if len(to.Content) == 0 {
			return true
		}
		to = to.Content[0]
	}
	if f.n == 0 || len(to.Content) == 0 {
		return true
	}
	switch f.kind {
	case yaml.MappingNode:
		if to.Kind != yaml.MappingNode {
			return true
		}
		if from.hasDupKeys() || hasDupKeys(to) {
			return false
		}
		last, residual := -1, false
		for i := 0; i+1 < len(to.Content); i += 2 {
			fi := from.keyIndex(to.Content[i].Value)
			if fi < 0 {
				residual = true
				continue
			}
			if residual || fi < last {
				return false
			}
			last = fi
			if !shapeOrderMatches(from.child(fi+1), to.Content[i+1]) {
				return false
			}
		}
		return true
	case yaml.SequenceNode:
		if to.Kind != yaml.SequenceNode {
			return true
		}
		for i := 0; i < int(f.n); i++ {
			if i >= len(to.Content) {
				return true
			}
			if !shapeOrderMatches(from.child(i), to.Content[i]) {
				return false
			}
		}
	}
	return true
}

// The output side's helpers.

func isNullNode(n *yaml.Node) bool { return n == nil || n.Tag == yaml.NodeTagNull }

// uniformKind returns the kind of the nodes that are neither nil nor null
// (0 if there are none) and whether they all have that kind.
func uniformKind(nodes []*yaml.Node) (yaml.Kind, bool) {
	var kind yaml.Kind
	for _, n := range nodes {
		if isNullNode(n) {
			continue
		}
		if kind == 0 {
			kind = n.Kind
		} else if n.Kind != kind {
			return kind, false
		}
	}
	return kind, true
}

// valuesOf returns the values of every key named k in the mappings.
func valuesOf(mappings []*yaml.Node, k string) []*yaml.Node {
	var out []*yaml.Node
	for _, m := range mappings {
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == k {
				out = append(out, m.Content[i+1])
			}
		}
	}
	return out
}
