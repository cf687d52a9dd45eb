package builtins

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

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
//   - kubeval v0.1.1 and v0.1.2 (TypeScript, kubeval v0.16.1 underneath, its
//     gojsonschema wording): every violation, `selector is required` at
//     field `selector` (gojsonschema names the missing property, not where
//     it is missing), `Invalid type. Expected: [integer,null], given: string`
//     at `spec.replicas`; a resource without a schema is an error unless
//     ignore_missing_schemas or skip_kinds covers it; it fails with
//     nothing on stderr. Its SDK hands it the resources sorted by
//     apiVersion/kind/namespace/name, one per key.
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
	kubeval bool // kubeval v0.1's behaviour, else kubeconform's
	src     SchemaSources
}

// validatorFunction is a schema validator as a built-in: it runs as kpt
// runs a function (kptFunction) and hears where schemas are.
type validatorFunction struct {
	*kptFunction
	v *schemaValidator
}

// UseSchemas implements SchemaUser.
func (f *validatorFunction) UseSchemas(s SchemaSources) { f.v.src = s }

func validatorReleases(kubeval bool, versions ...string) []release {
	out := make([]release, 0, len(versions))
	for _, version := range versions {
		out = append(out, release{version: version, new: func() Function {
			v := &schemaValidator{kubeval: kubeval}
			return &validatorFunction{kptFunction: &kptFunction{fn: v.process}, v: v}
		}})
	}
	return out
}

func (v *schemaValidator) failure() error {
	if v.kubeval {
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
	s := &schemaSet{cfg: cfg, locs: locs, crds: crds, compiled: map[string]*jsonschema.Schema{}}
	failed := false
	for _, it := range v.order(rl.Items) {
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

// order is the order the validator goes through the resources in:
// kubeconform's is the input's; kubeval's TypeScript SDK keeps them sorted
// by apiVersion/kind/namespace/name, the last of several with one key
// standing for them all.
func (v *schemaValidator) order(items []*yaml.RNode) []*yaml.RNode {
	if !v.kubeval {
		return items
	}
	byKey := map[string]*yaml.RNode{}
	var keys []string
	for _, it := range items {
		k := strings.Join([]string{getString(it, yaml.APIVersionField), getString(it, yaml.KindField),
			getString(it, yaml.MetadataField, yaml.NamespaceField), getString(it, yaml.MetadataField, yaml.NameField)}, "/")
		if _, dup := byKey[k]; !dup {
			keys = append(keys, k)
		}
		byKey[k] = it
	}
	slices.Sort(keys)
	out := make([]*yaml.RNode, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	return out
}

// validate validates one resource: its violations as results, or an
// error when its schema cannot be read.
func (v *schemaValidator) validate(s *schemaSet, it *yaml.RNode) ([]*framework.Result, error) {
	apiVersion, kind := getString(it, yaml.APIVersionField), getString(it, yaml.KindField)
	if apiVersion == "" || kind == "" || s.cfg.skipKinds[kind] || s.cfg.skipKinds[apiVersion+"/"+kind] {
		return nil, nil
	}
	schema, err := s.find(apiVersion, kind)
	if errors.Is(err, errNoSchema) {
		if !v.kubeval || s.cfg.ignoreMissing {
			// kubeconform reports a resource without a schema as an
			// error without violations: the function reports nothing
			return nil, nil
		}
		return []*framework.Result{objectResult(kubevalMissingSchema(s, apiVersion, kind), framework.Error, it)}, nil
	}
	if err != nil {
		return nil, err
	}
	doc := jsonValue(it.YNode())
	var verr *jsonschema.ValidationError
	if err := schema.Validate(doc); !errors.As(err, &verr) {
		return nil, nil
	}
	var vs []violation
	if v.kubeval {
		vs = kubevalViolations(verr)
	} else {
		vs = kubeconformViolations(verr)
	}
	out := make([]*framework.Result, 0, len(vs))
	for _, x := range vs {
		r := objectResult(x.msg, framework.Error, it)
		r.Field = &framework.Field{Path: x.field}
		out = append(out, r)
	}
	return out, nil
}

// kubevalMissingSchema is kubeval v0.1's result for a resource it has no
// schema for: the image's message, naming the file kubeval looked for.
func kubevalMissingSchema(s *schemaSet, apiVersion, kind string) string {
	base := "file:///tmp" // where the image writes the schemas it bundles
	if len(s.cfg.locations) > 0 {
		base = strings.TrimSuffix(s.cfg.locations[0], "/")
	}
	url := base + "/" + schemaFile(s.cfg.k8sVersion, s.cfg.strict, apiVersion, kind)
	return "Validating arbitrary CRDs is not supported yet. You can skip them by setting " +
		"ignore_missing_schemas or skip_kinds in the function config:\n" +
		"ERR  - stdin: Failed initializing schema " + url + ": open " + strings.TrimPrefix(url, "file://") +
		": no such file or directory\n"
}

// schemaSet finds and compiles the schemas of one run.
type schemaSet struct {
	cfg      validatorConfig
	locs     []schemaLocation
	crds     map[string]map[string]any
	compiled map[string]*jsonschema.Schema
}

func (s *schemaSet) find(apiVersion, kind string) (*jsonschema.Schema, error) {
	file := schemaFile(s.cfg.k8sVersion, s.cfg.strict, apiVersion, kind)
	if c, ok := s.compiled[file]; ok {
		if c == nil {
			return nil, errNoSchema
		}
		return c, nil
	}
	if !filepath.IsLocal(filepath.FromSlash(file)) {
		// a kind or group naming another directory: no location is read
		// outside itself
		s.compiled[file] = nil
		return nil, errNoSchema
	}
	url := "file:///schemas/" + file
	for _, l := range s.locs {
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
		s.compiled[file] = c
		return c, nil
	}
	if crd, ok := s.crds[apiVersion+"/"+kind]; ok {
		c, err := compileValue(url, crdJSONSchema(crd, s.cfg.strict))
		if err != nil {
			return nil, fmt.Errorf("the package's CustomResourceDefinition of %s: %w", kind, err)
		}
		s.compiled[file] = c
		return c, nil
	}
	s.compiled[file] = nil
	return nil, errNoSchema
}
