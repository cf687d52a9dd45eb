package builtins

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// How fix finds a node's setter schema (fixWalk).

// cliExtensionKey is the OpenAPI extension of kpt v0.x setters.
const cliExtensionKey = "x-k8s-cli"

// schemaOf is the schema of n, in the field named field (a key: "") of
// a node whose schema is parent: n's comment's, else the parent's
// property's (field), items' (a sequence) or the parent's own.
func (w fixWalk) schemaOf(n *yaml.Node, parent *spec.Schema, field string) (*spec.Schema, error) {
	if s, ok, err := w.commentSchema(n); err != nil || ok {
		return s, err
	}
	switch {
	case parent == nil:
		return nil, nil
	case field != "":
		return property(parent, field), nil
	case n.Kind == yaml.SequenceNode:
		return items(parent)
	}
	return parent, nil
}

// property is the schema of s's property name (of its additional
// properties without one). A reference there the release resolves in the
// Kubernetes schema: no setter.
func property(s *spec.Schema, name string) *spec.Schema {
	p, ok := s.Properties[name]
	if !ok {
		if s.AdditionalProperties == nil || s.AdditionalProperties.Schema == nil {
			return nil
		}
		p = *s.AdditionalProperties.Schema
	}
	if p.Ref.String() != "" {
		return nil
	}
	return &p
}

// items is the schema of the items of s, an array.
func items(s *spec.Schema) (*spec.Schema, error) {
	if len(s.Type) != 1 || s.Type[0] != "array" || s.Items == nil {
		return nil, nil
	}
	if s.Items.Schema == nil {
		return nil, fixRefusal("a setter schema gives its array's items as a list of schemas; the release panics reading it")
	}
	p := *s.Items.Schema
	if p.Ref.String() != "" {
		return nil, nil
	}
	return &p, nil
}

// commentSchema is the setter schema n's comment gives, if any (ok).
func (w fixWalk) commentSchema(n *yaml.Node) (*spec.Schema, bool, error) {
	c := n.LineComment
	if c == "" {
		c = n.HeadComment
	}
	if c == "" {
		return nil, false, nil
	}
	c = strings.TrimLeft(c, "#")
	s, ok := w.shorthand(c)
	if !ok {
		if err := s.UnmarshalJSON([]byte(c)); err != nil {
			return nil, false, nil // a comment, not a schema
		}
		if !kustomizeExtensionReads(s) || reflect.DeepEqual(*s, spec.Schema{}) {
			return nil, false, nil
		}
	}
	if s.Ref.String() == "" {
		return s, true, nil
	}
	if w.defs == nil {
		if s.Extensions[cliExtensionKey] != nil || s.Properties != nil || s.AdditionalProperties != nil || s.Items != nil {
			return nil, false, fixRefusal("the comment %q holds a schema beside its $ref in a package without openAPI "+
				"definitions; the release resolves the $ref in its own Kubernetes schema, which porchbot does not hold", n.LineComment+n.HeadComment)
		}
		return nil, true, nil
	}
	if def, err := definition(w.defs, s.Ref); err == nil {
		return def, true, nil
	}
	return s, true, nil
}

// definition resolves ref in the package's schema defs, as the release
// does: a JSON pointer, `#/definitions/<name>` for any setter, whose
// absence the release reports as `object has no key "<name>"`.
func definition(defs *spec.Schema, ref spec.Ref) (*spec.Schema, error) {
	if t := ref.GetPointer().DecodedTokens(); len(t) == 2 && t[0] == "definitions" {
		if d, ok := defs.Definitions[t[1]]; ok {
			return &d, nil
		}
		return nil, fmt.Errorf("object has no key %q", t[1])
	}
	d, err := openapi.Resolve(&ref, defs)
	if err != nil {
		return nil, fixRefusal("the reference %q points elsewhere than a definition, and porchbot does not word "+
			"the release's failure to resolve it (%v)", ref.String(), err)
	}
	return d, nil
}

// shorthand reads `{"$kpt-set":"name"}` naming one of the package's setters
// (else substitutions) as a reference to its definition.
func (w fixWalk) shorthand(c string) (*spec.Schema, bool) {
	s := &spec.Schema{}
	var m map[string]string
	if json.Unmarshal([]byte(c), &m) != nil || m["$kpt-set"] == "" || w.defs == nil {
		return s, false
	}
	for _, prefix := range []string{settersPrefix, "io.k8s.cli.substitutions."} {
		ref, err := spec.NewRef("#/definitions/" + prefix + m["$kpt-set"])
		if err != nil {
			return s, false
		}
		if _, err := definition(w.defs, ref); err == nil {
			s.Ref = ref
			return s, true
		}
	}
	return s, false
}

// kustomizeExtensionReads reports whether a comment schema's x-kustomize
// extension, if any, reads as kyaml's field metadata; the release ignores
// the comment otherwise.
func kustomizeExtensionReads(s *spec.Schema) bool {
	x, ok := s.Extensions["x-kustomize"]
	if !ok || x == nil {
		return true
	}
	b, err := json.Marshal(x)
	if err != nil {
		return false
	}
	var fm struct {
		SetBy          string `json:"setBy,omitempty"`
		PartialSetters []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"partialSetters,omitempty"`
		Setter *struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"setter,omitempty"`
	}
	return json.Unmarshal(b, &fm) == nil
}
