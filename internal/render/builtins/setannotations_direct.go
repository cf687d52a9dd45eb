package builtins

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The direct path of set-annotations: what kustomize's annotations filter
// does to a resource with the common field specs (annotations.Filter →
// fsslice.Filter → fieldspec.Filter → filtersutil.SetEntry →
// yaml.FieldSetter), done on the node tree without kyaml's filter
// machinery, which allocates a wrapper per field visited, parses every path
// element as a number and every value with a YAML 1.1 decoder, for each
// key and field spec of each resource: a quarter of what a render of
// set-namespace, set-labels and set-annotations allocates. It takes only the
// resources on which every step of kustomize's is a plain lookup or
// creation (directlyAnnotatable); the others go through kustomize's filter.
// TestDirectAnnotationsAsKustomize compares the two on generated resources.

// directSpec is a field spec of commonAnnotationFieldSpecs, split.
type directSpec struct {
	group, version, kind string
	path                 []string
	fieldPath            string // the path as the results name it
}

// directSpecs are commonAnnotationFieldSpecs, split once.
var directSpecs = func() []directSpec {
	out := make([]directSpec, len(commonAnnotationFieldSpecs))
	for i, fs := range commonAnnotationFieldSpecs {
		p := strings.Split(fs.Path, "/")
		out[i] = directSpec{group: fs.Group, version: fs.Version, kind: fs.Kind, path: p, fieldPath: strings.Join(p, ".")}
	}
	return out
}()

// directAnnotator sets annotations on resources as kustomize's filter does.
type directAnnotator struct {
	keys   []string // sorted, as the filter visits them
	values map[string]string
	quote  map[string]bool // value: a YAML 1.1 non-string (FieldSetter double-quotes it)
}

func newDirectAnnotator(annotations map[string]string) *directAnnotator {
	d := &directAnnotator{keys: yaml.SortedMapKeys(annotations), values: annotations, quote: map[string]bool{}}
	for _, v := range annotations {
		if _, ok := d.quote[v]; !ok {
			d.quote[v] = yaml.IsValueNonString(v)
		}
	}
	return d
}

// matches is fieldspec's isMatchGVK.
func (s directSpec) matches(root *yaml.Node) bool {
	kind := nodeText(firstValue(root, yaml.KindField))
	if s.kind != "" && s.kind != kind {
		return false
	}
	group, version := resid.ParseGroupVersion(nodeText(firstValue(root, yaml.APIVersionField)))
	return (s.group == "" || s.group == group) && (s.version == "" || s.version == version)
}

// nodeText is what GetKind and GetApiVersion read of a field's value.
func nodeText(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	return n.Value
}

// firstValue is the value of the first key named name in mapping m, as
// kyaml's single-field lookups find it: any key with that text, whatever its
// tag (mapValue, the SDK's lookup, takes string keys only); nil when there
// is none.
func firstValue(m *yaml.Node, name string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k != nil && k.Value == name {
			return m.Content[i+1]
		}
	}
	return nil
}

// plainMapping reports whether kyaml would walk mapping m as plain YAML:
// a mapping not tagged null, whose content pairs up without a missing key.
func plainMapping(m *yaml.Node) bool {
	if m.Kind != yaml.MappingNode || m.Tag == yaml.NodeTagNull || len(m.Content)%2 != 0 {
		return false
	}
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i] == nil || m.Content[i+1] == nil {
			return false
		}
	}
	return true
}

// directlyAnnotatable reports whether rn is a resource the direct path
// annotates exactly as kustomize's filter: along each matching field spec's
// path every existing field is a plain mapping (no null, scalar, sequence
// or alias, which the filter converts, rejects or follows).
func directlyAnnotatable(rn *yaml.RNode) bool {
	root := rn.YNode()
	if root == nil || !plainMapping(root) || len(rn.FieldPath()) > 0 {
		return false
	}
	for _, s := range directSpecs {
		if !s.matches(root) {
			continue
		}
		at := root
		for _, name := range s.path {
			next := firstValue(at, name)
			if next == nil {
				break // created from here on
			}
			if !plainMapping(next) {
				return false
			}
			at = next
		}
	}
	return true
}

// annotate sets the annotations on rn (directlyAnnotatable), calling track
// for each annotations mapping and key as the filter's mutation tracker is
// called, before the key is set.
func (d *directAnnotator) annotate(rn *yaml.RNode, track func(key, value, fieldPath string, annotations *yaml.Node)) {
	root := rn.YNode()
	for _, k := range d.keys {
		v := d.values[k]
		// SetEntry's node: one per resource and key, shared by the field
		// specs (FieldSetter sets its style from each field it replaces)
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: v, Tag: yaml.NodeTagString}
		for _, s := range directSpecs {
			if !s.matches(root) {
				continue
			}
			at := root
			for _, name := range s.path {
				at = lookupCreateMapping(at, name)
			}
			track(k, v, s.fieldPath, at)
			if n.Style == 0 && d.quote[v] {
				n.Style = yaml.DoubleQuotedStyle
			}
			if old := firstValue(at, k); old != nil {
				n.Style = old.Style
				*old = *n
				continue
			}
			at.Content = append(at.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, n)
		}
	}
}

// lookupCreateMapping is yaml.LookupCreate(yaml.MappingNode, name) on a
// plain mapping: the first field named name, or a new mapping appended.
func lookupCreateMapping(m *yaml.Node, name string) *yaml.Node {
	if v := firstValue(m, name); v != nil {
		return v
	}
	v := &yaml.Node{Kind: yaml.MappingNode}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, v)
	return v
}
