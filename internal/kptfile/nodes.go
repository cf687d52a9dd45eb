package kptfile

import (
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Helpers over yaml.Node mappings that keep the document's order and
// comments: a changed scalar is changed in place, a new field is inserted
// where kpt writes it (order lists the mapping's fields in kpt's order).

func strNode(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

func mapNode() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func seqNode() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"} }

// lookup returns the value of key in mapping m (nil if absent).
func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setField sets key to val in mapping m: the existing value is replaced
// (the key keeps its comments), or the pair is inserted before the first
// field that kpt writes after key.
func setField(m *yaml.Node, key string, val *yaml.Node, order []string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			old := m.Content[i+1]
			if val.LineComment == "" {
				val.LineComment = old.LineComment
			}
			m.Content[i+1] = val
			return
		}
	}
	rank := slices.Index(order, key)
	at := len(m.Content)
	if rank >= 0 {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if r := slices.Index(order, m.Content[i].Value); r > rank {
				at = i
				break
			}
		}
	}
	m.Content = slices.Insert(m.Content, at, strNode(key), val)
}

// removeField deletes key from mapping m.
func removeField(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}

// setString sets a string field, or removes it when v is "". An existing
// scalar is changed in place, keeping its comments and its quoting.
func setString(m *yaml.Node, key, v string, order []string) {
	if v == "" {
		removeField(m, key)
		return
	}
	if old := lookup(m, key); old != nil && old.Kind == yaml.ScalarNode {
		old.Value, old.Tag = v, "!!str"
		switch old.Style {
		case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		default:
			old.Style = 0
		}
		return
	}
	setField(m, key, strNode(v), order)
}

// ensure returns the value of key in m, creating it (of kind) when absent or
// null.
func ensure(m *yaml.Node, key string, kind yaml.Kind, order []string) *yaml.Node {
	if v := lookup(m, key); v != nil && v.Kind == kind {
		return v
	}
	n := mapNode()
	if kind == yaml.SequenceNode {
		n = seqNode()
	}
	setField(m, key, n, order)
	return n
}

// removeIfEmpty deletes key from m when its value is an empty mapping or
// sequence.
func removeIfEmpty(m *yaml.Node, key string) {
	if v := lookup(m, key); v != nil && (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && len(v.Content) == 0 {
		removeField(m, key)
	}
}
