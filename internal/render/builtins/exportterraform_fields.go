package builtins

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// export-terraform reads its resources through the catalog's own copy of
// the functions SDK of January 2022 (thirdparty/kyaml/fnsdk), whose rules
// this file follows: a field is found by walking mappings key by key (the
// first key tagged as a string wins); a string is a scalar tagged !!str, an
// int one tagged !!int that strconv.Atoi reads, a float one tagged !!float
// that strconv.ParseFloat reads, a bool one tagged !!bool that
// strconv.ParseBool reads; a list is decoded as YAML decodes it into a Go
// slice. The SDK names a wrong kind of node by its own Go types, which the
// release prints in its diagnostics.

// errTerraformAlias is the refusal of a resource whose fields the release
// would walk into a YAML alias: its SDK panics there (a crash, or within a
// template text/template's error naming the place in the template).
var errTerraformAlias = errors.New("export-terraform's SDK panics on a YAML alias (*name) in a field it reads, " +
	"which porchbot does not reproduce: write the value out in place of the alias")

// errTerraformDecode is the refusal of a list the release fails to decode
// (bindings, auditLogConfigs, allow): it prints the decoder's error, which
// names lines of the ResourceList kpt handed it, and porchbot does not
// reproduce that text.
var errTerraformDecode = errors.New("export-terraform prints the YAML decoder's error for a list it cannot decode " +
	"(spec.bindings, spec.auditLogConfigs or spec.allow of another shape than the Config Connector one), naming " +
	"lines of the input kpt gave it, which porchbot does not reproduce: fix the list's shape")

// sdkVariants are the SDK's Go types for the kinds of node, as its
// messages name them.
var sdkVariants = map[yaml.Kind]string{
	yaml.MappingNode:  "*fnsdk.mapVariant",
	yaml.SequenceNode: "*fnsdk.sliceVariant",
	yaml.ScalarNode:   "*fnsdk.scalarVariant",
}

// tfFields reads one resource's fields as the release does. A nil node is
// a resource only referenced, which the release has no object for.
type tfFields struct {
	node *yaml.Node
	// refused is set to why porchbot refuses the input, once it is known
	refused *error
}

// walk finds the node at path. found is false when a key is missing; err
// says, in the SDK's words, that a key on the way is not a mapping (found
// is then true: the key exists).
func (f tfFields) walk(path ...string) (n *yaml.Node, found bool, err error) {
	if f.node == nil {
		return nil, false, errors.New("the object doesn't exist")
	}
	cur := f.node
	for i, key := range path {
		var next *yaml.Node
		for j := 0; j+1 < len(cur.Content); j += 2 {
			k := cur.Content[j]
			if k.Kind == yaml.ScalarNode && shortTag(k) == yaml.NodeTagString && k.Value == key {
				next = cur.Content[j+1]
				break
			}
		}
		if next == nil {
			return nil, false, nil
		}
		if next.Kind != yaml.ScalarNode && next.Kind != yaml.MappingNode && next.Kind != yaml.SequenceNode {
			*f.refused = errTerraformAlias
			return nil, false, nil
		}
		if i < len(path)-1 && next.Kind != yaml.MappingNode {
			return nil, true, fmt.Errorf("wrong type, got: %s", sdkVariants[next.Kind])
		}
		cur = next
	}
	return cur, true, nil
}

// scalar is the scalar at path with the tag tag, if there is one.
func (f tfFields) scalar(tag string, path ...string) (string, bool) {
	n, _, err := f.walk(path...)
	if err != nil || n == nil || n.Kind != yaml.ScalarNode || shortTag(n) != tag {
		return "", false
	}
	return n.Value, true
}

// str is the SDK's GetString: "" unless a string is there.
func (f tfFields) str(path ...string) string {
	s, _ := f.scalar(yaml.NodeTagString, path...)
	return s
}

// integer is the release's GetInt: 0 unless an int is there.
func (f tfFields) integer(path ...string) int {
	s, ok := f.scalar(yaml.NodeTagInt, path...)
	if !ok {
		return 0
	}
	i, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return i
}

// float is the release's GetFloat: 0 unless a float is there.
func (f tfFields) float(path ...string) float64 {
	s, ok := f.scalar(yaml.NodeTagFloat, path...)
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return v
}

// boolean is the release's GetBool. From v0.2.0 it takes a bool, and a
// field that is there as anything else (a string "true" included) is
// false; v0.1.0 read the field as a string only.
func (f tfFields) boolean(v tfRelease, path ...string) bool {
	if v == tfV010 {
		b, err := strconv.ParseBool(f.str(path...))
		return err == nil && b
	}
	s, ok := f.scalar(yaml.NodeTagBool, path...)
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(s)
	return err == nil && b
}

// strs is the release's GetStringsFromObject: the list decoded as strings,
// nil when it is not one.
func (f tfFields) strs(path ...string) []string {
	n, _, err := f.walk(path...)
	if err != nil || n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	if err := n.Decode(&out); err != nil {
		return nil
	}
	return out
}

// list decodes the list at path into out (a pointer to a slice) as the
// SDK's Get does. found and the error, in the SDK's words with goType the
// release's Go type of out, are what the release prints when it cannot; a
// decoder error refuses the input (see errTerraformDecode).
func (f tfFields) list(out any, goType string, path ...string) (found bool, err error) {
	n, found, err := f.walk(path...)
	if err == nil && n != nil && n.Kind != yaml.SequenceNode {
		err = fmt.Errorf("incorrect type, was %s", sdkVariants[n.Kind])
	}
	if err != nil {
		return found, fmt.Errorf("unable to get fields [%s] as %s with error: %w", strings.Join(path, " "), goType, err)
	}
	if !found {
		return false, nil
	}
	if derr := n.Decode(out); derr != nil && *f.refused == nil {
		*f.refused = errTerraformDecode
	}
	return true, nil
}

// sdkErrorText is how the release prints an error with %s, nil included.
func sdkErrorText(err error) string {
	if err == nil {
		return "%!s(<nil>)"
	}
	return err.Error()
}
