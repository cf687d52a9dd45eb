package builtins

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// starlark v0.1.0–v0.1.2 run kyaml v0.10's starlark filter (its
// runtimeutil.FunctionFilter around a Starlark interpreter of March 2020)
// under kyaml's function framework. What they do, as porchbot reproduces it
// (testdata/builtin-versions/starlark/v0.1*):
//
//   - the function config must be a StarlarkRun (fn.kpt.dev/v1alpha1) with
//     metadata.name and source; it is decoded into the release's own type,
//     so the program's ctx.resource_list["functionConfig"] holds only its
//     apiVersion, kind, metadata (name, namespace, labels, annotations) and
//     source;
//   - every item of kind StarlarkRun is dropped (kpt then deletes its file);
//   - a function config in a subdirectory (its config.kubernetes.io/path)
//     hands the program only the resources under that directory, the others
//     coming back after its output unchanged;
//   - the program sees each resource as YAML decodes it into Go values: keys
//     are values too (1, true, null), dicts come in an order Go's maps left
//     to chance (porchbot gives the document's), each item carries the
//     filter's config.k8s.io/id; it sees ResourceList apiVersion
//     config.kubernetes.io/v1alpha1;
//   - its output is written back through Go values: an int outside 32 bits
//     fails, each resource is formatted by kyaml's format filter (known
//     fields first, containers sorted by name), gets comments back from its
//     input by the filter's id (list elements by position, one level), and
//     a new resource without a path goes to <dir>/<namespace>/<kind>_<name>.yaml;
//   - the program speaks the Starlark of March 2020 (starlark_v01_dialect.go).
//
// The three releases differ only in how a failure is printed: v0.1.0 (kyaml
// v0.10.13's framework.Command) prints the message alone, and a function
// config it fails to decode fails before any result; v0.1.1 (v0.10.20)
// prints "[error] /// : <message>", v0.1.2 (v0.10.21) "[error] : <message>".

var starlarkV010 = starlarkEra{kyaml010: true, decodeBeforeResults: true, failure: func(msg string) error { return Failure{msg} }}

var starlarkV011 = starlarkEra{kyaml010: true, failure: func(msg string) error {
	return Failure{v011ItemString(&framework.Result{Message: msg, Severity: framework.Error})}
}}

var starlarkV012 = starlarkEra{kyaml010: true, failure: frameworkFailure}

// resultless is an error the release prints without a result: v0.1.0's
// framework fails to decode the function config before the function runs.
type resultless struct{ error }

// starlarkRunV01 is the StarlarkRun as the v0.1 releases decode it, and as
// they hand it to the program (written anew from these fields, in this order).
type starlarkRunV01 struct {
	APIVersion string `yaml:"apiVersion,omitempty"`
	Kind       string `yaml:"kind,omitempty"`
	Metadata   struct {
		Name        string            `yaml:"name,omitempty"`
		Namespace   string            `yaml:"namespace,omitempty"`
		Labels      map[string]string `yaml:"labels,omitempty"`
		Annotations map[string]string `yaml:"annotations,omitempty"`
	} `yaml:"metadata,omitempty"`
	Source string `yaml:"source"`
}

// v01Config decodes and checks the function config as the v0.1 releases
// do; decodeFails wraps a decoding error (v0.1.0's framework fails on it
// before any result).
func v01Config(fc *yaml.RNode, decodeFails func(error) error) (*starlarkRunV01, error) {
	sr := &starlarkRunV01{}
	if fc != nil && fc.YNode() != nil {
		s, err := fc.String()
		if err != nil {
			return nil, fmt.Errorf("reading the function config: %w", err)
		}
		if err := yaml.Unmarshal([]byte(s), sr); err != nil {
			return nil, decodeFails(err)
		}
	}
	switch {
	case sr.APIVersion != fnConfigAPIVersion:
		return nil, fmt.Errorf("`apiVersion` must be: %v", fnConfigAPIVersion)
	case sr.Kind != starlarkRunKind:
		return nil, fmt.Errorf("`kind` must be: %v", starlarkRunKind)
	case sr.Metadata.Name == "":
		return nil, errors.New("`metadata.name` must be set in starlark function config")
	case sr.Source == "":
		return nil, errors.New("`source` must not be empty")
	}
	return sr, nil
}

// errMissingMetadata is kyaml v0.10's error for a resource with neither
// apiVersion, kind nor metadata.
var errMissingMetadata = errors.New("missing Resource metadata")

// v01Meta reads a resource's kind, name, namespace and annotations as kyaml
// v0.10's GetMeta does, failing where it fails: when it has no apiVersion,
// kind, metadata name, namespace, labels or annotations.
func v01Meta(rn *yaml.RNode) (kind, name, namespace string, annos map[string]string, err error) {
	n := rn.YNode()
	if n == nil || n.Kind != yaml.MappingNode {
		return "", "", "", nil, nil
	}
	found := false
	field := func(m *yaml.Node, key string) string {
		v, ok := mapValue(m, key)
		if !ok || v.Tag == yaml.NodeTagNull || v.Kind != yaml.ScalarNode && len(v.Content) == 0 {
			return ""
		}
		found = true
		return v.Value
	}
	field(n, yaml.APIVersionField)
	kind = field(n, yaml.KindField)
	if meta, ok := mapValue(n, yaml.MetadataField); ok && meta.Kind == yaml.MappingNode && len(meta.Content) > 0 {
		name, namespace = field(meta, yaml.NameField), field(meta, yaml.NamespaceField)
		field(meta, yaml.LabelsField)
		field(meta, yaml.AnnotationsField)
		annos = annotations(rn)
	}
	if !found {
		return "", "", "", nil, errMissingMetadata
	}
	return kind, name, namespace, annos, nil
}

// v01Scope is the directory of the function config's file: the program is
// given the resources under it ("" for all of them).
func v01Scope(sr *starlarkRunV01) string {
	p, ok := sr.Metadata.Annotations[kioutil.LegacyPathAnnotation]
	if !ok {
		return ""
	}
	if dir := v01Dir(p); dir != "." {
		return dir
	}
	return ""
}

// v01Dir is the directory of a resource's file as the filter reads it, a
// "functions" directory standing for its parent.
func v01Dir(p string) string {
	dir := path.Clean(path.Dir(p))
	if path.Base(dir) == "functions" {
		dir = path.Dir(dir)
	}
	return dir
}

// v01Input splits the items into those the program is given and those
// kept aside (without a path, or in a directory whose name does not start
// with dir's, as the filter compares them), having dropped the StarlarkRun
// items.
func v01Input(items []*yaml.RNode, dir string) (input, saved []*yaml.RNode, err error) {
	for _, it := range items {
		kind, _, _, annos, err := v01Meta(it)
		if err != nil {
			return nil, nil, err
		}
		if kind == starlarkRunKind {
			continue
		}
		if p, ok := annos[kioutil.LegacyPathAnnotation]; dir != "" && (!ok || !strings.HasPrefix(v01Dir(p), dir)) {
			saved = append(saved, it)
			continue
		}
		input = append(input, it)
	}
	return input, saved, nil
}

func runStarlarkV01(era starlarkEra, rl *framework.ResourceList, stderr io.Writer) error {
	decodeFails := func(err error) error { return err }
	if era.decodeBeforeResults {
		decodeFails = func(err error) error { return resultless{err} }
	}
	sr, err := v01Config(rl.FunctionConfig, decodeFails)
	if err != nil {
		return err
	}
	dir := v01Scope(sr)
	input, saved, err := v01Input(rl.Items, dir)
	if err != nil {
		return err
	}
	// the filter numbers the resources it hands the program (on its own
	// copies: the items stay as they were should the program fail)
	ids := map[string]*yaml.RNode{}
	for i := range input {
		input[i] = input[i].Copy()
		id := strconv.Itoa(i + 1)
		if err := input[i].PipeE(yaml.SetAnnotation(kioutil.LegacyIdAnnotation, id)); err != nil {
			return fmt.Errorf("setting the filter's id: %w", err)
		}
		ids[id] = input[i]
	}
	fc, err := yamlNode(sr)
	if err != nil {
		return err
	}
	conv := &v01Converter{fromInput: map[*starlark.Dict]map[string]bool{}}
	resourceList, err := conv.resourceList(input, fc)
	if err != nil {
		return err
	}
	if err := runV01Program(sr.Metadata.Name, sr.Source, resourceList, stderr); err != nil {
		return err
	}
	output, err := conv.output(resourceList)
	if err != nil {
		return err
	}
	if err := v01Restore(output, ids, dir); err != nil {
		return err
	}
	rl.Items = append(output, saved...)
	return nil
}

// runV01Program runs the program as the release's Starlark of March 2020
// would: checked in its dialect first (starlark_v01_dialect.go).
func runV01Program(name, source string, resourceList starlark.Value, stderr io.Writer) error {
	if err := checkStarlark2020(name, source); err != nil {
		return err
	}
	thread := &starlark.Thread{
		Name:  name,
		Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(stderr, msg) },
	}
	thread.SetMaxExecutionSteps(starlarkMaxSteps)
	ctx := starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"resource_list": resourceList,
		"open_api":      &lazyOpenAPI{refusal: errOpenAPIV01},
		"environment":   starlark.NewDict(0),
	})
	predeclared := starlark.StringDict{"ctx": ctx}
	for k, v := range builtins2020 {
		predeclared[k] = v
	}
	_, err := starlark.ExecFileOptions(&syntax.FileOptions{}, thread, name, source, predeclared)
	return err
}

// errOpenAPIV01: the releases hand the program kyaml's Kubernetes schema of
// their time, which porchbot does not hold.
var errOpenAPIV01 = errors.New("ctx.open_api: starlark v0.1.x hand the program the Kubernetes OpenAPI schema of " +
	"their kyaml (Kubernetes 1.19 for v0.1.0, 1.20 for v0.1.1–v0.1.2), which porchbot does not hold; porchbot " +
	"refuses a program that reads it: pin starlark v0.4.0 or later")

// v01Restore does what the filter does with the program's output: each
// resource it matches to an input by the filter's id gets that input's
// comments back, the id removed; a resource without a path gets one.
func v01Restore(output []*yaml.RNode, ids map[string]*yaml.RNode, dir string) error {
	for _, out := range output {
		id := annotationValue(out, kioutil.LegacyIdAnnotation)
		if id == nil {
			continue
		}
		in, ok := ids[*id]
		if !ok {
			continue
		}
		if err := copyCommentsV010(in, out); err != nil {
			return fmt.Errorf("copying comments: %w", err)
		}
		if err := out.PipeE(yaml.ClearAnnotation(kioutil.LegacyIdAnnotation)); err != nil {
			return fmt.Errorf("clearing the filter's id: %w", err)
		}
	}
	for _, out := range output {
		kind, name, namespace, annos, err := v01Meta(out)
		if err != nil {
			return err
		}
		if _, ok := annos[kioutil.LegacyPathAnnotation]; ok {
			continue
		}
		p := kioutil.CreatePathAnnotationValue(dir, yaml.ResourceMeta{TypeMeta: yaml.TypeMeta{Kind: kind},
			ObjectMeta: yaml.ObjectMeta{NameMeta: yaml.NameMeta{Name: name, Namespace: namespace}}})
		if err := out.PipeE(yaml.SetAnnotation(kioutil.LegacyPathAnnotation, p)); err != nil {
			return fmt.Errorf("setting the path: %w", err)
		}
	}
	return nil
}

// v01Format formats one output resource as the filter does.
func v01Format(item *yaml.RNode) error {
	_, err := filters.FormatFilter{}.Filter([]*yaml.RNode{item})
	return err
}
