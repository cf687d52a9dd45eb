package builtins

import (
	"encoding/json"
	"fmt"
	"sync"

	starjson "go.starlark.net/lib/json"
	starmath "go.starlark.net/lib/math"
	startime "go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// starlibLoad is v0.3.0's loader: qri-io/starlib's modules by their names,
// none of which porchbot builds in (a program that loads one fails, saying
// so); any other name loads nothing, as in the release.
func starlibLoad(_ *starlark.Thread, module string) (starlark.StringDict, error) {
	switch module {
	case "bsoup.star", "encoding/base64.star", "encoding/csv.star", "encoding/json.star", "encoding/yaml.star",
		"geo.star", "hash.star", "html.star", "http.star", "math.star", "re.star", "time.star", "xlsx.star", "zipfile.star":
		return nil, fmt.Errorf("module %q of qri-io/starlib (starlark v0.3.0's modules) is not available in porchbot's starlark; "+
			"starlark v0.4.0 and later offer json.star, krmfn.star, math.star and time.star", module)
	}
	return starlark.StringDict{}, nil
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
// built on first use; refusal, if set, is the error reading it fails with
// (a release whose schema porchbot does not hold).
type lazyOpenAPI struct {
	once    sync.Once
	val     starlark.Value
	err     error
	refusal error
}

var _ starlark.Mapping = (*lazyOpenAPI)(nil)

func (l *lazyOpenAPI) init() {
	l.once.Do(func() {
		if l.refusal != nil {
			l.err = l.refusal
			return
		}
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

func (l *lazyOpenAPI) String() string { l.init(); return l.val.String() }

func (l *lazyOpenAPI) Type() string { l.init(); return l.val.Type() }

func (l *lazyOpenAPI) Freeze() { l.init(); l.val.Freeze() }

func (l *lazyOpenAPI) Truth() starlark.Bool { l.init(); return l.val.Truth() }

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
