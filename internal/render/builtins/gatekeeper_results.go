package builtins

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// gatekeeperResults are the violations as the catalog function reports
// them, sorted by file, severity, resource and message.
func gatekeeperResults(vs []gkViolation) (framework.Results, error) {
	out, err := violationResults(vs)
	if err != nil {
		return nil, err
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
	return out, nil
}

// violationResults are the violations as results, in the audit's order:
// each names its resource and, where the resource's annotations (all
// strings, as the release reads them) hold its path, its file and index.
// An index that is no number fails them all.
func violationResults(vs []gkViolation) (framework.Results, error) {
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
		annos := stringAnnotations(v.obj.object)
		if p, ok := annos[kioutil.PathAnnotation]; ok {
			res.File = &framework.File{Path: p}
			if i, ok := annos[kioutil.IndexAnnotation]; ok {
				n, err := strconv.Atoi(i)
				if err != nil {
					return nil, err
				}
				res.File.Index = n
			}
		}
		out = append(out, res)
	}
	return out, nil
}

// stringAnnotations are an object's annotations as a Kubernetes
// unstructured object gives them: none at all when one is not a string.
func stringAnnotations(object map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range mapOf(mapOf(object["metadata"])["annotations"]) {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		out[k] = s
	}
	return out
}

// itemString is a result as the release's kyaml framework printed it on
// failure.
func (r gatekeeperRelease) itemString(res *framework.Result) string {
	if r.kyaml01020 {
		return v011ItemString(res)
	}
	return frameworkItemString(res)
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
