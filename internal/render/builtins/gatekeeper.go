package builtins

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The catalog's gatekeeper function validates a package against the
// Gatekeeper ConstraintTemplates and constraints it holds: every resource
// (but the templates) is reviewed, as Gatekeeper's audit reviews a
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

// gatekeeperReleases: v0.2.0 reads templates.gatekeeper.sh/v1beta1
// ConstraintTemplates only; v0.2.1 reads v1alpha1, v1beta1 and v1.
// The v0.1 releases (Gatekeeper v3.4's framework) match differently
// (no match.name, no namespace prefixes) and are not reproduced.
func gatekeeperReleases() []release {
	out := notReproduced("v0.1.1", "v0.1.2", "v0.1.3")
	out = append(out, releases(gatekeeperRelease{templateVersions: []string{"v1beta1"}}.process, "v0.2.0")...)
	return append(out, releases(gatekeeperRelease{templateVersions: []string{"v1alpha1", "v1beta1", "v1"}}.process, "v0.2.1")...)
}

// gatekeeperRelease is how one release reads a package.
type gatekeeperRelease struct {
	// templateVersions are the ConstraintTemplate versions the release
	// reads (others it skips, as not templates).
	templateVersions []string
}

// gkObject is one resource of the package as the audit sees it.
type gkObject struct {
	apiVersion, kind, name, namespace string
	object                            map[string]any
	node                              *yaml.RNode
}

// gkViolation is one violation the audit found.
type gkViolation struct {
	msg        string
	constraint string
	action     string
	obj        *gkObject
}

func (r gatekeeperRelease) process(rl *framework.ResourceList) error {
	vs, err := r.audit(context.Background(), rl.Items)
	var results framework.Results
	if err != nil {
		results = framework.Results{{Message: err.Error(), Severity: framework.Error}}
	} else {
		results = gatekeeperResults(vs)
	}
	rl.Results = append(rl.Results, results...)
	var lines []string
	failed := false
	for _, res := range results {
		failed = failed || res.Severity == framework.Error
		lines = append(lines, frameworkItemString(res))
	}
	if failed {
		return Failure{Stderr: strings.Join(lines, "\n\n") + "\n"}
	}
	return nil
}

// audit reviews every resource of items with every constraint that
// matches it.
func (r gatekeeperRelease) audit(ctx context.Context, items []*yaml.RNode) ([]gkViolation, error) {
	var objs []*gkObject
	var templates []*gkTemplate
	var constraints []*gkObject
	for _, it := range items {
		o, err := newGKObject(it)
		if err != nil {
			return nil, err
		}
		group, version := splitAPIVersion(o.apiVersion)
		switch {
		case group == templateGroup && o.kind == "ConstraintTemplate":
			if !slices.Contains(r.templateVersions, version) {
				objs = append(objs, o) // not read as a template: a resource like any
				continue
			}
			t, err := newGKTemplate(o)
			if err != nil {
				return nil, err
			}
			templates = append(templates, t)
			continue // typed, so never in the inventory
		case group == constraintGroup:
			constraints = append(constraints, o)
		}
		objs = append(objs, o)
	}
	inv, reviewed, err := inventory(objs)
	if err != nil {
		return nil, err
	}
	store := inventoryStore(inv)
	byKind := map[string]*gkTemplate{}
	for _, t := range templates {
		if err := t.compile(ctx, store); err != nil {
			return nil, err
		}
		byKind[t.kind] = t
	}
	for _, c := range constraints {
		if byKind[c.kind] == nil {
			return nil, fmt.Errorf("Constraint kind %s is not recognized", c.kind)
		}
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
			if !constraintMatches(c.object, review, inv) {
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

func newGKObject(it *yaml.RNode) (*gkObject, error) {
	m, ok := jsonValue(it.YNode()).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a resource is not a mapping")
	}
	return &gkObject{apiVersion: it.GetApiVersion(), kind: it.GetKind(), name: it.GetName(), namespace: it.GetNamespace(),
		object: m, node: it}, nil
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

// gatekeeperResults are the violations as the catalog function reports
// them, sorted by file, severity, resource and message.
func gatekeeperResults(vs []gkViolation) framework.Results {
	var out framework.Results
	for _, v := range vs {
		res := &framework.Result{
			Message: v.msg + "\nviolatedConstraint: " + v.constraint,
			ResourceRef: &yaml.ResourceIdentifier{
				TypeMeta: yaml.TypeMeta{APIVersion: v.obj.apiVersion, Kind: v.obj.kind},
				NameMeta: yaml.NameMeta{Name: v.obj.name, Namespace: v.obj.namespace},
			},
		}
		switch v.action {
		case "dryrun":
			res.Severity = framework.Info
		case "warn":
			res.Severity = framework.Warning
		default:
			res.Severity = framework.Error
		}
		annos := v.obj.node.GetAnnotations()
		if p, ok := annos[kioutil.PathAnnotation]; ok {
			res.File = &framework.File{Path: p}
			if i, ok := annos[kioutil.IndexAnnotation]; ok {
				fmt.Sscan(i, &res.File.Index)
			}
		}
		out = append(out, res)
	}
	rank := map[framework.Severity]int{framework.Error: 0, framework.Warning: 1, framework.Info: 2}
	file := func(r *framework.Result) (string, int) {
		if r.File == nil {
			return "", 0
		}
		return r.File.Path, r.File.Index
	}
	key := func(r *framework.Result) string {
		ref := r.ResourceRef
		return fmt.Sprintf("resource-ref:{{%s %s} {%s %s}},field:{  },message:%s",
			ref.APIVersion, ref.Kind, ref.Name, ref.Namespace, r.Message)
	}
	sort.SliceStable(out, func(i, j int) bool {
		pi, ii := file(out[i])
		pj, ij := file(out[j])
		switch {
		case pi != pj:
			return pi < pj
		case ii != ij:
			return ii < ij
		case rank[out[i].Severity] != rank[out[j].Severity]:
			return rank[out[i].Severity] < rank[out[j].Severity]
		}
		return key(out[i]) < key(out[j])
	})
	return out
}

// frameworkItemString is a result as the kyaml framework of the catalog
// function's time printed it on failure: "[severity] <apiVersion>/<kind>/
// <namespace>/<name> <field>: <message>".
func frameworkItemString(r *framework.Result) string {
	var id []string
	if ref := r.ResourceRef; ref != nil {
		for _, s := range []string{ref.APIVersion, ref.Kind, ref.Namespace, ref.Name} {
			if s != "" {
				id = append(id, s)
			}
		}
	}
	field := ""
	if r.Field != nil {
		field = r.Field.Path
	}
	if len(id) > 0 {
		return fmt.Sprintf("[%s] %s %s: %s", r.Severity, strings.Join(id, "/"), field, r.Message)
	}
	return fmt.Sprintf("[%s] %s: %s", r.Severity, field, r.Message)
}
