package update

import (
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/merge3"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"
)

// conflictVisitor is kyaml's merge3 visitor (the field-level merge kpt
// runs) that also notices where both sides changed a field from origin to
// different values. kyaml takes the updated value there; with side local,
// the visitor keeps the local value instead.
type conflictVisitor struct {
	side   string
	ignore map[*yaml.Node]bool // fields never reported (kyaml's bookkeeping annotations)
	hits   []hit
}

// hit is one conflict found by the walk; at is the field's node in the
// updated tree, or in origin when upstream removed the field.
type hit struct {
	at              *yaml.Node
	local, upstream string
}

var _ walk.Visitor = (*conflictVisitor)(nil)

func (v *conflictVisitor) VisitMap(s walk.Sources, rs *openapi.ResourceSchema) (*yaml.RNode, error) {
	return merge3.Visitor{}.VisitMap(s, rs)
}

// VisitScalar is merge3.Visitor's rule for a scalar: removed or added
// upstream, upstream's; unchanged locally (or absent) but changed
// upstream, upstream's; changed upstream, upstream's; else local's. Values
// compare as kyaml compares them (value, tag and comments), without
// serialising every scalar as kyaml's visitor does.
func (v *conflictVisitor) VisitScalar(s walk.Sources, _ *openapi.ResourceSchema) (*yaml.RNode, error) {
	dest, origin, updated := s.Dest(), s.Origin(), s.Updated()
	if updated.IsTaggedNull() || dest.IsTaggedNull() {
		return nil, nil
	}
	var r *yaml.RNode
	switch um, om := yaml.IsMissingOrNull(updated), yaml.IsMissingOrNull(origin); {
	case um != om:
		r = updated
	case um && om:
		return dest, nil
	case (yaml.IsMissingOrNull(dest) || sameNode(dest, origin)) && !sameNode(origin, updated):
		r = updated
	case updated.YNode().Value != origin.YNode().Value:
		r = updated
	default:
		return dest, nil
	}
	return v.decide(s, r), nil
}

// VisitList: associative lists as merge3.Visitor (their elements are
// merged one by one); other lists as a whole, by merge3.Visitor's rule:
// upstream's when upstream changed it, else local's.
func (v *conflictVisitor) VisitList(s walk.Sources, rs *openapi.ResourceSchema, kind walk.ListKind) (*yaml.RNode, error) {
	if kind == walk.AssociativeList {
		return merge3.Visitor{}.VisitList(s, rs, kind)
	}
	dest, origin, updated := s.Dest(), s.Origin(), s.Updated()
	if updated.IsTaggedNull() || dest.IsTaggedNull() {
		return walk.ClearNode, nil
	}
	switch um, om := yaml.IsMissingOrNull(updated), yaml.IsMissingOrNull(origin); {
	case um != om:
		return v.decide(s, updated), nil
	case um && om:
		return dest, nil
	case !sameNode(updated, origin):
		return v.decide(s, updated), nil
	}
	return dest, nil
}

// decide looks at what kyaml chose (r) for a scalar or a list merged as a
// whole: when it took the updated value over a local change that differs
// from it, that is a conflict.
func (v *conflictVisitor) decide(s walk.Sources, r *yaml.RNode) *yaml.RNode {
	dest, origin, updated := s.Dest(), s.Origin(), s.Updated()
	if r != updated || (updated == nil && yaml.IsMissingOrNull(origin)) {
		return r
	}
	if sameValue(dest, origin) || sameValue(dest, updated) {
		return r
	}
	at := origin
	if !yaml.IsMissingOrNull(updated) {
		at = updated
	}
	if at == nil || v.ignore[at.YNode()] {
		return r
	}
	v.hits = append(v.hits, hit{at: at.YNode(), local: oneLine(dest), upstream: oneLine(updated)})
	if v.side == SideLocal {
		return dest
	}
	return r
}

// sameNode compares two nodes as kyaml's merge compares them (it
// serialises both, the outer node in flow style): kind, value, tag, the
// comments, and the styles of what they hold.
func sameNode(a, b *yaml.RNode) bool {
	am, bm := yaml.IsMissingOrNull(a), yaml.IsMissingOrNull(b)
	if am || bm {
		return am == bm
	}
	return equalNodes(a.YNode(), b.YNode(), false, true, nil)
}

// equalNodes compares node trees; withStyle compares the node's own style,
// childStyle those of what it holds. skip, when set, leaves out mapping
// entries.
func equalNodes(a, b *yaml.Node, withStyle, childStyle bool, skip func(parent, key *yaml.Node) bool) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Kind != b.Kind || a.Value != b.Value || a.ShortTag() != b.ShortTag() ||
		a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment ||
		(withStyle && a.Style != b.Style) {
		return false
	}
	if a.Kind == yaml.AliasNode {
		return equalNodes(a.Alias, b.Alias, childStyle, childStyle, skip)
	}
	ac, bc := a.Content, b.Content
	if skip != nil && a.Kind == yaml.MappingNode {
		ac, bc = skipEntries(a, skip), skipEntries(b, skip)
	}
	if len(ac) != len(bc) {
		return false
	}
	for i := range ac {
		if !equalNodes(ac[i], bc[i], childStyle, childStyle, skip) {
			return false
		}
	}
	return true
}

func skipEntries(m *yaml.Node, skip func(parent, key *yaml.Node) bool) []*yaml.Node {
	out := make([]*yaml.Node, 0, len(m.Content))
	for i := 0; i+1 < len(m.Content); i += 2 {
		if !skip(m, m.Content[i]) {
			out = append(out, m.Content[i], m.Content[i+1])
		}
	}
	return out
}

// sameValue compares two fields by value (comments and styles aside).
func sameValue(a, b *yaml.RNode) bool {
	am, bm := yaml.IsMissingOrNull(a), yaml.IsMissingOrNull(b)
	if am || bm {
		return am == bm
	}
	if a.YNode().Kind == yaml.ScalarNode && b.YNode().Kind == yaml.ScalarNode {
		return a.YNode().Value == b.YNode().Value
	}
	return oneLine(a) == oneLine(b)
}

// oneLine renders a field's value on one line: a scalar as its value, a
// list or map in flow style, without comments; "" when it is absent.
func oneLine(n *yaml.RNode) string {
	if yaml.IsMissingOrNull(n) {
		return ""
	}
	if n.YNode().Kind == yaml.ScalarNode {
		return n.YNode().Value
	}
	c := yaml.CopyYNode(n.YNode())
	flatten(c)
	s, err := yaml.String(c, yaml.Trim)
	if err != nil {
		return ""
	}
	return s
}

func flatten(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
	for _, c := range n.Content {
		flatten(c)
	}
}

// fieldPaths names every node of a tree by its field path:
// spec.template.spec.containers[name=web].image; list elements without a
// name by index.
func fieldPaths(root *yaml.Node, into map[*yaml.Node]string) {
	var rec func(n *yaml.Node, p string)
	rec = func(n *yaml.Node, p string) {
		if n == nil {
			return
		}
		into[n] = p
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				rec(c, p)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				child := k
				if p != "" {
					child = p + "." + k
				}
				if strings.ContainsAny(k, ".[]") {
					child = p + "[" + k + "]"
				}
				rec(n.Content[i+1], child)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				rec(c, p+"["+elementKey(c, i)+"]")
			}
		}
	}
	rec(root, "")
}

// elementKey names a list element: name=x when it has a name, else its index.
func elementKey(n *yaml.Node, i int) string {
	if n.Kind == yaml.MappingNode {
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == "name" && n.Content[j+1].Kind == yaml.ScalarNode {
				return "name=" + n.Content[j+1].Value
			}
		}
	}
	return strconv.Itoa(i)
}

// resolve turns the visitor's hits into Conflicts, naming each field by its
// path in the updated or origin tree. skip drops fields that are not
// merged (the Kptfile's upstream, for one).
func (v *conflictVisitor) resolve(file, resource string, updated, origin *yaml.RNode, skip func(field string) bool) []Conflict {
	if len(v.hits) == 0 {
		return nil
	}
	paths := map[*yaml.Node]string{}
	for _, t := range []*yaml.RNode{updated, origin} {
		if t != nil {
			fieldPaths(t.YNode(), paths)
		}
	}
	taken := SideUpstream
	if v.side == SideLocal {
		taken = SideLocal
	}
	var out []Conflict
	for _, h := range v.hits {
		field, ok := paths[h.at]
		if !ok || (skip != nil && skip(field)) {
			continue
		}
		out = append(out, Conflict{File: file, Resource: resource, Field: field, Local: h.local, Upstream: h.upstream, Taken: taken})
	}
	v.hits = nil
	return out
}
