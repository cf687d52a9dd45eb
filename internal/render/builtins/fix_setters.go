package builtins

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/porchbot/porchbot/internal/render/builtins/sdkapi/setters2"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// settersPrefix is the key prefix of a kpt v0.x setter's openAPI definition.
const settersPrefix = "io.k8s.cli.setters."

// settersFile is the file a package's migrated setters go to, next to its
// Kptfile, and the name of the ConfigMap holding them.
func (f fixRelease) settersFile() string {
	if f.v021 {
		return "setters.yaml"
	}
	return "setters-config.yaml"
}

// openAPISetters are the setters of an old Kptfile's openAPI definitions,
// by name: a list setter's value is its values as a flow sequence.
func openAPISetters(kf *yaml.RNode) (map[string]string, error) {
	setters := map[string]string{}
	api := kf.Field("openAPI")
	if api.IsNilOrEmpty() {
		return setters, nil
	}
	defs := api.Value.Field("definitions")
	if defs.IsNilOrEmpty() {
		return setters, nil
	}
	// the openAPI section was read as a schema, so definitions is a mapping
	// of mappings (or nulls)
	for i := 0; i+1 < len(defs.Value.YNode().Content); i += 2 {
		key := defs.Value.YNode().Content[i].Value
		if !strings.HasPrefix(key, settersPrefix) {
			continue
		}
		// looked up by its key, as the release does: the first of a
		// repeated key
		s, err := setterDefinition(defs.Value.Field(key).Value, key)
		if err != nil {
			return nil, err
		}
		if len(s.ListValues) > 0 {
			setters[s.Name] = "[" + strings.Join(s.ListValues, ", ") + "]"
		} else {
			setters[s.Name] = s.Value
		}
	}
	return setters, nil
}

// setterDefinition reads a definition's x-k8s-cli.setter.
func setterDefinition(def *yaml.RNode, key string) (setters2.SetterDefinition, error) {
	var s setters2.SetterDefinition
	var node *yaml.RNode
	if !yaml.IsMissingOrNull(def) {
		ext := def.Field("x-k8s-cli")
		if !ext.IsNilOrEmpty() && ext.Value.YNode().Kind != yaml.MappingNode {
			return s, fixRefusal("the setter %s's x-k8s-cli is no mapping; the release fails with kyaml's message "+
				"for looking a field up in it", key)
		}
		if ext != nil && !yaml.IsMissingOrNull(ext.Value) {
			if f := ext.Value.Field("setter"); f != nil {
				node = f.Value
			}
		}
	}
	if yaml.IsMissingOrNull(node) {
		return s, fmt.Errorf("missing x-k8s-cli.setter for %s", key)
	}
	text, err := node.String()
	if err != nil {
		return s, err
	}
	return s, yaml.Unmarshal([]byte(text), &s)
}

// settersConfigMap is the ConfigMap holding a package's setters, at path.
func (f fixRelease) settersConfigMap(setters map[string]string, path string) (*yaml.RNode, error) {
	cm, err := yaml.Parse(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  annotations:\n    %s: %s\n    %s: \"0\"\n",
		strings.TrimSuffix(f.settersFile(), ".yaml"),
		kioutil.LegacyPathAnnotation, path, kioutil.LegacyIndexAnnotation)) //nolint:staticcheck // the release's kyaml named these
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(setters))
	for name := range setters {
		names = append(names, name)
	}
	sort.Strings(names)
	var data *yaml.Node
	for _, name := range names {
		if err := checkSetterName(name); err != nil {
			return nil, err
		}
		v, err := f.setterValue(setters[name])
		if err != nil {
			return nil, err
		}
		value := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
		if f.v021 && v == "" {
			value.Style = yaml.DoubleQuotedStyle
		}
		if data == nil {
			data = &yaml.Node{Kind: yaml.MappingNode}
			cm.YNode().Content = append(cm.YNode().Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "data"}, data)
		}
		data.Content = append(data.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, value)
	}
	if f.v021 {
		if _, err := (filters.FormatFilter{UseSchema: true}).Filter([]*yaml.RNode{cm}); err != nil {
			return nil, err
		}
	}
	return reparse(yaml.NewRNode(cm.YNode())), nil
}

// checkSetterName refuses a setter name the release's path lookup (kyaml's
// PathGetter, through which it sets data.<name>) reads as something else.
func checkSetterName(name string) error {
	_, isIndex := strconv.Atoi(name)
	switch {
	case strings.TrimSpace(name) != name || name == "":
		return fixRefusal("the setter name %q is trimmed, or dropped, by the release's path lookup before it sets it", name)
	case isIndex == nil || name == "-" || strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]"):
		return fixRefusal("the setter name %q is a list index or selector to the release's path lookup", name)
	}
	return nil
}

// setterValue is a setter's value as the ConfigMap holds it: a sequence is
// written in block style. v0.2.1 reads only a value starting with `[` as
// YAML; v0.2.0 reads every value, and fails on one that is no YAML (an
// empty one among them).
func (f fixRelease) setterValue(v string) (string, error) {
	if f.v021 && !strings.HasPrefix(v, "[") {
		return v, nil
	}
	n, err := yaml.Parse(v)
	if err != nil {
		if f.v021 {
			return v, fmt.Errorf("failed to parse the array node value %q with error %q", v, err.Error())
		}
		return v, err
	}
	if n.YNode().Kind != yaml.SequenceNode {
		return v, nil
	}
	n.YNode().Style = yaml.FoldedStyle
	s, err := n.String()
	if err != nil {
		if f.v021 {
			return s, fmt.Errorf("failed to serialize the array node value %q with error %q", s, err.Error())
		}
		return s, err
	}
	return s, nil
}
