package builtins

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The catalog's first releases of set-namespace and set-labels (v0.1.x, and
// set-namespace v0.2.0) and set-image v0.1.x ran kustomize's transformers over
// a kustomize resource map: every item went to JSON and back on its way
// through, whatever the transformer did to it. What comes back has lost its
// scalar styles (a quoted string comes back plain unless it needs quotes, then
// double-quoted; flow collections come back as blocks; a folded block as a
// literal one) and its comments; kpt's function runner then puts the comments
// and the field order of the input back. jsonRoundTrip does the same.

// jsonRoundTrip returns rn as it comes back from a trip through JSON and a
// Go map: encoded into a fresh YAML node with the encoder's own styles.
func jsonRoundTrip(rn *yaml.RNode) (*yaml.RNode, error) {
	b, err := rn.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var m map[string]interface{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return nil, err
	}
	return yaml.Parse(string(out))
}

// roundTripItems replaces every mapping item with its JSON round trip.
func roundTripItems(items []*yaml.RNode) ([]*yaml.RNode, error) {
	out := make([]*yaml.RNode, 0, len(items))
	for _, it := range items {
		if it.YNode().Kind != yaml.MappingNode {
			out = append(out, it)
			continue
		}
		rt, err := jsonRoundTrip(it)
		if err != nil {
			return nil, err
		}
		out = append(out, rt)
	}
	return out, nil
}

// requireNames is the resource map's check in kustomize api v0.7: an item
// without metadata.name fails the function, and the message prints the
// object as a Go map.
func requireNames(items []*yaml.RNode) error {
	for _, it := range items {
		if getString(it, yaml.MetadataField, yaml.NameField) != "" {
			continue
		}
		m, _ := it.Map()
		return fmt.Errorf("missing metadata.name in object {%v}", goMapString(m))
	}
	return nil
}

// goMapString prints v as fmt's %v prints a map[string]interface{} (keys sorted).
func goMapString(v interface{}) string {
	switch t := v.(type) {
	case map[string]interface{}:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, k+":"+goMapString(t[k]))
		}
		return "map[" + strings.Join(parts, " ") + "]"
	case []interface{}:
		parts := make([]string, 0, len(t))
		for _, e := range t {
			parts = append(parts, goMapString(e))
		}
		return "[" + strings.Join(parts, " ") + "]"
	default:
		return fmt.Sprint(t)
	}
}
