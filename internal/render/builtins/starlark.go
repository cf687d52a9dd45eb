package builtins

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
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
	// kyaml010: v0.1.x, kyaml v0.10's starlark filter (starlark_v01.go);
	// decodeBeforeResults: v0.1.0, whose framework fails to decode a
	// function config before any result
	kyaml010, decodeBeforeResults bool
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
func frameworkFailure(msg string) error {
	return Failure{frameworkItemString(&framework.Result{Message: msg, Severity: framework.Error})}
}

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
	run := runStarlarkFunction
	if era.kyaml010 {
		run = runStarlarkV01
	}
	return func(rl *framework.ResourceList) error {
		if err := run(era, rl, stderr); err != nil {
			if !errors.As(err, &resultless{}) {
				rl.Results = append(rl.Results, errorResult(err))
			}
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
