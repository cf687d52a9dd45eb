package builtins

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// What Gatekeeper's constraint framework of 2021 (v0.1.x: January, v0.2.0:
// May) checks as the audit adds a template, then each constraint, in the
// package's order; the first failure is the function's one error result.
//
// A template: its name is its kind in lower case; one target, the
// admission one; a Kubernetes CRD made of its names (porchbot refuses names
// Kubernetes' validation would not take, rather than word its complaint);
// Rego that parses and has a violation rule. A constraint: its kind has a
// template; it fits the CRD's schema (the match of Gatekeeper v3.4–v3.5,
// metadata.name of at most 63 characters: porchbot refuses one that does
// not, rather than word Kubernetes' complaint); its name is a DNS-1123
// subdomain; its version v1alpha1 or v1beta1; its label selectors valid
// (porchbot refuses invalid ones). A later constraint of the same kind and
// name replaces an earlier one.

// checkTemplate2021 is the framework's check of a template before its Rego.
func checkTemplate2021(o *gkObject) error {
	spec := mapOf(o.object["spec"])
	names := mapOf(mapOf(mapOf(spec["crd"])["spec"])["names"])
	kind, _ := names["kind"].(string)
	if o.name != strings.ToLower(kind) {
		return fmt.Errorf("Template's name %s is not equal to the lowercase of CRD's Kind: %s", o.name, strings.ToLower(kind))
	}
	targets, isList := spec["targets"].([]any)
	var why string
	switch {
	case len(targets) > 1:
		why = "Multi-target templates are not currently supported"
	case spec["targets"] == nil:
		why = `Field "targets" not specified in ConstraintTemplate spec`
	case !isList:
		return gatekeeperRefusal("ConstraintTemplate %s: its targets are no list, which the release fails to decode", o.name)
	case len(targets) == 0:
		why = "No targets specified. ConstraintTemplate must specify one target"
	default:
		t, ok := targets[0].(map[string]any)
		rego, regoOK := t["rego"]
		libs, libsOK := t["libs"]
		_, regoString := rego.(string)
		libList, libsAreList := libs.([]any)
		if !ok || regoOK && rego != nil && !regoString || libsOK && libs != nil && (!libsAreList || len(stringsOf(libList)) != len(libList)) {
			return gatekeeperRefusal("ConstraintTemplate %s: its target is no mapping with a string rego and a list of string libs, "+
				"which the release decodes in ways porchbot does not reproduce", o.name)
		}
		if name, _ := t["target"].(string); name != gatekeeperTarget {
			why = fmt.Sprintf("target %s not recognized", name)
		}
	}
	if why != "" {
		return fmt.Errorf("failed to validate targets for template %s: %s", o.name, why)
	}
	if !crdName(strings.ToLower(kind)+"list") || slices.ContainsFunc(stringsOf(names["shortNames"]), func(s string) bool { return !crdName(s) }) {
		return gatekeeperRefusal("ConstraintTemplate %s: the release fails the CRD its names make (kind %q) in the words of Kubernetes' validation", o.name, kind)
	}
	if src, _ := mapOf(targets[0])["rego"].(string); strings.TrimSpace(src) == "" {
		return emptyModule2021(kind)
	}
	return nil
}

// emptyModule2021 is the framework's error for Rego without a statement.
func emptyModule2021(kind string) error {
	return fmt.Errorf("templates[%q][%q]:0: rego_parse_error: empty module", gatekeeperTarget, kind)
}

// crdName is whether s is a DNS-1035 label, as a CRD's plural, singular,
// list kind and short names must be (the kind in lower case with "list" is
// the longest).
func crdName(s string) bool { return len(s) <= 63 && dns1035Label.MatchString(s) }

var dns1035Label = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// requireViolation2021 is the framework's check of a template's parsed
// Rego: it has a violation rule.
func requireViolation2021(mod *ast.Module) error {
	for _, rule := range mod.Rules {
		if rule.Head.Name.String() == "violation" {
			return nil
		}
	}
	// the framework's list of errors starts each with a line break
	return fmt.Errorf("Invalid rego: \nMissing required rule: violation")
}

// checkRefs2021 is the framework's check of what a template's Rego and
// libraries refer to: each library's package under lib (not lib itself),
// each import under data.lib ("bad import" otherwise). porchbot refuses
// any other reference to data but data.inventory: the framework refuses
// one outside data.lib in words naming its own module paths, and rewrites
// one into data.lib (to where it keeps the template's libraries) only
// where it is not nested in a call, which leaves the rest undefined.
func checkRefs2021(template string, entry *ast.Module, libs []*ast.Module) error {
	lib, inventory := ast.MustParseRef("data.lib"), ast.MustParseRef("data.inventory")
	for _, l := range libs {
		if p := l.Package.Path; p.Equal(lib) || !p.HasPrefix(lib) {
			return fmt.Errorf("path %s not found in lib prefixes", p)
		}
	}
	mods := append(slices.Clone(libs), entry)
	for _, m := range mods {
		for _, i := range m.Imports {
			if ref, ok := i.Path.Value.(ast.Ref); !ok || !ref.HasPrefix(lib) {
				return fmt.Errorf("bad import")
			}
		}
	}
	for _, m := range mods {
		for _, rule := range m.Rules {
			var bad ast.Ref
			ast.WalkRefs(rule, func(ref ast.Ref) bool {
				if bad == nil && ref[0].Equal(ast.DefaultRootDocument) && !ref.HasPrefix(inventory) {
					bad = ref
				}
				return false
			})
			switch {
			case bad == nil:
			case bad.HasPrefix(lib):
				return gatekeeperRefusal("ConstraintTemplate %s: its Rego refers to %s, which the release rewrites only in part: "+
					"import the library instead", template, bad)
			default:
				return gatekeeperRefusal("ConstraintTemplate %s: its Rego refers to %s, which the release refuses in words porchbot does not reproduce", template, bad)
			}
		}
	}
	return nil
}

// checkConstraint2021 is the framework's check of a constraint whose kind
// has a template; v01 words a bad name as Kubernetes 1.19's apimachinery
// (v0.1.x) does, not 1.20's (v0.2.0).
func checkConstraint2021(c *gkObject, v01 bool) error {
	if why := constraintSchema2021(c.object); why != "" {
		return gatekeeperRefusal("constraint %s: %s: the release fails it in the words of Kubernetes' schema validation", c.name, why)
	}
	if !dns1123Subdomain.MatchString(c.name) {
		what := "a lowercase RFC 1123 subdomain"
		if v01 {
			what = "a DNS-1123 subdomain"
		}
		return fmt.Errorf("Invalid Name: %s must consist of lower case alphanumeric characters, '-' or '.', and must start and end "+
			"with an alphanumeric character (e.g. 'example.com', regex used for validation is '%s')", what, dns1123SubdomainFmt)
	}
	if _, version := splitAPIVersion(c.apiVersion); version != "v1alpha1" && version != "v1beta1" {
		return fmt.Errorf("Wrong version for constraint %s. Have %s, supported: map[v1alpha1:true v1beta1:true]", c.name, version)
	}
	match := mapOf(mapOf(c.object["spec"])["match"])
	for _, f := range []string{"labelSelector", "namespaceSelector"} {
		if sel, ok := match[f].(map[string]any); ok && !validLabelSelector(sel) {
			return gatekeeperRefusal("constraint %s: its %s is no valid label selector: the release fails it in the words of Kubernetes' validation", c.name, f)
		}
	}
	return nil
}

const dns1123SubdomainFmt = `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`

var dns1123Subdomain = regexp.MustCompile(`^` + dns1123SubdomainFmt + `$`)

// constraintSchema2021 says where a constraint does not fit its CRD's
// schema ("" where it does), the stricter of v3.4's and v3.5's matches.
func constraintSchema2021(c map[string]any) string {
	isList := func(v any, each func(any) bool) bool {
		l, ok := v.([]any)
		return ok && !slices.ContainsFunc(l, func(e any) bool { return !each(e) })
	}
	isString := func(v any) bool { _, ok := v.(string); return ok }
	isMap := func(v any) bool { _, ok := v.(map[string]any); return ok }
	nullOr := func(ok func(any) bool) func(any) bool { return func(v any) bool { return v == nil || ok(v) } }
	selector := func(v any) bool {
		s, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if l, ok := s["matchLabels"]; ok && !nullOr(isMap)(l) {
			return false
		}
		for _, l := range mapOf(s["matchLabels"]) {
			if !isString(l) {
				return false
			}
		}
		e, ok := s["matchExpressions"]
		return !ok || nullOr(func(v any) bool {
			return isList(v, func(x any) bool {
				m, ok := x.(map[string]any)
				op, _ := m["operator"].(string)
				return ok && nullOr(isString)(m["key"]) && (m["operator"] == nil || slices.Contains([]string{"In", "NotIn", "Exists", "DoesNotExist"}, op)) &&
					nullOr(func(v any) bool { return isList(v, isString) })(m["values"])
			})
		})(e)
	}
	fields := map[string]func(any) bool{
		"kinds": func(v any) bool {
			return isList(v, func(k any) bool {
				m, ok := k.(map[string]any)
				return ok && nullOr(func(v any) bool { return isList(v, nullOr(isString)) })(m["apiGroups"]) &&
					nullOr(func(v any) bool { return isList(v, nullOr(isString)) })(m["kinds"])
			})
		},
		"namespaces":         func(v any) bool { return isList(v, isString) },
		"excludedNamespaces": func(v any) bool { return isList(v, isString) },
		"labelSelector":      selector,
		"namespaceSelector":  selector,
		"scope":              func(v any) bool { return slices.Contains([]any{"*", "Cluster", "Namespaced"}, v) },
	}
	if name, _ := mapOf(c["metadata"])["name"].(string); len(name) > 63 {
		return "its name is longer than 63 characters"
	}
	spec, ok := c["spec"]
	if !ok || spec == nil {
		return ""
	}
	if !isMap(spec) {
		return "its spec is no mapping"
	}
	if a, ok := mapOf(spec)["enforcementAction"]; ok && !nullOr(isString)(a) {
		return "its enforcementAction is no string"
	}
	match, ok := mapOf(spec)["match"]
	if !ok || match == nil {
		return ""
	}
	if !isMap(match) {
		return "its match is no mapping"
	}
	for k, v := range mapOf(match) {
		if ok := fields[k]; ok != nil && v != nil && !ok(v) {
			return "its match." + k + " does not fit the schema"
		}
	}
	return ""
}

// validLabelSelector is whether Kubernetes takes sel as a label selector:
// label keys and values, In and NotIn with values, Exists and
// DoesNotExist without.
func validLabelSelector(sel map[string]any) bool {
	for k, v := range mapOf(sel["matchLabels"]) {
		if s, _ := v.(string); !labelKey(k) || !labelValue.MatchString(s) || len(s) > 63 {
			return false
		}
	}
	exprs, _ := sel["matchExpressions"].([]any)
	for _, e := range exprs {
		m := mapOf(e)
		key, _ := m["key"].(string)
		n := len(stringsOf(m["values"]))
		switch m["operator"] {
		case "In", "NotIn":
			if n == 0 {
				return false
			}
		case "Exists", "DoesNotExist":
			if n > 0 {
				return false
			}
		default:
			return false
		}
		if !labelKey(key) {
			return false
		}
		for _, v := range stringsOf(m["values"]) {
			if !labelValue.MatchString(v) || len(v) > 63 {
				return false
			}
		}
	}
	return true
}

// labelKey is whether k is a qualified name: an optional DNS-1123
// subdomain prefix and a slash, then a name of at most 63 characters.
func labelKey(k string) bool {
	prefix, name, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		name = prefix
	} else if len(prefix) > 253 || !dns1123Subdomain.MatchString(prefix) {
		return false
	}
	return name != "" && len(name) <= 63 && labelValue.MatchString(name)
}

var labelValue = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)

// lastOfEach keeps, of the constraints of one kind and name, the last.
func lastOfEach(constraints []*gkObject) []*gkObject {
	type key struct{ kind, name string }
	last := map[key]int{}
	for i, c := range constraints {
		last[key{c.kind, c.name}] = i
	}
	var out []*gkObject
	for i, c := range constraints {
		if last[key{c.kind, c.name}] == i {
			out = append(out, c)
		}
	}
	return out
}
