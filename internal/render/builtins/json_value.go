package builtins

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// jsonValue is a resource's YAML node as the JSON the kyaml of the
// catalog functions made of it (RNode.MarshalJSON), without writing YAML
// and parsing JSON: maps, slices, strings, bools, nil and json.Number for
// numbers (what jsonschema and OPA take), a timestamp in RFC 3339 as
// encoding/json writes a time, any other scalar its text; aliases are
// followed and merge keys merged.
func jsonValue(n *yaml.Node) any {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return jsonValue(n.Content[0])
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		var merged []any
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.ShortTag() == yaml.MergeTag {
				merged = append(merged, jsonValue(n.Content[i+1]))
				continue
			}
			m[n.Content[i].Value] = jsonValue(n.Content[i+1])
		}
		for _, v := range merged { // a merge key adds what the mapping does not set
			srcs, ok := v.([]any)
			if !ok {
				srcs = []any{v}
			}
			for _, src := range srcs {
				for k, x := range mapOf(src) {
					if _, set := m[k]; !set {
						m[k] = x
					}
				}
			}
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			l = append(l, jsonValue(c))
		}
		return l
	}
	switch n.ShortTag() {
	case yaml.NodeTagNull:
		return nil
	case yaml.NodeTagBool:
		return strings.EqualFold(n.Value, "true")
	case yaml.NodeTagInt:
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10))
		}
	case yaml.NodeTagFloat:
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case "!!timestamp":
		for _, layout := range timestampLayouts {
			if t, err := time.Parse(layout, n.Value); err == nil {
				return t.Format(time.RFC3339Nano) // as encoding/json writes a time.Time
			}
		}
	}
	return n.Value
}

// timestampLayouts are the forms of a YAML timestamp the YAML decoder
// reads as a time.
var timestampLayouts = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}
