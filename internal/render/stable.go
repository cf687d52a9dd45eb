package render

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Comments that survive the round trip.
//
// kpt hands a function its input through a serialized ResourceList and
// reads its output back the same way; the YAML encoder and decoder move
// some comments (foot comments, comments on collections, on the first key
// of a resource or of a sequence item, in flow collections, after block
// scalars) and keep others where they are. Resources whose comments are all
// of the second sort (see stableShallow) come out of the round trip as they
// went in, so they can take the in-memory path as plain ones do;
// TestStableCommentsSurviveRoundTrip checks each placement against the
// serialization itself and TestCommentPlacementsAsKpt against kpt.

// place is where a node sits in its parent.
type place uint8

const (
	atRoot     place = iota // a resource's mapping (an item of the ResourceList)
	atFirstKey              // the first key of a resource or of a sequence item
	atKey                   // any other key of a block mapping
	atValue                 // a value of a block mapping
	atItem                  // an element of a block sequence
	inFlow                  // anything inside a flow collection
)

// stableShallow reports whether the comments of n alone (not its children)
// come back where they are from a round trip, n being at p, and n is not a
// folded scalar (kpt's comment copy restyles those). Stable: none, a head
// comment on a key other than a first key, a line comment on a one-line
// scalar value or sequence element.
func stableShallow(n *yaml.Node, p place) bool {
	if n.FootComment != "" || (n.Kind == yaml.ScalarNode && n.Style&yaml.FoldedStyle != 0) {
		return false
	}
	if n.HeadComment == "" && n.LineComment == "" {
		return true
	}
	if n.Kind != yaml.ScalarNode || n.Style&yaml.LiteralStyle != 0 || n.Value == "" ||
		strings.ContainsAny(n.Value, "\n\r") || len(n.Value) > 64 {
		return false
	}
	if strings.HasPrefix(n.HeadComment, "\n") || strings.HasSuffix(n.HeadComment, "\n") ||
		strings.Contains(n.HeadComment, "\n\n") {
		return false // blank lines in or around a comment (the decoder keeps some, not all)
	}
	switch p {
	case atKey:
		return n.LineComment == ""
	case atValue, atItem:
		return n.HeadComment == ""
	}
	return false
}

// childPlace returns the place of n.Content[i], n being at p.
func childPlace(n *yaml.Node, p place, i int) place {
	switch {
	case p == inFlow || n.Style&yaml.FlowStyle != 0:
		return inFlow
	case n.Kind != yaml.MappingNode:
		return atItem
	case i%2 == 1:
		return atValue
	case i == 0 && (p == atRoot || p == atItem):
		return atFirstKey
	}
	return atKey
}

// stableSize reports whether n, at p, and everything in it is stable (see
// stableShallow), and counts its nodes and the entries of their Content.
func stableSize(n *yaml.Node, p place) (nodes, slots int, ok bool) {
	if !stableShallow(n, p) {
		return 0, 0, false
	}
	nodes, slots = 1, len(n.Content)
	for i, x := range n.Content {
		if x == nil {
			continue
		}
		xn, xs, ok := stableSize(x, childPlace(n, p, i))
		if !ok {
			return 0, 0, false
		}
		nodes, slots = nodes+xn, slots+xs
	}
	return nodes, slots, true
}

// stableResource is stableSize for a resource: its mapping as an item of
// the ResourceList, and no comment on its document.
func stableResource(n *yaml.RNode) (nodes, slots int, ok bool) {
	if d := n.Document(); d != n.YNode() && !plainShallow(d) {
		return 0, 0, false
	}
	return stableSize(n.YNode(), atRoot)
}

// headerResource reports whether n is stable but for a head comment on its
// document, its mapping or its first key: a file's header comment. The
// round trip moves such a comment (and kpt's comment copy moves it back),
// but within the resource alone: a ResourceList of its own gives what the
// whole list gives, for it and for its neighbours (TestHeaderRoundTripAlone).
func headerResource(n *yaml.RNode) bool {
	d, m := n.Document(), n.YNode()
	if d != m && (d.LineComment != "" || d.FootComment != "" || strings.Contains(d.HeadComment, "\n\n")) {
		return false // (a blank line within a header: see headerForms)
	}
	if m.Kind != yaml.MappingNode || m.LineComment != "" || m.FootComment != "" || len(m.Content) < 2 ||
		m.Style&yaml.FlowStyle != 0 {
		return false
	}
	if strings.Contains(m.HeadComment, "\n\n") || strings.Contains(m.Content[0].HeadComment, "\n\n") {
		return false
	}
	if k := m.Content[0]; k.Kind != yaml.ScalarNode || k.LineComment != "" || k.FootComment != "" {
		return false
	}
	for i := 1; i < len(m.Content); i++ {
		if _, _, ok := stableSize(m.Content[i], childPlace(m, atRoot, i)); !ok {
			return false
		}
	}
	return true
}

// commented reports whether n or anything in it has a comment.
func commented(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	if n.HeadComment != "" || n.LineComment != "" || n.FootComment != "" {
		return true
	}
	for _, c := range n.Content {
		if commented(c) {
			return true
		}
	}
	return false
}

// mergeKeyCandidates are the fields kyaml's walker may pair the elements
// of an associative list by: every merge key and list-map key of its
// OpenAPI schema, and "name", the key it infers
// (TestMergeKeyCandidatesCoverSchema).
var mergeKeyCandidates = []string{"containerPort", "devicePath", "ip", "key", "mountPath", "name", "port",
	"protocol", "topologyKey", "type", "uid", "whenUnsatisfiable"}

// commentsKept reports whether comments.CopyComments(from, to) would leave
// to as it is: CopyComments fills only comments that are empty in to, from
// the node of from it pairs with to (mapping fields by key, sequence
// elements by index and, for associative lists, by merge key), and it
// restyles folded scalars, which stable output has none of. It is so when
// every pair it can make has, in to, each comment that from has; elements
// are compared by index only where the merge keys, or scalar values, agree
// at every index (so that pairing by key pairs the same elements). A
// comment that reads as a JSON object (a field schema for kyaml's walker)
// makes it answer false. It may answer false where CopyComments would
// change nothing, never true where it would change something.
func commentsKept(from, to *yaml.Node) bool {
	if from == nil || to == nil {
		return true
	}
	if !commentsCover(from, to) {
		return false
	}
	if len(from.Content) == 0 || len(to.Content) == 0 {
		return true
	}
	if from.Kind != to.Kind {
		return !commented(from)
	}
	switch from.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(from.Content); i += 2 {
			k := from.Content[i].Value
			if keyIndex(from, k) != i {
				continue // the walker pairs a key's first value only
			}
			ti := keyIndex(to, k)
			if ti < 0 {
				continue
			}
			if !commentsCover(from.Content[i], to.Content[ti]) || !commentsKept(from.Content[i+1], to.Content[ti+1]) {
				return false
			}
		}
	case yaml.SequenceNode:
		if !commented(from) {
			return true
		}
		m := min(len(from.Content), len(to.Content))
		for i := 0; i < m; i++ {
			if !sameElementKeys(from.Content[i], to.Content[i]) {
				return false
			}
		}
		for i := 0; i < m; i++ {
			if !commentsKept(from.Content[i], to.Content[i]) {
				return false
			}
		}
	}
	return true
}

// sameElementKeys reports whether sequence elements a and b are paired
// alike by index and by key: same kind, and the same value (scalars) or the
// same merge key fields (mappings).
func sameElementKeys(a, b *yaml.Node) bool {
	if a == nil || b == nil || a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		return a.Value == b.Value
	case yaml.MappingNode:
		for _, k := range mergeKeyCandidates {
			ai, bi := keyIndex(a, k), keyIndex(b, k)
			if (ai < 0) != (bi < 0) {
				return false
			}
			if ai >= 0 {
				av, bv := a.Content[ai+1], b.Content[bi+1]
				if av.Kind != bv.Kind || av.Value != bv.Value || av.Kind != yaml.ScalarNode {
					return false
				}
			}
		}
		return true
	}
	return !commented(a) && !commented(b)
}

// commentsCover reports whether to has each comment from has (so that
// copying from's into to's empty ones changes nothing) and neither carries
// a comment kyaml would read as a field schema.
func commentsCover(from, to *yaml.Node) bool {
	if (from.HeadComment != "" && to.HeadComment == "") || (from.LineComment != "" && to.LineComment == "") ||
		(from.FootComment != "" && to.FootComment == "") {
		return false
	}
	return !schemaComment(from) && !schemaComment(to)
}

// schemaComment reports whether a comment of n may be read by kyaml's
// fieldmeta as a schema (a JSON object).
func schemaComment(n *yaml.Node) bool {
	for _, c := range []string{n.LineComment, n.HeadComment} {
		if strings.HasPrefix(strings.TrimSpace(strings.TrimLeft(c, "#")), "{") {
			return true
		}
	}
	return false
}
