package builtins

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// crdSchemas collects the openAPIV3Schema of every version of the
// CustomResourceDefinitions among items (apiextensions.k8s.io v1, whose
// versions carry the schema, and v1beta1, whose spec.validation may), by
// "apiVersion/Kind" of the resources they define.
func crdSchemas(items []*yaml.RNode) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	for _, it := range items {
		if getString(it, yaml.KindField) != "CustomResourceDefinition" {
			continue
		}
		av := getString(it, yaml.APIVersionField)
		if av != "apiextensions.k8s.io/v1" && av != "apiextensions.k8s.io/v1beta1" {
			continue
		}
		group := getString(it, "spec", "group")
		kind := getString(it, "spec", "names", "kind")
		if group == "" || kind == "" {
			continue
		}
		var common map[string]any
		if s, err := it.Pipe(yaml.Lookup("spec", "validation", "openAPIV3Schema")); err == nil && s != nil {
			if common, err = schemaValue(s); err != nil {
				return nil, fmt.Errorf("CustomResourceDefinition %s: %w", getString(it, "metadata", "name"), err)
			}
		}
		versions, _ := it.Pipe(yaml.Lookup("spec", "versions"))
		for _, v := range elements(versions) {
			name := getString(v, "name")
			if name == "" {
				continue
			}
			schema := common
			if s, err := v.Pipe(yaml.Lookup("schema", "openAPIV3Schema")); err == nil && s != nil {
				if schema, err = schemaValue(s); err != nil {
					return nil, fmt.Errorf("CustomResourceDefinition %s: %w", getString(it, "metadata", "name"), err)
				}
			}
			if schema != nil {
				out[group+"/"+name+"/"+kind] = schema
			}
		}
		if version := getString(it, "spec", "version"); version != "" && common != nil {
			out[group+"/"+version+"/"+kind] = common
		}
	}
	return out, nil
}

func elements(seq *yaml.RNode) []*yaml.RNode {
	if seq == nil || seq.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	els, _ := seq.Elements()
	return els
}

// schemaValue turns an openAPIV3Schema node into a JSON schema value.
func schemaValue(n *yaml.RNode) (map[string]any, error) {
	b, err := n.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("reading its openAPIV3Schema: %w", err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("reading its openAPIV3Schema: %w", err)
	}
	return v, nil
}

// crdJSONSchema makes a CRD's structural schema a JSON schema: a field
// marked nullable also admits null, an int-or-string field any type the
// schema allows, and strict forbids the properties an object's schema does
// not name (unless it keeps unknown fields or names additionalProperties).
// The resource's apiVersion, kind and metadata are always allowed.
func crdJSONSchema(schema map[string]any, strict bool) map[string]any {
	out := adaptCRDSchema(schema, strict)
	if strict {
		props, _ := out["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			out["properties"] = props
		}
		for _, f := range []string{"apiVersion", "kind"} {
			if _, ok := props[f]; !ok {
				props[f] = map[string]any{"type": "string"}
			}
		}
		if _, ok := props["metadata"]; !ok {
			props["metadata"] = map[string]any{"type": "object"}
		}
		if _, set := out["additionalProperties"]; !set && out["x-kubernetes-preserve-unknown-fields"] != true {
			out["additionalProperties"] = false
		}
	}
	return out
}

func adaptCRDSchema(v any, strict bool) map[string]any {
	m, _ := v.(map[string]any)
	out := make(map[string]any, len(m)+1)
	for k, val := range m {
		switch k {
		case "properties":
			props, _ := val.(map[string]any)
			np := make(map[string]any, len(props))
			for name, p := range props {
				np[name] = adaptCRDSchema(p, strict)
			}
			out[k] = np
		case "items", "additionalProperties", "not":
			if sub, ok := val.(map[string]any); ok {
				out[k] = adaptCRDSchema(sub, strict)
			} else {
				out[k] = val
			}
		case "allOf", "anyOf", "oneOf":
			list, _ := val.([]any)
			nl := make([]any, 0, len(list))
			for _, s := range list {
				nl = append(nl, adaptCRDSchema(s, strict))
			}
			out[k] = nl
		default:
			out[k] = val
		}
	}
	if out["nullable"] == true {
		if t, ok := out["type"].(string); ok {
			out["type"] = []any{t, "null"}
		}
	}
	if out["x-kubernetes-int-or-string"] == true {
		delete(out, "type")
	}
	if strict && out["properties"] != nil && out["x-kubernetes-preserve-unknown-fields"] != true {
		if _, set := out["additionalProperties"]; !set {
			out["additionalProperties"] = false
		}
	}
	return out
}
