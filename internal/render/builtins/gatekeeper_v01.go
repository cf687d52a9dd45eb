package builtins

import (
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// The v0.1 releases of gatekeeper audit as v0.2.0 does (Gatekeeper v3.4's
// target and the same Rego), on the constraint framework of January 2021
// under kyaml's command.Build. What differs:
//
//   - the framework cannot convert a v1beta1 template's parameters schema
//     (spec.crd.spec.validation.openAPIV3Schema) to its own types: a package
//     with such a template fails, with the conversion error as its one
//     result, before any template is compiled;
//   - command.Build prints the failure without a newline after it;
//   - v0.1.1 (kyaml v0.10.20) does not sort its results: they come in the
//     order of the audit, which changes from run to run, so porchbot refuses
//     a run with more than one; and it prints a result's resource as four
//     parts, empty ones too ("apps/v1/Deployment//web", "///").

// v01SchemaConversion is the error the v0.1 framework fails with.
const v01SchemaConversion = "converting (v1beta1.JSONSchemaProps) to (apiextensions.JSONSchemaProps): unknown conversion"

// v01ConvertSchemas fails as the v0.1 releases do when a template has a
// parameters schema. A validation or schema the release's decoder refuses
// (no mapping, a field of the wrong type) fails it before, in Go's JSON
// words, which porchbot does not reproduce.
func v01ConvertSchemas(templates []*gkObject) error {
	found := false
	for _, t := range templates {
		crd := mapOf(mapOf(mapOf(t.object["spec"])["crd"])["spec"])
		validation, ok := crd["validation"]
		if !ok || validation == nil {
			continue
		}
		schema, ok := mapOf(validation)["openAPIV3Schema"]
		_, isMap := validation.(map[string]any)
		_, schemaIsMap := schema.(map[string]any)
		switch {
		case !isMap || ok && !schemaDecodes(schema, true):
			return gatekeeperRefusal("ConstraintTemplate %s: the release fails to decode its spec.crd.spec.validation", t.name)
		case schemaIsMap:
			found = true
		}
	}
	if found {
		return errors.New(v01SchemaConversion)
	}
	return nil
}

// v011Results are v0.1.1's results: unsorted, so refused when there are
// more than one.
func v011Results(vs []gkViolation) (framework.Results, error) {
	if len(vs) > 1 {
		return nil, gatekeeperRefusal("gatekeeper v0.1.1 reports its %d violations in an order that changes from run to run "+
			"(v0.1.2 and later sort them)", len(vs))
	}
	return violationResults(vs)
}

// v011ItemString is a result as kyaml v0.10.20's framework printed it:
// "[severity] <apiVersion>/<kind>/<namespace>/<name> <field>: <message>",
// every part there even when empty.
func v011ItemString(r *framework.Result) string {
	id := make([]string, 4)
	if ref := r.ResourceRef; ref != nil {
		id = []string{ref.APIVersion, ref.Kind, ref.Namespace, ref.Name}
	}
	field := ""
	if r.Field != nil {
		field = r.Field.Path
	}
	return fmt.Sprintf("[%s] %s %s: %s", r.Severity, strings.Join(id, "/"), field, r.Message)
}
