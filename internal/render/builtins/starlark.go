package builtins

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

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
// enables from v0.3.0 on (set, while, top-level control flow, global
// reassignment), except recursion.
var starlarkFileOptions = &syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	GlobalReassign:  true,
}

// starlarkMaxSteps bounds a program's execution (a few seconds of CPU).
const starlarkMaxSteps = 200_000_000

// A starlarkEra is what changes between the catalog's starlark releases
// (testdata/builtin-versions/starlark): the dialect, the modules a program
// may load, how the function config is read and what the function prints
// when it fails.
type starlarkEra struct {
	options *syntax.FileOptions
	// load provides modules; nil: the release has no loader ("load not
	// implemented by this application")
	load   func(*starlark.Thread, string) (starlark.StringDict, error)
	config func(fc *yaml.RNode) (name, source string, err error)
	// failure is the error the release returns (its stderr) after an error
	// result with msg
	failure func(msg string) error
	// newlineOnNextLine: the release's Starlark scanner (of 2020) placed a
	// line's end, the newline token, at the start of the next line, so a
	// syntax error there names line+1, column 1
	newlineOnNextLine bool
	// refusesFlowStyle: the release reads each resource through a YAML
	// encoder of 2021 that fails on flow-style collections where later
	// releases do not; porchbot cannot fail in exactly the same places, so
	// it refuses a resource holding one (errFlowStyle)
	refusesFlowStyle bool
}

// starlarkSDK is v0.4.3 on, built on the kpt functions SDK.
var starlarkSDK = starlarkEra{
	options: starlarkFileOptions,
	load:    starlarkLoad,
	config:  starlarkSDKConfig,
	failure: func(string) error { return errFunctionFailure },
}

// starlarkSDK2022 is v0.4.0-v0.4.2: as v0.4.3, on an SDK that printed
// nothing when the function failed.
var starlarkSDK2022 = starlarkEra{
	options: starlarkFileOptions,
	load:    starlarkLoad,
	config:  starlarkSDKConfig,
	failure: func(string) error { return ErrResultsOnly },
}

// starlarkV03 is v0.3.0: kyaml's framework, and qri-io/starlib's modules to
// load (none of which porchbot builds in).
var starlarkV03 = starlarkEra{
	options: starlarkFileOptions,
	load:    starlibLoad,
	config:  starlarkFrameworkConfig,
	failure: frameworkFailure,
}

// starlarkV02 is v0.2.2: as v0.3.0 in the standard Starlark dialect (no
// set, no top-level if/for/while, no global reassignment, no while),
// without load, and with its Starlark scanner's place for a line's end.
var starlarkV02 = starlarkEra{
	options:           &syntax.FileOptions{},
	config:            starlarkFrameworkConfig,
	failure:           frameworkFailure,
	newlineOnNextLine: true,
}

// starlarkV021 is v0.2.0–v0.2.1, which differ from v0.2.2 only in how a
// resource becomes a Starlark value: written as YAML and read back, not
// decoded directly. The values are the same (kpt's own v1.0.0-beta.56
// suite, testdata/kpt-fn-render, pins v0.2.1 and shows it), but for the
// flow-style collections that round trip fails on, which porchbot refuses.
var starlarkV021 = func() starlarkEra {
	e := starlarkV02
	e.refusesFlowStyle = true
	return e
}()

// errFlowStyle is starlark v0.2.0–v0.2.1's refusal of a flow-style
// collection.
var errFlowStyle = errors.New("starlark v0.2.0–v0.2.1 read each resource through a YAML encoder of 2021 that fails on " +
	"flow-style collections ([a, b], {a: b}) where later releases do not (`yaml: invalid map key`); porchbot cannot fail " +
	"in exactly the same places, so it refuses them: write the collection in block style, or pin starlark v0.2.2")

// hasFlowStyle reports a flow-style mapping or sequence in n.
func hasFlowStyle(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	if (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle != 0 {
		return true
	}
	for _, c := range n.Content {
		if hasFlowStyle(c) {
			return true
		}
	}
	return false
}

// frameworkFailure is what kyaml's function framework of 2021 printed when a
// function failed: its result.
func frameworkFailure(msg string) error { return Failure{"[error] : " + msg} }

// NewStarlark is the starlark built-in, at release version, with the
// program's print output written to stderr, one line per call (the catalog
// function's stderr). ok is false for a version porchbot does not run.
func NewStarlark(version string, stderr io.Writer) (f Function, ok bool) {
	for _, r := range starlarkReleases() {
		if r.version == version && r.era != nil {
			return wrap(starlarkRunTo(*r.era, stderr)), true
		}
	}
	return nil, false
}

func starlarkRunTo(era starlarkEra, stderr io.Writer) processFunc {
	return func(rl *framework.ResourceList) error {
		if err := runStarlarkFunction(era, rl, stderr); err != nil {
			rl.Results = append(rl.Results, errorResult(err))
			return era.failure(err.Error())
		}
		return nil
	}
}

// starlarkSDKConfig reads the function config as v0.4.0 on do.
func starlarkSDKConfig(fc *yaml.RNode) (name, source string, err error) {
	switch {
	case isEmptyConfig(fc):
		return "", "", fmt.Errorf("FunctionConfig is missing. Expect `ConfigMap` or `StarlarkRun`")
	case isGVK(fc, "", "v1", "ConfigMap"):
		name = getString(fc, yaml.MetadataField, yaml.NameField)
		source = dataMap(fc)["source"]
	case isGVK(fc, fnConfigGroup, fnConfigVersion, starlarkRunKind):
		name = getString(fc, yaml.MetadataField, yaml.NameField)
		source = getString(fc, "source")
	default:
		return "", "", starlarkKindError(fc)
	}
	if name == "" {
		name = starlarkDefaultProgram
	}
	if source == "" {
		return "", "", fmt.Errorf("`source` must not be empty")
	}
	return name, source, nil
}

// starlarkFrameworkConfig reads the function config as v0.2–v0.3 do: a
// ConfigMap needs a data.source key (empty is a program that does
// nothing), a StarlarkRun a non-empty source; the default program name is
// the releases' own (sic).
func starlarkFrameworkConfig(fc *yaml.RNode) (name, source string, err error) {
	var ok bool
	switch {
	case isEmptyConfig(fc):
		return "", "", fmt.Errorf("unknown `functionConfig` kind: ")
	case isGVK(fc, "", "v1", "ConfigMap"):
		if source, ok = dataMap(fc)["source"]; !ok {
			return "", "", fmt.Errorf("`data.source` must not be empty in `ConfigMap`")
		}
	case isGVK(fc, fnConfigGroup, fnConfigVersion, starlarkRunKind):
		if source = getString(fc, "source"); source == "" {
			return "", "", fmt.Errorf("`source` in `StarlarkRun` must not be empty")
		}
	default:
		return "", "", starlarkKindError(fc)
	}
	if name = getString(fc, yaml.MetadataField, yaml.NameField); name == "" {
		name = "stalark-function-run"
	}
	return name, source, nil
}

func starlarkKindError(fc *yaml.RNode) error {
	return fmt.Errorf("`functionConfig` must be either %v or %v, but we got: %v",
		gvkString("v1", "ConfigMap"), gvkString(fnConfigAPIVersion, starlarkRunKind),
		gvkString(getString(fc, yaml.APIVersionField), getString(fc, yaml.KindField)))
}

func runStarlarkFunction(era starlarkEra, rl *framework.ResourceList, stderr io.Writer) error {
	fc := rl.FunctionConfig
	name, source, err := era.config(fc)
	if err != nil {
		return err
	}
	if era.refusesFlowStyle {
		for _, it := range rl.Items {
			if hasFlowStyle(it.YNode()) {
				return errFlowStyle
			}
		}
	}
	resourceList, err := starlarkResourceList(rl.Items, fc)
	if err != nil {
		return err
	}
	thread := &starlark.Thread{
		Name:  name,
		Load:  era.load,
		Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(stderr, msg) },
	}
	thread.SetMaxExecutionSteps(starlarkMaxSteps)
	ctx := starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"resource_list": resourceList,
		"open_api":      &lazyOpenAPI{},
		"environment":   starlark.NewDict(0),
	})
	if _, err := starlark.ExecFileOptions(era.options, thread, name, source,
		starlark.StringDict{"ctx": ctx}); err != nil {
		if era.newlineOnNextLine {
			return newlineOnNextLine(err, source)
		}
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

// newlineOnNextLine places a syntax error found at a line's end (the
// newline token, just past the line's last column) at the start of the
// next line, as the Starlark scanner of 2020 did.
func newlineOnNextLine(err error, source string) error {
	var se syntax.Error
	if !errors.As(err, &se) || !strings.HasPrefix(se.Msg, "got newline") {
		return err
	}
	lines := strings.Split(source, "\n")
	if l := int(se.Pos.Line); l >= 1 && l <= len(lines) && int(se.Pos.Col) == utf8.RuneCountInString(lines[l-1])+1 {
		file := se.Pos.Filename()
		se.Pos = syntax.MakePosition(&file, se.Pos.Line+1, 1)
		return se
	}
	return err
}
