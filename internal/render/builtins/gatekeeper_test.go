package builtins

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// gkTemplateYAML is a ConstraintTemplate of kind Deny whose Rego is rego.
func gkTemplateYAML(apiVersion, rego string, libs ...string) string {
	s := "apiVersion: templates.gatekeeper.sh/" + apiVersion + "\nkind: ConstraintTemplate\nmetadata:\n  name: deny\nspec:\n" +
		"  crd:\n    spec:\n      names:\n        kind: Deny\n  targets:\n    - target: admission.k8s.gatekeeper.sh\n"
	if len(libs) > 0 {
		s += "      libs:\n"
		for _, l := range libs {
			s += "        - |\n" + indent(l, "          ")
		}
	}
	return s + "      rego: |\n" + indent(rego, "        ")
}

const gkConstraint = "apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: Deny\nmetadata:\n  name: all\nspec: {}\n"

// TestGatekeeperRefusesBrokenTemplates: what the audit cannot run fails
// the function with one error result saying what and where.
func TestGatekeeperRefusesBrokenTemplates(t *testing.T) {
	ok := "package deny\nviolation[{\"msg\": \"no\"}] { false }\n"
	for name, c := range map[string]struct{ files, want string }{
		"no kind": {strings.Replace(gkTemplateYAML("v1", ok), "kind: Deny", "kind: \"\"", 1), "spec.crd.spec.names.kind is empty"},
		"other target": {strings.Replace(gkTemplateYAML("v1", ok), "admission.k8s.gatekeeper.sh", "audit.example.com", 1),
			"target audit.example.com not recognized"},
		"bad rego":           {gkTemplateYAML("v1", "package deny\nviolation[{\"msg\": m}] {\n"), "ConstraintTemplate deny: "},
		"lib outside lib":    {gkTemplateYAML("v1", ok, "package util\nx = 1\n"), "its package util is not under lib"},
		"unknown kind":       {gkConstraint, "Constraint kind Deny is not recognized"},
		"a version not read": {gkTemplateYAML("v2", ok) + "---\n" + gkConstraint, "Constraint kind Deny is not recognized"},
		// object.keys came with OPA v0.47; v0.2.1 was built with v0.29
		"a later built-in": {gkTemplateYAML("v1", "package deny\nviolation[{\"msg\": m}] { m := sprintf(\"%v\", [object.keys(input)]) }\n"),
			"undefined function object.keys"},
	} {
		_, results, err := render(t, "gatekeeper", "", map[string]string{"policy.yaml": c.files})
		if err == nil || len(results) != 1 || !strings.Contains(results[0].Message, c.want) {
			t.Errorf("%s: %v %s, want one error saying %q", name, err, resultLines(results), c.want)
		}
	}
}

// TestGatekeeperMatchHelpers: the parts of Gatekeeper's match that the
// golden cases do not reach.
func TestGatekeeperMatchHelpers(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{{"team-*", "team-a", true}, {"team-*", "team-a.b", false}, {"kube-*", "kube-system", true}, {"a*", "b", false}} {
		if got := globMatch(c.pattern, c.s); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.pattern, c.s, got)
		}
		// Gatekeeper v3.4's target takes no prefixes
		if got := namesOrPrefixes([]string{c.pattern}, c.s, false); got != (c.pattern == c.s) {
			t.Errorf("namesOrPrefixes(%q, %q) without prefixes = %v", c.pattern, c.s, got)
		}
	}
	labels := map[string]any{"app": "web"}
	for _, c := range []struct {
		sel  map[string]any
		want bool
	}{
		{map[string]any{}, true},
		{map[string]any{"matchExpressions": []any{map[string]any{"key": "app", "operator": "In", "values": []any{}}}}, true},
		{map[string]any{"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In", "values": []any{}}}}, false},
		{map[string]any{"matchExpressions": []any{map[string]any{"key": "app", "operator": "NotIn", "values": []any{"web"}}}}, false},
		{map[string]any{"matchExpressions": []any{map[string]any{"key": "tier", "operator": "NotIn", "values": []any{"web"}}}}, true},
		{map[string]any{"matchLabels": map[string]any{"app": "api"}}, false},
	} {
		if got := labelSelectorMatches(c.sel, labels); got != c.want {
			t.Errorf("labelSelectorMatches(%v) = %v", c.sel, got)
		}
	}
}

// TestGatekeeperV01Schemas: a v1beta1 template's parameters schema fails
// the v0.1 releases with the framework's conversion error, unless the
// release fails to decode it first, which porchbot refuses to reproduce.
// Each schema was run by gatekeeper v0.1.3 built at its tag.
func TestGatekeeperV01Schemas(t *testing.T) {
	ok := "package deny\nviolation[{\"msg\": \"no\"}] { false }\n"
	template := func(validation string) string {
		return strings.Replace(gkTemplateYAML("v1beta1", ok), "        kind: Deny\n",
			"        kind: Deny\n      validation: "+validation+"\n", 1)
	}
	for validation, want := range map[string]string{
		"{openAPIV3Schema: {properties: {keys: {type: array, items: {type: string}}}}}": "conversion",
		"{openAPIV3Schema: {items: 5}}":                            "conversion",
		"{openAPIV3Schema: {required: [1], type: 5, Type: true}}":  "conversion", // made strings
		"{openAPIV3Schema: {maxLength: 2.0, nullable: yes}}":       "conversion",
		"{openAPIV3Schema: {externalDocs: {url: 5, other: [1]}}}":  "conversion",
		"{openAPIV3Schema: {dependencies: {a: 5}, allOf: [null]}}": "conversion",
		"{openAPIV3Schema: {properties: {a: null}, x-other: [1]}}": "conversion",
		"{openAPIV3Schema: {}}":                                    "conversion",
		"{openAPIV3Schema: null}":                                  "none",
		"{}":                                                       "none",
		"null":                                                     "none",
		"5":                                                        "refused",
		"{openAPIV3Schema: 5}":                                     "refused",
		"{openAPIV3Schema: {type: [string]}}":                      "refused",
		"{openAPIV3Schema: {properties: 5}}":                       "refused",
		"{openAPIV3Schema: {additionalProperties: x}}":             "refused",
		"{openAPIV3Schema: {maxLength: 1.5}}":                      "refused",
		"{openAPIV3Schema: {enum: 5}}":                             "refused",
		"{openAPIV3Schema: {not: []}}":                             "refused",
		"{openAPIV3Schema: {allOf: [5]}}":                          "refused",
		"{openAPIV3Schema: {dependencies: {a: [1]}}}":              "refused",
		"{openAPIV3Schema: {dependencies: [a]}}":                   "refused",
		"{openAPIV3Schema: {nullable: \"yes\"}}":                   "refused",
		"{openAPIV3Schema: {items: [{type: 5}]}}":                  "refused", // no strings made under items
	} {
		_, results, err := render(t, "gatekeeper:v0.1.3", "", map[string]string{"policy.yaml": template(validation) + "---\n" + gkConstraint})
		got := "none"
		switch {
		case errors.Is(err, errGatekeeperNotReproduced):
			got = "refused"
		case err != nil && len(results) == 1 && results[0].Message == v01SchemaConversion:
			got = "conversion"
		case err != nil:
			got = fmt.Sprintf("%v %s", err, resultLines(results))
		}
		if got != want {
			t.Errorf("validation %s: %s, want %s", validation, got, want)
		}
	}
}

// TestGatekeeperV011RefusesTwoViolations: v0.1.1 reports its results in
// the audit's order, which changes from run to run; one violation is
// reported as the release does.
func TestGatekeeperV011RefusesTwoViolations(t *testing.T) {
	deny := gkTemplateYAML("v1beta1", "package deny\nviolation[{\"msg\": \"no\"}] { input.review.kind.kind == \"ConfigMap\" }\n") +
		"---\n" + gkConstraint
	cm := func(name string) string { return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n" }
	_, results, err := render(t, "gatekeeper:v0.1.1", "", map[string]string{"policy.yaml": deny, "a.yaml": cm("a")})
	if f, ok := err.(Failure); !ok || f.Stderr != "[error] v1/ConfigMap//a : no\nviolatedConstraint: all" || len(results) != 1 {
		t.Errorf("one violation: %v %s", err, resultLines(results))
	}
	// no resource: four empty parts
	_, _, err = render(t, "gatekeeper:v0.1.1", "", map[string]string{"policy.yaml": gkConstraint})
	if f, ok := err.(Failure); !ok || f.Stderr != "[error] /// : Constraint kind Deny is not recognized" {
		t.Errorf("no resource: %v", err)
	}
	_, results, err = render(t, "gatekeeper:v0.1.1", "", map[string]string{"policy.yaml": deny, "a.yaml": cm("a") + "---\n" + cm("b")})
	if !errors.Is(err, errGatekeeperNotReproduced) || len(results) != 1 || !strings.Contains(results[0].Message, "changes from run to run") {
		t.Errorf("two violations: %v %s, want a refusal", err, resultLines(results))
	}
}

// TestGatekeeperRefusesNamesYAML11Changes: the releases read each item as
// YAML 1.1, where a name like yes or 8080 is no string; porchbot refuses
// rather than guess what the audit makes of it.
func TestGatekeeperRefusesNamesYAML11Changes(t *testing.T) {
	for _, name := range []string{"yes", "n", "8080", "0x1F"} {
		_, _, err := render(t, "gatekeeper:v0.2.0", "", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"})
		if !errors.Is(err, errGatekeeperNotReproduced) || !strings.Contains(err.Error(), "metadata.name of ConfigMap "+name) {
			t.Errorf("name %s: %v, want a refusal", name, err)
		}
	}
	if _, _, err := render(t, "gatekeeper:v0.2.0", "", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 'yes'\n"}); err != nil {
		t.Errorf("quoted name: %v", err)
	}
}

// TestGatekeeper2021Checks: what the constraint framework of v0.1.x and
// v0.2.0 refuses in a template or constraint, in its words (each recorded
// from v0.1.3 and v0.2.0 built at their tags), or refused by porchbot
// where those words are Kubernetes' validation or the framework's module
// paths.
func TestGatekeeper2021Checks(t *testing.T) {
	ok := "package deny\nviolation[{\"msg\": \"no\"}] { false }\n"
	withTargets := func(targets string) string {
		s := gkTemplateYAML("v1beta1", ok)
		return s[:strings.Index(s, "  targets:")] + targets + "\n"
	}
	constraint := func(name, version, spec string) string {
		return "apiVersion: constraints.gatekeeper.sh/" + version + "\nkind: Deny\nmetadata:\n  name: " + name + "\nspec: " + spec + "\n"
	}
	badName := "Invalid Name: %s must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric " +
		"character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	for name, c := range map[string]struct{ files, want string }{
		"name not kind":   {strings.Replace(gkTemplateYAML("v1beta1", ok), "name: deny", "name: other", 1), "Template's name other is not equal to the lowercase of CRD's Kind: deny"},
		"no targets":      {withTargets("  x: 1"), `failed to validate targets for template deny: Field "targets" not specified in ConstraintTemplate spec`},
		"empty targets":   {withTargets("  targets: []"), "failed to validate targets for template deny: No targets specified. ConstraintTemplate must specify one target"},
		"two targets":     {withTargets("  targets: [{target: a}, {target: b}]"), "failed to validate targets for template deny: Multi-target templates are not currently supported"},
		"other target":    {withTargets("  targets: [{target: other, rego: x}]"), "failed to validate targets for template deny: target other not recognized"},
		"blank rego":      {gkTemplateYAML("v1beta1", "  \n"), `templates["admission.k8s.gatekeeper.sh"]["Deny"]:0: rego_parse_error: empty module`},
		"comments only":   {gkTemplateYAML("v1beta1", "# nothing\n"), `templates["admission.k8s.gatekeeper.sh"]["Deny"]:0: rego_parse_error: empty module`},
		"no violation":    {gkTemplateYAML("v1beta1", "package deny\ndeny[\"no\"] { true }\n"), "Invalid rego: \nMissing required rule: violation"},
		"lib outside lib": {gkTemplateYAML("v1beta1", ok, "package other\nx = 1\n"), "path data.other not found in lib prefixes"},
		"lib is lib":      {gkTemplateYAML("v1beta1", ok, "package lib\nx = 1\n"), "path data.lib not found in lib prefixes"},
		"import input":    {gkTemplateYAML("v1beta1", "package deny\nimport input.review\nviolation[{\"msg\": \"no\"}] { false }\n"), "bad import"},
		"constraint name": {gkTemplateYAML("v1beta1", ok) + "---\n" + constraint("Bad_Name", "v1beta1", "{}"), badName},
		"constraint v1":   {gkTemplateYAML("v1beta1", ok) + "---\n" + constraint("c", "v1", "{}"), "Wrong version for constraint c. Have v1, supported: map[v1alpha1:true v1beta1:true]"},
		"CRD names":       {strings.ReplaceAll(gkTemplateYAML("v1beta1", ok), "eny", "eny_x"), "refused"},
		"match kinds":     {gkTemplateYAML("v1beta1", ok) + "---\n" + constraint("c", "v1beta1", "{match: {kinds: x}}"), "refused"},
		"selector":        {gkTemplateYAML("v1beta1", ok) + "---\n" + constraint("c", "v1beta1", "{match: {labelSelector: {matchExpressions: [{key: a, operator: In}]}}}"), "refused"},
		"data reference":  {gkTemplateYAML("v1beta1", "package deny\nviolation[{\"msg\": \"no\"}] { data.other.x }\n"), "refused"},
		"direct lib":      {gkTemplateYAML("v1beta1", "package deny\nviolation[{\"msg\": m}] { m := sprintf(\"%v\", [data.lib.a.x]) }\n", "package lib.a\nx = 1\n"), "refused"},
	} {
		for _, v := range []string{"v0.1.3", "v0.2.0"} {
			want := c.want
			if name == "constraint name" {
				want = fmt.Sprintf(badName, map[string]string{"v0.1.3": "a DNS-1123 subdomain", "v0.2.0": "a lowercase RFC 1123 subdomain"}[v])
			}
			_, results, err := render(t, "gatekeeper:"+v, "", map[string]string{"policy.yaml": c.files})
			got := resultLines(results)
			switch {
			case errors.Is(err, errGatekeeperNotReproduced):
				got = "refused"
			case err != nil && len(results) == 1:
				got = results[0].Message
			}
			if got != want {
				t.Errorf("%s, %s: %v %s\nwant %s", name, v, err, got, want)
			}
		}
	}
}
