package builtins

import (
	"fmt"
	"sort"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/porchbot/porchbot/internal/render/yamlsize"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// StarlarkAliasBounds bound what the YAML aliases of one resource may
// expand to when it becomes Starlark values. The render engine refuses
// packages with aliases beyond its own (configurable, smaller) bounds when
// it reads them; these catch what reaches the function any other way.
var StarlarkAliasBounds = yamlsize.Bounds{Aliases: 100_000, Bytes: 64 << 20}

// starlarkResourceList builds the ResourceList dict the program sees.
func starlarkResourceList(items []*yaml.RNode, fc *yaml.RNode) (starlark.Value, error) {
	list := make([]starlark.Value, 0, len(items))
	for _, it := range items {
		v, err := boundedToStarlark(it.YNode())
		if err != nil {
			return nil, itemError(it, err)
		}
		list = append(list, v)
	}
	d := starlark.NewDict(4)
	_ = d.SetKey(starlark.String("apiVersion"), starlark.String(kio.ResourceListAPIVersion))
	_ = d.SetKey(starlark.String("items"), starlark.NewList(list))
	_ = d.SetKey(starlark.String("kind"), starlark.String(kio.ResourceListKind))
	if fc != nil && fc.YNode() != nil {
		v, err := boundedToStarlark(fc.YNode())
		if err != nil {
			return nil, fmt.Errorf("functionConfig: %w", err)
		}
		_ = d.SetKey(starlark.String("functionConfig"), v)
	}
	return d, nil
}

// itemError names the resource err is about: its file, or its kind and name.
func itemError(it *yaml.RNode, err error) error {
	if p := it.GetAnnotations()[kioutil.PathAnnotation]; p != "" {
		return fmt.Errorf("%s: %w", p, err)
	}
	return fmt.Errorf("resource %s %q: %w", it.GetKind(), it.GetName(), err)
}

// boundedToStarlark is nodeToStarlark for a node whose aliases expand
// within StarlarkAliasBounds (and never contain themselves, which would
// make the conversion recurse forever).
func boundedToStarlark(n *yaml.Node) (starlark.Value, error) {
	if _, err := yamlsize.Expand(n, StarlarkAliasBounds); err != nil {
		return nil, err
	}
	return nodeToStarlark(n)
}

// nodeToStarlark converts YAML to Starlark values: scalars as YAML decodes
// them into Go values, mappings as dicts (in document order), sequences as lists.
func nodeToStarlark(n *yaml.Node) (starlark.Value, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return starlark.None, nil
		}
		return nodeToStarlark(n.Content[0])
	case yaml.AliasNode:
		return nodeToStarlark(n.Alias)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "<<" && n.Content[i].Kind == yaml.ScalarNode && n.Content[i].Style == 0 {
				// merge keys: let YAML resolve them
				var m map[string]interface{}
				if err := n.Decode(&m); err != nil {
					return nil, err
				}
				return toStarlark(m)
			}
		}
		d := starlark.NewDict(len(n.Content) / 2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := nodeToStarlark(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(starlark.String(n.Content[i].Value), v); err != nil {
				return nil, err
			}
		}
		return d, nil
	case yaml.SequenceNode:
		l := make([]starlark.Value, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := nodeToStarlark(e)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return starlark.NewList(l), nil
	case yaml.ScalarNode:
		var v interface{}
		if err := n.Decode(&v); err != nil {
			return nil, err
		}
		return toStarlark(v)
	}
	return starlark.None, nil
}

// toStarlark converts decoded YAML/JSON data to Starlark values.
func toStarlark(v interface{}) (starlark.Value, error) {
	switch x := v.(type) {
	case nil:
		return starlark.None, nil
	case bool:
		return starlark.Bool(x), nil
	case string:
		return starlark.String(x), nil
	case int:
		return starlark.MakeInt(x), nil
	case int64:
		return starlark.MakeInt64(x), nil
	case uint64:
		return starlark.MakeUint64(x), nil
	case float64:
		return starlark.Float(x), nil
	case []interface{}:
		l := make([]starlark.Value, 0, len(x))
		for _, e := range x {
			sv, err := toStarlark(e)
			if err != nil {
				return nil, err
			}
			l = append(l, sv)
		}
		return starlark.NewList(l), nil
	case map[string]interface{}:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := starlark.NewDict(len(x))
		for _, k := range keys {
			sv, err := toStarlark(x[k])
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(starlark.String(k), sv); err != nil {
				return nil, err
			}
		}
		return d, nil
	case map[interface{}]interface{}:
		d := starlark.NewDict(len(x))
		for k, e := range x {
			sk, err := toStarlark(k)
			if err != nil {
				return nil, err
			}
			sv, err := toStarlark(e)
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(sk, sv); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
}

// fromStarlark converts Starlark values back to Go data for YAML.
func fromStarlark(v starlark.Value) (interface{}, error) {
	switch x := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(x), nil
	case starlark.String:
		return string(x), nil
	case starlark.Bytes:
		return string(x), nil
	case starlark.Int:
		if i, ok := x.Int64(); ok {
			return int(i), nil
		}
		return nil, fmt.Errorf("integer %v out of range", x)
	case starlark.Float:
		return float64(x), nil
	case *starlark.List:
		out := make([]interface{}, 0, x.Len())
		for i := 0; i < x.Len(); i++ {
			e, err := fromStarlark(x.Index(i))
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	case starlark.Tuple:
		out := make([]interface{}, 0, len(x))
		for _, e := range x {
			g, err := fromStarlark(e)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	case *starlark.Set:
		out := make([]interface{}, 0, x.Len())
		iter := x.Iterate()
		defer iter.Done()
		var e starlark.Value
		for iter.Next(&e) {
			g, err := fromStarlark(e)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	case *starlark.Dict:
		strKeys := true
		for _, k := range x.Keys() {
			if _, ok := k.(starlark.String); !ok {
				strKeys = false
			}
		}
		if strKeys {
			out := make(map[string]interface{}, x.Len())
			for _, item := range x.Items() {
				g, err := fromStarlark(item[1])
				if err != nil {
					return nil, err
				}
				out[string(item[0].(starlark.String))] = g
			}
			return out, nil
		}
		out := make(map[interface{}]interface{}, x.Len())
		for _, item := range x.Items() {
			k, err := fromStarlark(item[0])
			if err != nil {
				return nil, err
			}
			g, err := fromStarlark(item[1])
			if err != nil {
				return nil, err
			}
			out[k] = g
		}
		return out, nil
	case *starlarkstruct.Struct:
		out := map[string]interface{}{}
		for _, name := range x.AttrNames() {
			a, err := x.Attr(name)
			if err != nil {
				return nil, err
			}
			g, err := fromStarlark(a)
			if err != nil {
				return nil, err
			}
			out[name] = g
		}
		return out, nil
	}
	return nil, fmt.Errorf("unrecognized starlark type: %s", v.Type())
}
