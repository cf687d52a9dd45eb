package builtins

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// gkTemplate is a ConstraintTemplate: the constraint kind it defines and
// its Rego (the admission target's), compiled with its libraries by OPA
// as Rego v0, the language Gatekeeper templates are written in.
type gkTemplate struct {
	name, kind string
	rego       string
	libs       []string
	query      rego.PreparedEvalQuery
	// checks2021: compile checks the Rego as the constraint framework of
	// 2021 does (gatekeeper_framework.go).
	checks2021 bool
}

// newGKTemplate reads a ConstraintTemplate.
func newGKTemplate(o *gkObject) (*gkTemplate, error) {
	spec := mapOf(o.object["spec"])
	kind, _ := mapOf(mapOf(mapOf(spec["crd"])["spec"])["names"])["kind"].(string)
	if kind == "" {
		return nil, fmt.Errorf("ConstraintTemplate %s: spec.crd.spec.names.kind is empty", o.name)
	}
	targets, _ := spec["targets"].([]any)
	if len(targets) != 1 {
		return nil, fmt.Errorf("ConstraintTemplate %s: expected exactly 1 item in targets, got %d", o.name, len(targets))
	}
	t := mapOf(targets[0])
	if name, _ := t["target"].(string); name != gatekeeperTarget {
		return nil, fmt.Errorf("ConstraintTemplate %s: target %s not recognized", o.name, name)
	}
	src, _ := t["rego"].(string)
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("ConstraintTemplate %s: the rego of target %s is empty", o.name, gatekeeperTarget)
	}
	return &gkTemplate{name: o.name, kind: kind, rego: src, libs: stringsOf(t["libs"])}, nil
}

// opaCapabilities are the built-in functions, keywords and features of the
// OPA release a gatekeeper release was built with (OPA keeps them, release
// by release), read once: a template using what came later fails to
// compile, as it does in the release (in today's words).
func opaCapabilities(version string) (*ast.Capabilities, error) {
	load, _ := opaCapabilitiesOf.LoadOrStore(version, sync.OnceValues(func() (*ast.Capabilities, error) {
		caps, err := ast.LoadCapabilitiesVersion(version)
		if err != nil {
			return nil, fmt.Errorf("the capabilities of OPA %s: %w", version, err)
		}
		return caps, nil
	}))
	return load.(func() (*ast.Capabilities, error))()
}

// opaCapabilitiesOf holds opaCapabilities' loaders by version.
var opaCapabilitiesOf sync.Map

// compile parses and prepares the template's violation query against the
// inventory, with what caps allows.
func (t *gkTemplate) compile(ctx context.Context, store storage.Store, caps *ast.Capabilities) error {
	opts := ast.ParserOptions{RegoVersion: ast.RegoV0, Capabilities: caps}
	if t.checks2021 {
		if stmts, _, err := ast.ParseStatementsWithOpts("template.rego", t.rego, opts); err == nil && len(stmts) == 0 {
			return emptyModule2021(t.kind)
		}
	}
	mod, err := ast.ParseModuleWithOpts("template.rego", t.rego, opts)
	if err != nil {
		return fmt.Errorf("ConstraintTemplate %s: %w", t.name, err)
	}
	if t.checks2021 {
		if err := requireViolation2021(mod); err != nil {
			return err
		}
	}
	args := []func(*rego.Rego){
		rego.Query(mod.Package.Path.String() + ".violation"),
		rego.ParsedModule(mod),
		rego.SetRegoVersion(ast.RegoV0),
		rego.Store(store),
		rego.StrictBuiltinErrors(false),
		rego.Capabilities(caps),
	}
	libs := make([]*ast.Module, 0, len(t.libs))
	for i, lib := range t.libs {
		lm, err := ast.ParseModuleWithOpts(fmt.Sprintf("lib%d.rego", i), lib, opts)
		if err != nil {
			return fmt.Errorf("ConstraintTemplate %s: library %d: %w", t.name, i, err)
		}
		if p := lm.Package.Path.String(); !t.checks2021 && !strings.HasPrefix(p, "data.lib.") && p != "data.lib" {
			return fmt.Errorf("ConstraintTemplate %s: library %d: its package %s is not under lib", t.name, i, strings.TrimPrefix(p, "data."))
		}
		libs = append(libs, lm)
		args = append(args, rego.ParsedModule(lm))
	}
	if t.checks2021 {
		if err := checkRefs2021(t.name, mod, libs); err != nil {
			return err
		}
	}
	t.query, err = rego.New(args...).PrepareForEval(ctx)
	if err != nil {
		return fmt.Errorf("ConstraintTemplate %s: %w", t.name, err)
	}
	return nil
}

// violations are the messages of the template's violation set for a
// review with a constraint's parameters, both already OPA values (made
// once per resource and per constraint, not per evaluation).
func (t *gkTemplate) violations(ctx context.Context, review, params ast.Value) ([]string, error) {
	input := ast.NewObject(
		ast.Item(ast.InternedTerm("review"), ast.NewTerm(review)),
		ast.Item(ast.InternedTerm("parameters"), ast.NewTerm(params)))
	rs, err := t.query.Eval(ctx, rego.EvalParsedInput(input))
	if err != nil {
		return nil, fmt.Errorf("ConstraintTemplate %s: %w", t.name, err)
	}
	var out []string
	for _, r := range rs {
		for _, e := range r.Expressions {
			set, ok := e.Value.([]any)
			if !ok {
				continue
			}
			for _, v := range set {
				m, ok := v.(map[string]any)
				if !ok {
					return nil, errors.New("ConstraintTemplate " + t.name + ": a violation is not an object with msg")
				}
				msg, ok := m["msg"].(string)
				if !ok {
					msg = fmt.Sprint(m["msg"])
				}
				out = append(out, msg)
			}
		}
	}
	return out, nil
}

// opaValue is v as an OPA value.
func opaValue(v any) (ast.Value, error) { return ast.InterfaceToValue(v) }

// inventoryStore holds the inventory as data.inventory.
func inventoryStore(inv map[string]any) storage.Store {
	return inmem.NewFromObject(map[string]any{"inventory": inv})
}
