package builtins

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// set-namespace v0.3.x and v0.4.0, the first releases on the functions SDK.
// The namespace fields they visit, local-config resources skipped: a
// Namespace's name, a CRD's conversion webhook service namespace, an
// APIService's service namespace, the namespace of each RoleBinding
// (v0.3.2 on; before, ClusterRoleBinding only) subject that has one, and
// metadata.namespace:
//
//   - v0.3.x change only the fields whose value is the namespace being
//     replaced: the one Namespace object's name, else the namespaceMatcher,
//     else the one namespace all namespace-scoped resources share (an error
//     when they disagree or none has one); metadata.namespace is visited
//     only where set (and, before v0.3.2, not on the kinds above);
//   - v0.4.0 sets every visited field that differs, metadata.namespace of
//     every namespace-scoped resource included (created where missing), and
//     the CRD and APIService fields even where missing;
//   - every visited field is written back whether it changed or not, so a
//     quoted value loses its quotes and (v0.3) a missing CRD or APIService
//     field appears empty;
//
// then a `config.kubernetes.io/depends-on` annotation naming one of the
// visited objects is moved to the new namespace when it named a replaced one.
// The object's group in that lookup is its apiVersion's part before "/" (the
// whole apiVersion for the core group, so core-group objects never match).
type setNamespaceSDK struct {
	v4          bool
	allBindings bool // v0.3.2 on: RoleBinding subjects too, and metadata.namespace on every kind
	results     int  // v0.3.0–v0.3.2: 0, v0.3.3: 3, v0.3.4: 4
}

type nsField struct {
	obj *yaml.RNode
	get func() (string, bool)
	set func(string)
}

func (v setNamespaceSDK) fields(items []*yaml.RNode) []nsField {
	var out []nsField
	at := func(o *yaml.RNode, n *yaml.Node, path ...string) nsField {
		return nsField{obj: o,
			get: func() (string, bool) {
				s, found, _ := nestedString(yaml.NewRNode(n), path...)
				return s, found
			},
			set: func(s string) { _ = setNestedString(n, s, path...) }}
	}
	for _, o := range items {
		if o.YNode().Kind != yaml.MappingNode || isLocalConfig(o) {
			continue
		}
		apiVersion, kind := getString(o, yaml.APIVersionField), getString(o, yaml.KindField)
		special := true
		switch {
		case apiVersion == "v1" && kind == "Namespace":
			out = append(out, at(o, o.YNode(), yaml.MetadataField, yaml.NameField))
		case apiVersion == "apiextensions.k8s.io/v1" && kind == "CustomResourceDefinition":
			out = append(out, at(o, o.YNode(), "spec", "conversion", "webhook", "clientConfig", "service", "namespace"))
		case apiVersion == "apiregistration.k8s.io/v1" && kind == "APIService":
			out = append(out, at(o, o.YNode(), "spec", "service", "namespace"))
		case kind == "ClusterRoleBinding" || kind == "RoleBinding" && (v.allBindings || v.v4):
			for _, s := range nestedSlice(o.YNode(), "subjects") {
				if _, found, _ := nestedString(yaml.NewRNode(s), "namespace"); found {
					out = append(out, at(o, s, "namespace"))
				}
			}
		default:
			special = false
		}
		switch {
		case v.v4:
			if isNamespaceScoped(o) {
				out = append(out, at(o, o.YNode(), yaml.MetadataField, yaml.NamespaceField))
			}
		case hasNamespace(o) && (v.allBindings || !special):
			out = append(out, at(o, o.YNode(), yaml.MetadataField, yaml.NamespaceField))
		}
	}
	return out
}

func (v setNamespaceSDK) process(rl *framework.ResourceList) error {
	newNs, matcher, err := v.config(rl.FunctionConfig)
	if err != nil {
		rl.Results = append(rl.Results, objectResult(err.Error(), framework.Error, rl.FunctionConfig))
		return nil
	}
	fields := v.fields(rl.Items)
	replaced := map[string]bool{}
	count := 0
	// The SDK writes every visited field back, changed or not: a missing one
	// is created (empty before v0.4), and a value comes back unquoted.
	if v.v4 {
		for _, f := range fields {
			if old, _ := f.get(); old != newNs {
				replaced[old] = true
				count++
			}
			f.set(newNs)
		}
	} else {
		for _, f := range fields {
			old, _ := f.get()
			f.set(old)
		}
		oldNs, errMsg := v.oldNamespace(fields, matcher)
		if errMsg != "" {
			rl.Results = append(rl.Results, result(errMsg, framework.Error))
			return nil
		}
		matcher = oldNs
		if oldNs != newNs {
			for _, f := range fields {
				if old, _ := f.get(); old != "" && old == oldNs {
					f.set(newNs)
					count++
				}
			}
			replaced[oldNs] = true
		}
	}
	updateDependsOnSDK(rl.Items, fields, replaced, newNs)
	rl.Results = append(rl.Results, v.summary(rl, matcher, newNs, count, replaced)...)
	return nil
}

// oldNamespace is v0.3's choice of the namespace to replace.
func (v setNamespaceSDK) oldNamespace(fields []nsField, matcher string) (string, string) {
	namespaces := map[string]bool{}
	nsObjects := map[string]int{}
	for _, f := range fields {
		s, _ := f.get()
		if s == "" {
			continue
		}
		namespaces[s] = true
		if isGVK(f.obj, "", "v1", "Namespace") && getString(f.obj, yaml.KindField) == "Namespace" {
			nsObjects[s]++
		}
	}
	switch {
	case matcher != "" && len(nsObjects) == 0:
		return matcher, ""
	case matcher != "":
		return "", "found Namespace objects from the input resources, " +
			"you cannot use `namespaceMatcher` in FunctionConfig together with Namespace objects"
	case len(nsObjects) > 1:
		var parts []string
		for _, k := range sortedSet(namespaces) {
			if nsObjects[k] > 0 {
				parts = append(parts, fmt.Sprintf("%s:%d", k, nsObjects[k]))
			}
		}
		return "", fmt.Sprintf("cannot accept more than one Namespace objects from the input resources, found map[%s]",
			strings.Join(parts, " "))
	case len(nsObjects) == 1:
		for k, n := range nsObjects {
			if n > 1 {
				return "", fmt.Sprintf("found more than one Namespace objects of the same name %q", k)
			}
			return k, ""
		}
	case len(namespaces) > 1:
		return "", fmt.Sprintf("all input namespace-scoped resources should be under the same namespace "+
			"but found different namespaces: %q ", strings.Join(sortedSet(namespaces), ","))
	case len(namespaces) == 0:
		return "", "could not find any namespace fields to update. This function requires at least one of Namespace objects or " +
			"namespace-scoped resources to have their namespace field set."
	}
	return sortedSet(namespaces)[0], ""
}

func (v setNamespaceSDK) summary(rl *framework.ResourceList, matcher, newNs string, count int, replaced map[string]bool) framework.Results {
	switch {
	case !v.v4 && v.results < 3:
		return framework.Results{result("namespace updated", framework.Info)}
	case !v.v4:
		out := framework.Results{result(fmt.Sprintf("namespace %q updated to %q, %d values changed", matcher, newNs, count), framework.Info)}
		if v.results == 3 {
			out = append(out, &framework.Result{Message: fmt.Sprintf("set image from %s to %s", matcher, newNs), Severity: framework.Info,
				Field: &framework.Field{CurrentValue: matcher, ProposedValue: newNs}, File: &framework.File{Path: "test"}})
		}
		return out
	}
	if dup := duplicateResource(rl.Items); dup != "" {
		return framework.Results{result(dup, framework.Error)}
	}
	if count == 0 {
		return framework.Results{result(fmt.Sprintf("all namespaces are already %q. no value changed", newNs), framework.Info)}
	}
	var olds []string
	for _, o := range sortedSet(replaced) {
		olds = append(olds, `"`+o+`"`)
	}
	return framework.Results{result(fmt.Sprintf("namespace %v updated to %q, %d value(s) changed", strings.Join(olds, ","), newNs, count), framework.Info)}
}

// duplicateResource is the SDK's duplicate check: two resources with the
// same group, kind, namespace and name.
func duplicateResource(items []*yaml.RNode) string {
	seen := map[string]bool{}
	for _, o := range items {
		if o.YNode().Kind != yaml.MappingNode {
			continue
		}
		g, _, _ := parseGroupVersion(getString(o, yaml.APIVersionField))
		id := resourceID{Group: g, Kind: getString(o, yaml.KindField), Namespace: getString(o, yaml.MetadataField, yaml.NamespaceField),
			Name: getString(o, yaml.MetadataField, yaml.NameField)}
		if seen[id.String()] {
			return fmt.Sprintf("duplicate Resource(apiVersion=%v, kind=%v, Namespace=%v, Name=%v)",
				getString(o, yaml.APIVersionField), id.Kind, id.Namespace, id.Name)
		}
		seen[id.String()] = true
	}
	return ""
}

func updateDependsOnSDK(items []*yaml.RNode, fields []nsField, replaced map[string]bool, newNs string) {
	key := func(o *yaml.RNode) string {
		group := getString(o, yaml.APIVersionField)
		if i := strings.Index(group, "/"); i > -1 {
			group = group[:i]
		}
		return group + "/" + getString(o, yaml.KindField) + "/" + getString(o, yaml.MetadataField, yaml.NameField)
	}
	visited := map[*yaml.RNode]bool{}
	keys := map[string]bool{}
	for _, f := range fields {
		visited[f.obj] = true
		keys[key(f.obj)] = true
	}
	for _, o := range items {
		if !visited[o] {
			continue
		}
		anno := annotations(o)[dependsOnAnnotation]
		if anno == "" || !namespacedDependsOnPattern.MatchString(anno) {
			continue
		}
		seg := strings.Split(anno, "/")
		if keys[seg[0]+"/"+seg[3]+"/"+seg[4]] && replaced[seg[2]] {
			seg[2] = newNs
			_ = setNestedString(o.YNode(), strings.Join(seg, "/"), yaml.MetadataField, yaml.AnnotationsField, dependsOnAnnotation)
		}
	}
}

func (v setNamespaceSDK) config(fc *yaml.RNode) (newNs, matcher string, err error) {
	apiVersion, kind := getString(fc, yaml.APIVersionField), getString(fc, yaml.KindField)
	switch {
	case fc != nil && apiVersion == "v1" && kind == "ConfigMap":
		data := dataMap(fc)
		newNs, matcher = data["namespace"], data["namespaceMatcher"]
		if newNs == "" {
			if getString(fc, yaml.MetadataField, yaml.NameField) != builtinConfigMapName {
				return "", "", fmt.Errorf("`data.namespace` should not be empty")
			}
			if newNs = data["name"]; newNs == "" {
				return "", "", fmt.Errorf("`data.name` should not be empty")
			}
		}
	case fc != nil && apiVersion == fnConfigGroup+"/"+fnConfigVersion && kind == setNamespaceKind:
		newNs, matcher = getString(fc, "namespace"), getString(fc, "data", "namespaceMatcher")
		if newNs == "" {
			return "", "", fmt.Errorf("`namespace` should not be empty")
		}
	default:
		return "", "", fmt.Errorf("unknown functionConfig Kind=%v ApiVersion=%v, expect `%v` or `ConfigMap`", kind, apiVersion, setNamespaceKind)
	}
	if v.v4 {
		matcher = ""
	}
	return newNs, matcher, nil
}
