package builtins

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The catalog's gatekeeper function validates a package against the
// Gatekeeper ConstraintTemplates and constraints it holds: every resource
// (but the templates and what else the release decodes into Go types,
// gatekeeper_objects.go) is reviewed, as Gatekeeper's audit reviews a
// cluster's, by every constraint that matches it, with the template's Rego
// evaluated by OPA (gatekeeper_rego.go) and the match as Gatekeeper's
// Kubernetes target decides it (gatekeeper_match.go). A violation is a
// result naming the resource and its file: "<msg>\nviolatedConstraint:
// <constraint>", an error for the deny enforcement action (the default),
// a warning for warn, info for dryrun. An error fails the function, which
// prints its results as the kyaml framework of its time printed them.

// templateGroup and constraintGroup are the API groups of Gatekeeper's
// templates and constraints.
const (
	templateGroup    = "templates.gatekeeper.sh"
	constraintGroup  = "constraints.gatekeeper.sh"
	gatekeeperTarget = "admission.k8s.gatekeeper.sh"
)

// gatekeeperReleases: v0.1.x and v0.2.0 are built on Gatekeeper v3.4–v3.5
// (its target matches no constraint by name and compares namespaces
// whole) and read only templates.gatekeeper.sh/v1beta1 ConstraintTemplates;
// v0.1.x differ in how they fail and print (gatekeeper_v01.go). v0.2.1 is
// built on Gatekeeper v3.7 and reads v1alpha1, v1beta1 and v1.
func gatekeeperReleases() []release {
	v020 := gatekeeperRelease{templateVersions: []string{"v1beta1"}, typedVersions: []string{"v1alpha1", "v1beta1"}, exportOptions: true,
		opa: "v0.24.0", framework2021: true}
	v01 := v020
	v01.v01 = true
	v011 := v01
	v011.kyaml01020 = true
	v021 := gatekeeperRelease{templateVersions: []string{"v1alpha1", "v1beta1", "v1"}, typedVersions: []string{"v1alpha1", "v1beta1", "v1"},
		externalData: true, opa: "v0.29.4", v37Target: true}
	out := releases(v011.process, "v0.1.1")
	out = append(out, releases(v01.process, "v0.1.2", "v0.1.3")...)
	out = append(out, releases(v020.process, "v0.2.0")...)
	return append(out, releases(v021.process, "v0.2.1")...)
}

// gatekeeperRelease is how one release reads a package.
type gatekeeperRelease struct {
	// templateVersions are the ConstraintTemplate versions the release
	// reads as templates.
	templateVersions []string
	// typedVersions are the templates.gatekeeper.sh versions whose kinds
	// the release's runtime scheme decodes into Go types, which never reach
	// the audit (a ConstraintTemplate of such a version the release does
	// not read is no resource either); exportOptions and externalData say
	// what else it types (gatekeeper_objects.go).
	typedVersions []string
	exportOptions bool
	externalData  bool
	// opa is the OPA release it was built with, whose built-in functions
	// templates may use.
	opa string
	// framework2021: Gatekeeper's constraint framework of 2021 checks
	// templates and constraints as gatekeeper_framework.go says.
	framework2021 bool
	// v37Target: Gatekeeper v3.7's target, which also selects by a
	// constraint's match.name and takes a trailing * in namespaces and
	// excludedNamespaces for a prefix.
	v37Target bool
	// v01: the v0.1 releases, on Gatekeeper's constraint framework of
	// January 2021 and kyaml's command.Build (gatekeeper_v01.go).
	v01 bool
	// kyaml01020: v0.1.1, on kyaml v0.10.20's results, unsorted.
	kyaml01020 bool
}

// gkObject is one resource of the package as the audit sees it.
type gkObject struct {
	apiVersion, kind, name, namespace string
	object                            map[string]any
}

// gkViolation is one violation the audit found.
type gkViolation struct {
	msg        string
	constraint string
	action     string
	obj        *gkObject
}

func (r gatekeeperRelease) process(rl *framework.ResourceList) error {
	results, err := r.results(context.Background(), rl.Items)
	if err != nil {
		rl.Results = append(rl.Results, errorResult(err))
		return err
	}
	rl.Results = append(rl.Results, results...)
	var lines []string
	failed := false
	for _, res := range results {
		failed = failed || res.Severity == framework.Error
		lines = append(lines, r.itemString(res))
	}
	if !failed {
		return nil
	}
	if r.v01 {
		// kyaml's command.Build prints the error as it is
		return Failure{Stderr: strings.Join(lines, "\n\n")}
	}
	// v0.2's main prints it with a newline
	return Failure{Stderr: strings.Join(lines, "\n\n") + "\n"}
}

// results are what the release reports: its violations, or the error the
// audit failed with. An error is what porchbot refuses to reproduce
// (errGatekeeperNotReproduced).
func (r gatekeeperRelease) results(ctx context.Context, items []*yaml.RNode) (framework.Results, error) {
	vs, err := r.audit(ctx, items)
	var results framework.Results
	switch {
	case err != nil:
	case r.kyaml01020:
		results, err = v011Results(vs)
	default:
		results, err = gatekeeperResults(vs)
	}
	switch {
	case errors.Is(err, errGatekeeperNotReproduced):
		return nil, err
	case err != nil:
		return framework.Results{errorResult(err)}, nil
	}
	for _, res := range results {
		if strings.IndexAny(res.Message, " \t\n") == 0 {
			// the yaml.v3 of the releases writes such a message as a block
			// it cannot read back, and the release fails there
			return nil, gatekeeperRefusal("the release fails to write its results when a message starts with a blank or a line break: %q", res.Message)
		}
	}
	return results, nil
}

// audit reviews every resource of items with every constraint that
// matches it.
func (r gatekeeperRelease) audit(ctx context.Context, items []*yaml.RNode) ([]gkViolation, error) {
	var objs, templateObjs, constraints []*gkObject
	for _, it := range items {
		o, err := newGKObject(it)
		if err != nil {
			return nil, err
		}
		group, version := splitAPIVersion(o.apiVersion)
		switch {
		case group == templateGroup && o.kind == "ConstraintTemplate" && slices.Contains(r.templateVersions, version):
			templateObjs = append(templateObjs, o)
			continue // typed, so never in the inventory
		case r.typed(group, version, o.kind):
			continue
		case group == constraintGroup:
			constraints = append(constraints, o)
		}
		objs = append(objs, o)
	}
	if r.v01 {
		if err := v01ConvertSchemas(templateObjs); err != nil {
			return nil, err
		}
	}
	inv, reviewed, err := inventory(objs)
	if err != nil {
		return nil, err
	}
	store := inventoryStore(inv)
	caps, err := opaCapabilities(r.opa)
	if err != nil {
		return nil, err
	}
	// each template checked and compiled in turn, then each constraint
	byKind := map[string]*gkTemplate{}
	for _, o := range templateObjs {
		if r.framework2021 {
			if err := checkTemplate2021(o); err != nil {
				return nil, err
			}
		}
		t, err := newGKTemplate(o)
		if err != nil {
			return nil, err
		}
		t.checks2021 = r.framework2021
		if err := t.compile(ctx, store, caps); err != nil {
			return nil, err
		}
		byKind[t.kind] = t
	}
	for _, c := range constraints {
		if byKind[c.kind] == nil {
			return nil, fmt.Errorf("Constraint kind %s is not recognized", c.kind)
		}
		if r.framework2021 {
			if err := checkConstraint2021(c, r.v01); err != nil {
				return nil, err
			}
		}
	}
	if r.framework2021 {
		constraints = lastOfEach(constraints)
	}
	params := make([]ast.Value, len(constraints))
	for i, c := range constraints {
		if params[i], err = opaValue(parametersOf(c.object)); err != nil {
			return nil, fmt.Errorf("constraint %s: %w", c.name, err)
		}
	}
	var out []gkViolation
	for _, o := range reviewed {
		review := makeReview(o)
		var reviewValue ast.Value // made once, for the first constraint that matches
		for i, c := range constraints {
			if !constraintMatches(c.object, review, inv, r.v37Target) {
				continue
			}
			if reviewValue == nil {
				if reviewValue, err = opaValue(review); err != nil {
					return nil, fmt.Errorf("resource %s: %w", o.name, err)
				}
			}
			msgs, err := byKind[c.kind].violations(ctx, reviewValue, params[i])
			if err != nil {
				return nil, err
			}
			for _, m := range msgs {
				out = append(out, gkViolation{msg: m, constraint: c.name, action: enforcementAction(c.object), obj: o})
			}
		}
	}
	return out, nil
}

// splitAPIVersion is an apiVersion's group ("" for the core group) and
// version.
func splitAPIVersion(apiVersion string) (group, version string) {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return g, v
	}
	return "", apiVersion
}

// inventory is Gatekeeper's cache of the package's resources,
// data.inventory: namespace/<ns>/<apiVersion>/<kind>/<name> and
// cluster/<apiVersion>/<kind>/<name>, a later resource of the same path
// replacing an earlier one; and the resources it holds (the results are
// sorted afterwards: the order of the review does not show).
func inventory(objs []*gkObject) (map[string]any, []*gkObject, error) {
	cluster, namespaced := map[string]any{}, map[string]any{}
	type key struct{ ns, gv, kind, name string }
	last := map[key]*gkObject{}
	var order []key
	for _, o := range objs {
		if _, v := splitAPIVersion(o.apiVersion); v == "" {
			return nil, nil, fmt.Errorf("resource %s has no version", o.name)
		}
		if o.kind == "" {
			return nil, nil, fmt.Errorf("resource %s has no kind", o.name)
		}
		k := key{o.namespace, o.apiVersion, o.kind, o.name}
		if _, seen := last[k]; !seen {
			order = append(order, k)
		}
		last[k] = o
		root := cluster
		if o.namespace != "" {
			root = child(namespaced, o.namespace)
		}
		child(child(root, o.apiVersion), o.kind)[o.name] = o.object
	}
	reviewed := make([]*gkObject, 0, len(order))
	for _, k := range order {
		reviewed = append(reviewed, last[k])
	}
	return map[string]any{"cluster": cluster, "namespace": namespaced}, reviewed, nil
}

func child(m map[string]any, k string) map[string]any {
	if c, ok := m[k].(map[string]any); ok {
		return c
	}
	c := map[string]any{}
	m[k] = c
	return c
}

// makeReview is the review the audit hands a template: the object, its
// kind as group, version and kind, its name, and its namespace when it
// has one.
func makeReview(o *gkObject) map[string]any {
	group, version := splitAPIVersion(o.apiVersion)
	r := map[string]any{
		"kind":   map[string]any{"group": group, "version": version, "kind": o.kind},
		"name":   o.name,
		"object": o.object,
	}
	if o.namespace != "" {
		r["namespace"] = o.namespace
	}
	return r
}

func parametersOf(constraint map[string]any) any {
	spec, _ := constraint["spec"].(map[string]any)
	if p, ok := spec["parameters"]; ok && p != nil {
		return p
	}
	return map[string]any{}
}

func enforcementAction(constraint map[string]any) string {
	spec, _ := constraint["spec"].(map[string]any)
	if a, ok := spec["enforcementAction"].(string); ok {
		return a
	}
	return "deny"
}
