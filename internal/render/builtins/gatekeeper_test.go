package builtins

import (
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
