package render

import "sigs.k8s.io/kustomize/kyaml/yaml"

// Shape checks that tell whether kyaml's comment copy (comments.CopyComments)
// can run on a function's input and output as they are, or whether the
// serialized path must take over.

// kindsClash reports whether comments.CopyComments(from, to) may fail:
// it does when it meets at one place a node of one kind in from and of
// another in to (neither null). Mapping values are compared by key and
// sequence elements all with all, which covers the element pairs
// CopyComments walks (by index, or by merge key for the lists the schema
// says are associative), so this may report a clash where there is none,
// never miss one.
func kindsClash(from, to *yaml.Node) bool {
	if isNullNode(from) || isNullNode(to) {
		return false
	}
	if from.Kind != to.Kind {
		return true
	}
	switch from.Kind {
	case yaml.SequenceNode:
		return clashAt(from.Content, to.Content)
	case yaml.MappingNode:
		// CopyComments pairs the first value of each key on both sides;
		// every value of to against the first of from covers that
		for i := 0; i+1 < len(to.Content); i += 2 {
			k := to.Content[i]
			if k == nil || k.Kind != yaml.ScalarNode {
				return true
			}
			if fi := keyIndex(from, k.Value); fi >= 0 && kindsClash(from.Content[fi+1], to.Content[i+1]) {
				return true
			}
		}
	}
	return false
}

func isNullNode(n *yaml.Node) bool { return n == nil || n.Tag == yaml.NodeTagNull }

// clashAt reports whether the nodes found at one place in from and in to
// differ in kind, there or below.
func clashAt(from, to []*yaml.Node) bool {
	fk, fok := uniformKind(from)
	tk, tok := uniformKind(to)
	switch {
	case fk == 0 || tk == 0:
		return false // nothing to compare on one side
	case !fok || !tok || fk != tk:
		return true
	case fk == yaml.SequenceNode:
		var fe, te []*yaml.Node
		for _, n := range from {
			fe = append(fe, n.Content...)
		}
		for _, n := range to {
			te = append(te, n.Content...)
		}
		return clashAt(fe, te)
	case fk == yaml.MappingNode && len(from) == 1 && len(to) == 1:
		return kindsClash(from[0], to[0])
	case fk == yaml.MappingNode:
		return clashMappings(from, to)
	}
	return false
}

// clashMappings is clashAt for mappings: the values of each key compared.
func clashMappings(from, to []*yaml.Node) bool {
	var done map[string]bool // keys compared already
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
			fv := valuesOf(from, k.Value)
			if len(fv) > 0 && clashAt(fv, valuesOf(to, k.Value)) {
				return true
			}
		}
	}
	return false
}

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

// orderMatches reports whether order.SyncOrder(from, to) would leave to as
// it is: in every mapping it visits, the keys to shares with from come first
// and in from's order, and sequences are visited element by element.
func orderMatches(from, to *yaml.Node) bool {
	if from == nil || to == nil {
		return true
	}
	if from.Kind == yaml.DocumentNode {
		if len(from.Content) == 0 {
			return true
		}
		from = from.Content[0]
	}
	if to.Kind == yaml.DocumentNode {
		if len(to.Content) == 0 {
			return true
		}
		to = to.Content[0]
	}
	if len(from.Content) == 0 || len(to.Content) == 0 {
		return true
	}
	switch from.Kind {
	case yaml.MappingNode:
		if to.Kind != yaml.MappingNode {
			return true
		}
		if hasDupKeys(from) || hasDupKeys(to) {
			return false // let SyncOrder decide
		}
		last, residual := -1, false
		for i := 0; i+1 < len(to.Content); i += 2 {
			fi := keyIndex(from, to.Content[i].Value)
			if fi < 0 {
				residual = true
				continue
			}
			if residual || fi < last {
				return false
			}
			last = fi
			if !orderMatches(from.Content[fi+1], to.Content[i+1]) {
				return false
			}
		}
		return true
	case yaml.SequenceNode:
		if to.Kind != yaml.SequenceNode {
			return true
		}
		for i := range from.Content {
			if i >= len(to.Content) {
				return true
			}
			if !orderMatches(from.Content[i], to.Content[i]) {
				return false
			}
		}
	}
	return true
}
