// Command kube-schemas writes Kubernetes JSON schemas in kubeconform's
// layout ({dir}/master-standalone[-strict]/{kind}-{group}-{version}.json)
// from the Kubernetes OpenAPI document kyaml embeds, for the kinds named on
// the command line (apps/v1/Deployment, v1/ConfigMap, ...).
//
// The schemas are stand-alone (every $ref inlined), optional fields also
// admit null, int-or-string fields admit a string or an integer, and the
// strict variant forbids properties an object's schema does not name: the
// shape of the schemas kubeconform and kubeval read (see
// testdata/kube-schemas/README.md).
//
//	go run ./internal/render/builtins/cmd/kube-schemas -o testdata/kube-schemas apps/v1/Deployment v1/ConfigMap
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

func main() {
	out := flag.String("o", "testdata/kube-schemas", "the schema `DIR` to write")
	flag.Parse()
	if err := run(*out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "kube-schemas:", err)
		os.Exit(1)
	}
}

func run(out string, kinds []string) error {
	if len(kinds) == 0 {
		return errors.New("name the kinds to write, as GROUP/VERSION/KIND or VERSION/KIND")
	}
	b, err := json.Marshal(openapi.Schema().Definitions)
	if err != nil {
		return fmt.Errorf("reading kyaml's OpenAPI definitions: %w", err)
	}
	var defs map[string]any
	if err := json.Unmarshal(b, &defs); err != nil {
		return fmt.Errorf("reading kyaml's OpenAPI definitions: %w", err)
	}
	for _, k := range kinds {
		group, version, kind, err := splitKind(k)
		if err != nil {
			return err
		}
		name, err := definitionOf(defs, group, version, kind)
		if err != nil {
			return err
		}
		for _, strict := range []bool{false, true} {
			g := generator{defs: defs, strict: strict}
			s, err := g.expand(defs[name], 0)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			dir := filepath.Join(out, "master-standalone")
			if strict {
				dir += "-strict"
			}
			if err := write(filepath.Join(dir, FileName(group, version, kind)), s); err != nil {
				return err
			}
		}
	}
	return nil
}

// FileName is kubeconform's file name for a kind: {kind}-{group}-{version}.json,
// the group cut at its first dot and left out for the core group.
func FileName(group, version, kind string) string {
	name := strings.ToLower(kind)
	if group != "" {
		name += "-" + strings.ToLower(strings.Split(group, ".")[0])
	}
	return name + "-" + strings.ToLower(version) + ".json"
}

func splitKind(s string) (group, version, kind string, err error) {
	parts := strings.Split(s, "/")
	switch len(parts) {
	case 2:
		return "", parts[0], parts[1], nil
	case 3:
		return parts[0], parts[1], parts[2], nil
	}
	return "", "", "", fmt.Errorf("%q is not GROUP/VERSION/KIND or VERSION/KIND", s)
}

// definitionOf finds the definition whose x-kubernetes-group-version-kind
// names the kind.
func definitionOf(defs map[string]any, group, version, kind string) (string, error) {
	for name, d := range defs {
		m, _ := d.(map[string]any)
		gvks, _ := m["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gvk, _ := g.(map[string]any)
			if gvk["group"] == group && gvk["version"] == version && gvk["kind"] == kind {
				return name, nil
			}
		}
	}
	return "", fmt.Errorf("the OpenAPI document has no %s/%s %s", group, version, kind)
}

type generator struct {
	defs   map[string]any
	strict bool
}

const maxDepth = 64

// expand returns a copy of schema with its references inlined and the
// kubeconform-style changes made.
func (g generator) expand(schema any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("the definitions nest too deep (a recursive type?)")
	}
	m, ok := schema.(map[string]any)
	if !ok {
		return schema, nil
	}
	if ref, ok := m["$ref"].(string); ok {
		target, ok := g.defs[strings.TrimPrefix(ref, "#/definitions/")]
		if !ok {
			return nil, fmt.Errorf("no definition %s", ref)
		}
		return g.expand(target, depth+1)
	}
	if m["format"] == "int-or-string" {
		return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}, nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch k {
		case "properties":
			props, err := g.properties(v, m["required"], depth)
			if err != nil {
				return nil, err
			}
			out[k] = props
		case "items", "additionalProperties":
			e, err := g.expand(v, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = e
		default:
			out[k] = v
		}
	}
	if _, has := out["properties"]; has && g.strict {
		if _, set := out["additionalProperties"]; !set {
			out["additionalProperties"] = false
		}
	}
	return out, nil
}

// properties expands an object's properties; one not required also admits null.
func (g generator) properties(v, required any, depth int) (map[string]any, error) {
	props, _ := v.(map[string]any)
	req := map[string]bool{}
	if list, ok := required.([]any); ok {
		for _, r := range list {
			if s, ok := r.(string); ok {
				req[s] = true
			}
		}
	}
	out := make(map[string]any, len(props))
	for name, p := range props {
		e, err := g.expand(p, depth+1)
		if err != nil {
			return nil, err
		}
		if em, ok := e.(map[string]any); ok && !req[name] {
			if t, ok := em["type"].(string); ok {
				em["type"] = []any{t, "null"}
			}
		}
		out[name] = e
	}
	return out, nil
}

func write(path string, schema any) error {
	b, err := json.MarshalIndent(schema, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
