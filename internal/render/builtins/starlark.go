package builtins

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"

	starjson "go.starlark.net/lib/json"
	starmath "go.starlark.net/lib/math"
	startime "go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"

	"github.com/porchbot/porchbot/internal/render/yamlsize"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// starlark (catalog v0.4/v0.5): runs the `source` Starlark program of a
// StarlarkRun (or of a ConfigMap's data.source) with `ctx.resource_list`, a
// dict of the ResourceList (`items` and `functionConfig`, so the program reads
// its `params` from ctx.resource_list["functionConfig"]), `ctx.open_api` (the
// Kubernetes OpenAPI schema) and `ctx.environment`. The program edits the items
// in place (or replaces them); `fail(msg)` makes the function fail with
// "fail: msg" as its error result. Values go through plain YAML data (comments,
// field order and quoting are not seen by the program); kpt restores comments
// and order afterwards. Loadable modules: krmfn.star (match_gvk, match_name,
// match_namespace), json.star, math.star, time.star.
//
// Differences from the catalog image, because porchbot runs package code on a
// server: ctx.environment is always empty (the server's environment is not
// exposed); recursion is not allowed (unbounded recursion would crash the
// process) and a program may run at most starlarkMaxSteps steps; the starlib
// modules other than json/math/time (http, re, yaml, ...) are not available.

const (
	starlarkRunKind        = "StarlarkRun"
	starlarkDefaultProgram = "starlark-function-run"
)

// starlarkFileOptions enables the non-standard features the catalog function
// enables (set, while, top-level control flow, global reassignment), except
// recursion.
var starlarkFileOptions = &syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	GlobalReassign:  true,
}

// starlarkMaxSteps bounds a program's execution (a few seconds of CPU).
const starlarkMaxSteps = 200_000_000

func starlarkRun(rl *framework.ResourceList) error { return starlarkRunTo(io.Discard)(rl) }

// NewStarlark is the starlark built-in with the program's print output
// written to stderr, one line per call (the catalog function's stderr).
func NewStarlark(stderr io.Writer) Function { return wrap(starlarkRunTo(stderr)) }

func starlarkRunTo(stderr io.Writer) processFunc {
	return func(rl *framework.ResourceList) error {
		if err := runStarlarkFunction(rl, stderr); err != nil {
			rl.Results = append(rl.Results, errorResult(err))
			return errFunctionFailure
		}
		return nil
	}
}

func runStarlarkFunction(rl *framework.ResourceList, stderr io.Writer) error {
	fc := rl.FunctionConfig
	var name, source string
	switch {
	case isEmptyConfig(fc):
		return fmt.Errorf("FunctionConfig is missing. Expect `ConfigMap` or `StarlarkRun`")
	case isGVK(fc, "", "v1", "ConfigMap"):
		name = getString(fc, yaml.MetadataField, yaml.NameField)
		source = dataMap(fc)["source"]
	case isGVK(fc, fnConfigGroup, fnConfigVersion, starlarkRunKind):
		name = getString(fc, yaml.MetadataField, yaml.NameField)
		source = getString(fc, "source")
	default:
		return fmt.Errorf("`functionConfig` must be either %v or %v, but we got: %v",
			gvkString("v1", "ConfigMap"), gvkString(fnConfigAPIVersion, starlarkRunKind),
			gvkString(getString(fc, yaml.APIVersionField), getString(fc, yaml.KindField)))
	}
	if name == "" {
		name = starlarkDefaultProgram
	}
	if source == "" {
		return fmt.Errorf("`source` must not be empty")
	}

	resourceList, err := starlarkResourceList(rl.Items, fc)
	if err != nil {
		return err
	}
	thread := &starlark.Thread{
		Name:  name,
		Load:  starlarkLoad,
		Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(stderr, msg) },
	}
	thread.SetMaxExecutionSteps(starlarkMaxSteps)
	ctx := starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"resource_list": resourceList,
		"open_api":      &lazyOpenAPI{},
		"environment":   starlark.NewDict(0),
	})
	if _, err := starlark.ExecFileOptions(starlarkFileOptions, thread, name, source,
		starlark.StringDict{"ctx": ctx}); err != nil {
		return err
	}

	out, err := fromStarlark(resourceList)
	if err != nil {
		return err
	}
	b, err := yaml.Marshal(out)
	if err != nil {
		return err
	}
	rn, err := yaml.Parse(string(b))
	if err != nil {
		return err
	}
	itemsNode, err := rn.Pipe(yaml.Lookup("items"))
	if err != nil {
		return err
	}
	if itemsNode == nil {
		rl.Items = nil
		return nil
	}
	items, err := itemsNode.Elements()
	if err != nil {
		return err
	}
	rl.Items = items
	return nil
}

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
			if p := it.GetAnnotations()[kioutil.PathAnnotation]; p != "" {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			return nil, fmt.Errorf("resource %s %q: %w", it.GetKind(), it.GetName(), err)
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

// starlarkLoad provides the modules a program may load.
func starlarkLoad(_ *starlark.Thread, module string) (starlark.StringDict, error) {
	switch module {
	case "krmfn.star":
		return starlark.StringDict{"krmfn": krmfnModule}, nil
	case "json.star":
		return starlark.StringDict{"json": starjson.Module}, nil
	case "math.star":
		return starlark.StringDict{"math": starmath.Module}, nil
	case "time.star":
		return starlark.StringDict{"time": startime.Module}, nil
	}
	return nil, fmt.Errorf("module %q is not available in porchbot's starlark (available: json.star, krmfn.star, math.star, time.star)", module)
}

var krmfnModule = &starlarkstruct.Module{
	Name: "krmfn",
	Members: starlark.StringDict{
		"match_gvk":       starlark.NewBuiltin("match_gvk", krmfnMatchGVK),
		"match_name":      starlark.NewBuiltin("match_name", krmfnMatchName),
		"match_namespace": starlark.NewBuiltin("match_namespace", krmfnMatchNamespace),
	},
}

func starlarkField(v starlark.Value, path ...string) string {
	for _, p := range path {
		m, ok := v.(starlark.Mapping)
		if !ok {
			return ""
		}
		next, found, err := m.Get(starlark.String(p))
		if err != nil || !found {
			return ""
		}
		v = next
	}
	if s, ok := v.(starlark.String); ok {
		return string(s)
	}
	return ""
}

// krmfnMatchGVK compares the resource's group/version/kind with the empty
// group, the given version and kind (so, as in the catalog, only resources of
// the core group match, with apiVersion given as e.g. "v1").
func krmfnMatchGVK(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var resource starlark.Value
	var apiVersion, kind string
	if err := starlark.UnpackPositionalArgs("match_gvk", args, kwargs, 3, &resource, &apiVersion, &kind); err != nil {
		return nil, err
	}
	g, v, ok := parseGroupVersion(starlarkField(resource, "apiVersion"))
	if !ok {
		g, v = "", ""
	}
	return starlark.Bool(g == "" && v == apiVersion && starlarkField(resource, "kind") == kind), nil
}

func krmfnMatchName(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var resource starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs("match_name", args, kwargs, 2, &resource, &name); err != nil {
		return nil, err
	}
	return starlark.Bool(starlarkField(resource, "metadata", "name") == name), nil
}

func krmfnMatchNamespace(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var resource starlark.Value
	var namespace string
	if err := starlark.UnpackPositionalArgs("match_namespace", args, kwargs, 2, &resource, &namespace); err != nil {
		return nil, err
	}
	return starlark.Bool(starlarkField(resource, "metadata", "namespace") == namespace), nil
}

// lazyOpenAPI is ctx.open_api: the Kubernetes OpenAPI schema as a dict,
// built on first use.
type lazyOpenAPI struct {
	once sync.Once
	val  starlark.Value
	err  error
}

var _ starlark.Mapping = (*lazyOpenAPI)(nil)

func (l *lazyOpenAPI) init() {
	l.once.Do(func() {
		b, err := json.Marshal(openapi.Schema())
		if err != nil {
			l.err = err
			return
		}
		var m map[string]interface{}
		if err := json.Unmarshal(b, &m); err != nil {
			l.err = err
			return
		}
		l.val, l.err = toStarlark(jsonNumbers(m))
	})
	if l.val == nil {
		l.val = starlark.NewDict(0)
	}
}

// jsonNumbers turns float64 values that are whole numbers into ints.
func jsonNumbers(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, e := range x {
			x[k] = jsonNumbers(e)
		}
	case []interface{}:
		for i, e := range x {
			x[i] = jsonNumbers(e)
		}
	case float64:
		if x == float64(int64(x)) {
			return int(x)
		}
	}
	return v
}

func (l *lazyOpenAPI) String() string        { l.init(); return l.val.String() }
func (l *lazyOpenAPI) Type() string          { l.init(); return l.val.Type() }
func (l *lazyOpenAPI) Freeze()               { l.init(); l.val.Freeze() }
func (l *lazyOpenAPI) Truth() starlark.Bool  { l.init(); return l.val.Truth() }
func (l *lazyOpenAPI) Hash() (uint32, error) { l.init(); return l.val.Hash() }
func (l *lazyOpenAPI) Get(k starlark.Value) (starlark.Value, bool, error) {
	l.init()
	if l.err != nil {
		return nil, false, l.err
	}
	if m, ok := l.val.(starlark.Mapping); ok {
		return m.Get(k)
	}
	return nil, false, nil
}
