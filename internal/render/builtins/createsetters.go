package builtins

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// create-setters (catalog v0.1.0, kyaml v0.10's function framework): the
// ConfigMap config's data are setters, `name: value` (scalar) or `name: "[a,
// b]"` (array). Every field value of every item, the Kptfile and the config
// itself included, that contains a scalar setter's value gets the line
// comment `# kpt-set: ...` with each setter's value replaced by `${name}`;
// every sequence holding exactly an array setter's values, in any order, gets
// `# kpt-set: ${name}` on its key. A flow sequence that matches either way
// becomes a block sequence. One result per comment, none with a severity.
//
// The release reads its setters from a Go map, so where setters overlap
// (one's value holding another's name or value) the comment depends on the
// map's order, which varies from run to run; porchbot takes the order of the
// config's data, one of the orders the release may take.

type createSetter struct {
	name, value string
	values      []string // an array setter's values, sorted
}

type createSetters struct {
	scalars, arrays []createSetter
	file            string
	results         framework.Results
}

func createSettersV010(rl *framework.ResourceList) error {
	err := func() error {
		cs, err := createSettersFrom(rl.FunctionConfig)
		if err != nil {
			return err
		}
		for _, it := range rl.Items {
			meta, err := it.GetMeta()
			if err != nil {
				return err
			}
			cs.file = meta.Annotations[kioutil.LegacyPathAnnotation] //nolint:staticcheck
			cs.walk(it.YNode(), "")
		}
		if len(cs.results) == 0 {
			return fmt.Errorf("no matches for the input list of setters")
		}
		rl.Results = append(rl.Results, cs.results...)
		return nil
	}()
	if err != nil {
		rl.Results = append(rl.Results, result("failed to create setters: "+err.Error(), framework.Error))
		// printed by the release's framework, then by its main with a newline
		return Failure{err.Error() + err.Error() + "\n"}
	}
	return nil
}

func createSettersFrom(fc *yaml.RNode) (*createSetters, error) {
	cs := &createSetters{}
	var data *yaml.Node
	if fc != nil {
		data = nestedMap(fc.YNode(), "data")
	}
	if data == nil || len(data.Content) == 0 {
		return nil, fmt.Errorf("config map cannot be empty")
	}
	for i := 0; i+1 < len(data.Content); i += 2 {
		name, value := data.Content[i].Value, yaml.GetValue(yaml.NewRNode(data.Content[i+1]))
		parsed, err := yaml.Parse(value)
		if err != nil {
			return nil, fmt.Errorf("parsing error")
		}
		switch parsed.YNode().Kind {
		case yaml.SequenceNode:
			values := []string{}
			for _, e := range parsed.YNode().Content {
				values = append(values, e.Value)
			}
			sort.Strings(values)
			cs.arrays = append(cs.arrays, createSetter{name: name, values: values})
		case yaml.ScalarNode:
			cs.scalars = append(cs.scalars, createSetter{name: name, value: value})
		}
	}
	// a setter whose value holds another's name goes after it
	sort.Sort(byNameInValue(cs.scalars))
	return cs, nil
}

// byNameInValue is the release's order of scalar setters (no strict order:
// the outcome depends on the order sorted).
type byNameInValue []createSetter

func (a byNameInValue) Len() int           { return len(a) }
func (a byNameInValue) Less(i, j int) bool { return !strings.Contains(a[i].value, a[j].name) }
func (a byNameInValue) Swap(i, j int)      { a[i], a[j] = a[j], a[i] }

// walk visits n at path: a mapping's sequence fields, then its field values;
// a sequence's elements; a scalar.
func (cs *createSetters) walk(n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.MappingNode:
		cs.sequences(n, path)
		for i := 0; i+1 < len(n.Content); i += 2 {
			_, v := firstField(n, n.Content[i].Value)
			cs.walk(v, path+"."+n.Content[i].Value)
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			cs.walk(e, fmt.Sprintf("%s[%d]", path, i))
		}
	case yaml.ScalarNode:
		cs.scalar(n, path)
	}
}

// firstField is the first field of mapping m named key (kyaml's Field).
func firstField(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func (cs *createSetters) scalar(n *yaml.Node, path string) {
	comment, found := n.Value, false
	for _, s := range cs.scalars {
		if strings.Contains(n.Value, s.value) {
			found = true
			comment = strings.ReplaceAll(comment, s.value, "${"+s.name+"}")
		}
	}
	if found {
		cs.comment(n, "kpt-set: "+comment, path, n.Value)
	}
}

// sequences tags the sequence fields of mapping m that hold an array
// setter's values.
func (cs *createSetters) sequences(m *yaml.Node, path string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, value := firstField(m, m.Content[i].Value)
		if value.Kind != yaml.SequenceNode {
			continue
		}
		var values []string
		for _, e := range value.Content {
			values = append(values, e.Value)
		}
		sort.Strings(values)
		target := key
		if value.Style == yaml.FlowStyle {
			target = value
			if cs.anyScalarIn(values) {
				value.Style = 0 // the release's folded style: a block sequence once written
				target = key
			}
		}
		for _, s := range cs.arrays {
			if !slices.Equal(values, s.values) {
				continue
			}
			if target.Style == yaml.FlowStyle && len(values) > 0 {
				target.Style = 0
				target = key
			}
			cs.comment(target, "kpt-set: ${"+s.name+"}", strings.TrimPrefix(path+"."+key.Value, "."), fmt.Sprint(values))
			break
		}
	}
}

func (cs *createSetters) anyScalarIn(values []string) bool {
	for _, v := range values {
		for _, s := range cs.scalars {
			if strings.Contains(v, s.value) {
				return true
			}
		}
	}
	return false
}

// comment sets n's line comment as kpt reads it back, and reports it.
func (cs *createSetters) comment(n *yaml.Node, comment, path, value string) {
	n.LineComment = "# " + comment
	cs.results = append(cs.results, &framework.Result{
		Message: fmt.Sprintf("Added line comment %q for field with value %q", comment, value),
		Field:   &framework.Field{Path: strings.TrimPrefix(path, ".")},
		File:    &framework.File{Path: cs.file},
	})
}
