package builtins

import (
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// fixWalk rewrites one resource's kpt v0.x setter comments as kpt 1.0's
// `# kpt-set:` comments, as the release walks it:
//
//   - a sequence's key commented `# {"$kpt-set":"name"}` (v0.2.1 also
//     `# {"$ref":"#/definitions/io.k8s.cli.<rest>"}`, which becomes
//     `${<rest>}`, `setters.` and all) gets `# kpt-set: ${name}`, openAPI
//     or not; v0.2.0 rewrites any such comment containing `$kpt-set`;
//   - a scalar whose setter schema (from its own comment, else from its
//     key's, else from the enclosing schema's properties or items) is a
//     setter of the package's openAPI definitions gets
//     `# kpt-set: ${name}`, and one whose schema is a substitution gets its
//     pattern with each marker replaced by `${setter}` (an enum setter's
//     mapped value as it is, a nested substitution's pattern in turn).
//
// A comment is read as a setter schema when its text after the leading #s
// is `{"$kpt-set":"name"}` naming a setter or substitution of the package,
// or any JSON object read as an OpenAPI schema (`{"$ref": "..."}` resolved
// in the package's definitions). Only a node's line comment, or without
// one its head comment, counts.
type fixWalk struct {
	v021 bool
	// defs is the package's openAPI schema (nil: none). The release
	// resolves a reference in kyaml's Kubernetes schema instead; that never
	// holds a setter, so a nil schema stands for the Kubernetes ones too.
	defs *spec.Schema
}

func (w fixWalk) resource(it *yaml.RNode) error {
	s, _, err := w.commentSchema(it.YNode())
	if err != nil {
		return err
	}
	return w.node(it.YNode(), s)
}

// node walks n, whose schema is s.
func (w fixWalk) node(n *yaml.Node, s *spec.Schema) error {
	switch n.Kind {
	case yaml.MappingNode:
		w.sequenceKeys(n)
		for i := 0; i+1 < len(n.Content); i += 2 {
			// by key, as the release visits the fields: the first of a
			// repeated key
			key, value := firstKey(n, n.Content[i].Value)
			ks, err := w.schemaOf(key, s, key.Value)
			if err != nil {
				return err
			}
			if err := w.node(value, ks); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		es, err := w.schemaOf(n, s, "")
		if err != nil {
			return err
		}
		for _, e := range n.Content {
			if err := w.node(e, es); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		ss, err := w.schemaOf(n, s, "")
		if err != nil {
			return err
		}
		return w.scalar(n, ss)
	}
	return nil
}

func firstKey(m *yaml.Node, name string) (key, value *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// sequenceKeys rewrites the old setter comments on the keys of m's
// non-empty sequences.
func (w fixWalk) sequenceKeys(m *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, value := firstKey(m, m.Content[i].Value)
		if value.Kind != yaml.SequenceNode || len(value.Content) == 0 {
			continue
		}
		c := key.LineComment
		if !w.v021 {
			if strings.Contains(c, "$kpt-set") {
				key.LineComment = "kpt-set: ${" + strings.TrimSuffix(strings.TrimPrefix(c, `# {"$kpt-set":"`), `"}`) + "}"
			}
			continue
		}
		for _, prefix := range []string{`# {"$kpt-set":"`, `# {"$ref":"#/definitions/io.k8s.cli.`} {
			if strings.Contains(c, prefix) {
				key.LineComment = "kpt-set: ${" + strings.TrimSuffix(strings.TrimPrefix(c, prefix), `"}`) + "}"
			}
		}
	}
}

// scalar rewrites a scalar's comment by its setter schema s.
func (w fixWalk) scalar(n *yaml.Node, s *spec.Schema) error {
	ext, err := cliExtension(s)
	if err != nil || ext == nil {
		return err
	}
	switch {
	case ext.Setter != nil:
		n.LineComment = "kpt-set: ${" + ext.Setter.Name + "}"
	case ext.Substitution != nil:
		p, err := w.pattern(ext, map[string]bool{})
		if err != nil {
			return err
		}
		n.LineComment = "kpt-set: " + p
	}
	return nil
}
