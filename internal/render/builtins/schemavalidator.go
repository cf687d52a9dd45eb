package builtins

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The catalog's schema validators, kubeval and kubeconform, validate each
// resource against the JSON schema of its kind (schemas.go says where
// porchbot reads them from) and report each violation as an error result
// naming the resource, the field and the file.
//
// The two differ in what they report:
//
//   - kubeval (TypeScript around kubeval v0.16.1 and its gojsonschema; see
//     kubevalRelease for what differs between its releases): every
//     violation in gojsonschema's wording and with its notion of the field
//     (gojsonschema.go), `selector is required` at field `selector`,
//     `Invalid type. Expected: [integer,null], given: string` at
//     `spec.replicas`; a resource without a schema is an error unless
//     ignore_missing_schemas or skip_kinds covers it. Its SDK hands it the
//     resources sorted by apiVersion/kind/namespace/name, one per key.
//   - kubeconform (Go, kubeconform with santhosh-tekuri/jsonschema v6
//     underneath): the violations at the resource's top level, where the
//     validator nests the others under `validation failed` (a single
//     failing field is reported as its own violations):
//     `missing properties 'selector', 'template'` at `spec`,
//     `got string, want null or integer` at `spec.replicas`; a resource
//     without a schema is not reported at all; it fails with the SDK's
//     "function failure".
//
// Violations of one object come in a fixed order: those of the object
// itself, then its fields' by name (the validators visit fields in map
// order, so theirs may vary from run to run).
type schemaValidator struct {
	kubeval *kubevalRelease // kubeval's behaviour, else (nil) kubeconform's
	src     SchemaSources
	stderr  io.Writer // what the release prints on stderr as it passes
}

// validatorFunction is a schema validator as a built-in: it runs as kpt
// runs a function (kptFunction) and hears where schemas are.
type validatorFunction struct {
	*kptFunction
	v *schemaValidator
}

// UseSchemas implements SchemaUser.
func (f *validatorFunction) UseSchemas(s SchemaSources) { f.v.src = s }

// UseStderr implements StderrUser.
func (f *validatorFunction) UseStderr(w io.Writer) { f.v.stderr = w }

// validatorReleases are releases of kubeval (kv, the behaviour of those
// releases) or, with kv nil, of kubeconform.
func validatorReleases(kv *kubevalRelease, versions ...string) []release {
	out := make([]release, 0, len(versions))
	for _, version := range versions {
		out = append(out, release{version: version, new: func() Function {
			v := &schemaValidator{kubeval: kv, stderr: io.Discard}
			return &validatorFunction{kptFunction: &kptFunction{fn: v.process}, v: v}
		}})
	}
	return out
}

func (v *schemaValidator) failure() error {
	if v.kubeval != nil {
		return ErrResultsOnly
	}
	return errFunctionFailure
}

func (v *schemaValidator) process(rl *framework.ResourceList) error {
	cfg, err := v.readConfig(rl.FunctionConfig)
	if err != nil {
		rl.Results = append(rl.Results, errorResult(err))
		return v.failure()
	}
	locs, err := v.locations(cfg)
	if err != nil {
		rl.Results = append(rl.Results, errorResult(err))
		return v.failure()
	}
	crds, err := crdSchemas(rl.Items)
	if err != nil {
		rl.Results = append(rl.Results, errorResult(err))
		return v.failure()
	}
	s := &schemaSet{cfg: cfg, locs: locs, crds: crds, compiled: map[string]*compiledSchema{}}
	if v.kubeval != nil {
		return v.kubeval.process(s, rl, v.stderr)
	}
	failed := false
	for _, it := range rl.Items {
		results, err := v.validate(s, it)
		if err != nil {
			rl.Results = append(rl.Results, objectResult(err.Error(), framework.Error, it))
			failed = true
			continue
		}
		failed = failed || len(results) > 0
		rl.Results = append(rl.Results, results...)
	}
	if failed {
		return v.failure()
	}
	return nil
}

// validate validates one resource as kubeconform does: its violations as
// results, or an error when its schema cannot be read.
func (v *schemaValidator) validate(s *schemaSet, it *yaml.RNode) ([]*framework.Result, error) {
	apiVersion, kind := getString(it, yaml.APIVersionField), getString(it, yaml.KindField)
	if apiVersion == "" || kind == "" || s.cfg.skipKinds[kind] || s.cfg.skipKinds[apiVersion+"/"+kind] {
		return nil, nil
	}
	schema, err := s.find(apiVersion, kind)
	if errors.Is(err, errNoSchema) {
		// kubeconform reports a resource without a schema as an error
		// without violations: the function reports nothing
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	doc := jsonValue(it.YNode())
	var verr *jsonschema.ValidationError
	if err := schema.compiled.Validate(doc); !errors.As(err, &verr) {
		return nil, nil
	}
	vs := kubeconformViolations(verr)
	out := make([]*framework.Result, 0, len(vs))
	for _, x := range vs {
		r := objectResult(x.msg, framework.Error, it)
		r.Field = &framework.Field{Path: x.field}
		out = append(out, r)
	}
	return out, nil
}

// schemaSet finds and compiles the schemas of one run.
type schemaSet struct {
	cfg      validatorConfig
	locs     []schemaLocation
	crds     map[string]map[string]any
	compiled map[string]*compiledSchema // nil: no schema
}

// compiledSchema is a schema as read (kubeval checks that) and compiled
// (kubeconform checks that).
type compiledSchema struct {
	doc      any
	compiled *jsonschema.Schema
}

func (s *schemaSet) find(apiVersion, kind string) (*compiledSchema, error) {
	return s.findIn(s.locs, apiVersion, kind)
}

// findIn finds a kind's schema in the given locations, else in the
// package's CRDs.
func (s *schemaSet) findIn(locs []schemaLocation, apiVersion, kind string) (*compiledSchema, error) {
	file := schemaFile(s.cfg.k8sVersion, s.cfg.strict, apiVersion, kind)
	key := fmt.Sprintf("%d:%s", len(locs), file)
	if c, ok := s.compiled[key]; ok {
		if c == nil {
			return nil, errNoSchema
		}
		return c, nil
	}
	if !filepath.IsLocal(filepath.FromSlash(file)) {
		// a kind or group naming another directory: no location is read
		// outside itself
		s.compiled[key] = nil
		return nil, errNoSchema
	}
	url := "file:///schemas/" + file
	for _, l := range locs {
		b, err := l.read(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the schema %s/%s: %w", l.name, file, err)
		}
		c, err := compileSchema(url, b)
		if err != nil {
			return nil, err
		}
		s.compiled[key] = c
		return c, nil
	}
	if crd, ok := s.crds[apiVersion+"/"+kind]; ok {
		doc := crdJSONSchema(crd, s.cfg.strict)
		c, err := compileValue(url, doc)
		if err != nil {
			return nil, fmt.Errorf("the package's CustomResourceDefinition of %s: %w", kind, err)
		}
		s.compiled[key] = &compiledSchema{doc: doc, compiled: c}
		return s.compiled[key], nil
	}
	s.compiled[key] = nil
	return nil, errNoSchema
}
