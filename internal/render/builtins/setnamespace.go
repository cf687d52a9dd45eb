package builtins

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// set-namespace (catalog v0.4): replaces the namespace of every namespace-scoped
// resource (and the namespace fields of Namespace objects, CRD conversion
// webhooks, APIServices and ClusterRoleBinding subjects), then updates the
// `config.kubernetes.io/depends-on` annotations pointing at changed resources.
//
// Without `namespaceMatcher` all namespaces are replaced, which requires the
// resources' upstream origins (internal.kpt.dev/upstream-identifier) to agree
// on one namespace; resources without an origin get a warning. A resource
// without a namespace counts as being in "default". With `namespaceMatcher`
// only fields whose current value or upstream origin equals the matcher change.
// Local-config resources (the Kptfile, function configs) are never touched.

const (
	setNamespaceKind     = "SetNamespace"
	builtinConfigMapName = "kptfile.kpt.dev"
	dependsOnAnnotation  = "config.kubernetes.io/depends-on"
)

var namespacedDependsOnPattern = regexp.MustCompile(`\A([-.\w]*)/namespaces/([-.\w]*)/([-.\w]*)/([-.\w]*)\z`)

type setNamespaceConfig struct {
	newNamespace string
	matcher      string
}

func setNamespace(rl *framework.ResourceList) error {
	cfg, err := setNamespaceConfigFrom(rl.FunctionConfig)
	if err != nil {
		rl.Results = append(rl.Results, objectResult(err.Error(), framework.Error, rl.FunctionConfig))
		return nil
	}
	rl.Results = append(rl.Results, cfg.transform(rl.Items)...)
	return nil
}

func setNamespaceConfigFrom(fc *yaml.RNode) (setNamespaceConfig, error) {
	var cfg setNamespaceConfig
	switch {
	case isEmptyConfig(fc):
		return cfg, fmt.Errorf("FunctionConfig is missing. Expect `ConfigMap.v1` or `%s.%s.%s`",
			setNamespaceKind, fnConfigVersion, fnConfigGroup)
	case isGVK(fc, "", "v1", "ConfigMap"):
		data := dataMap(fc)
		cfg.matcher = data["namespaceMatcher"]
		if data["namespace"] != "" {
			cfg.newNamespace = data["namespace"]
			return cfg, nil
		}
		name := getString(fc, yaml.MetadataField, yaml.NameField)
		if data["name"] != "" && name == builtinConfigMapName {
			cfg.newNamespace = data["name"]
			return cfg, nil
		}
		return cfg, fmt.Errorf("`data.namespace` should not be empty")
	case isGVK(fc, fnConfigGroup, fnConfigVersion, setNamespaceKind):
		cfg.newNamespace = getString(fc, "namespace")
		cfg.matcher = getString(fc, "namespaceMatcher")
		if cfg.newNamespace == "" {
			return cfg, fmt.Errorf("`namespace` should not be empty")
		}
		return cfg, nil
	default:
		return cfg, fmt.Errorf("unknown functionConfig Kind=%v ApiVersion=%v, expect `ConfigMap.v1` or `%s.%s.%s`",
			getString(fc, yaml.KindField), getString(fc, yaml.APIVersionField), setNamespaceKind, fnConfigVersion, fnConfigGroup)
	}
}

// resourceID is the SDK's ResourceIdentifier (group, kind, namespace, name).
type resourceID struct{ Group, Kind, Namespace, Name string }

func (r resourceID) String() string {
	return fmt.Sprintf("%v|%v|%v|%v", r.Group, r.Kind, r.Namespace, r.Name)
}

func effectiveNamespace(rn *yaml.RNode) string {
	if hasNamespace(rn) {
		return getString(rn, yaml.MetadataField, yaml.NamespaceField)
	}
	if isNamespaceScoped(rn) {
		return defaultNamespace
	}
	return unknownNamespace
}

func objectID(rn *yaml.RNode) resourceID {
	g, _, _ := parseGroupVersion(getString(rn, yaml.APIVersionField))
	return resourceID{Group: g, Kind: getString(rn, yaml.KindField),
		Namespace: effectiveNamespace(rn), Name: getString(rn, yaml.MetadataField, yaml.NameField)}
}

func hasUpstreamOrigin(rn *yaml.RNode) bool {
	return getAnnotation(rn, upstreamIdentifier) != ""
}

// originID parses the upstream-identifier annotation ("group|kind|namespace|name"),
// falling back to the object's current id.
func originID(rn *yaml.RNode) resourceID {
	if up := getAnnotation(rn, upstreamIdentifier); up != "" {
		seg := strings.Split(strings.TrimSpace(up), "|")
		for len(seg) < 4 {
			seg = append(seg, "")
		}
		return resourceID{Group: seg[0], Kind: seg[1], Namespace: seg[2], Name: seg[3]}
	}
	return objectID(rn)
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type nsVisitor func(origin string, current *string, idStr ...string)

func (c setNamespaceConfig) transform(items []*yaml.RNode) framework.Results {
	var results framework.Results
	var objects []*yaml.RNode
	for _, o := range items {
		if o.YNode().Kind == yaml.MappingNode && !isLocalConfig(o) {
			objects = append(objects, o)
		}
	}

	dependsOnMap := map[string]bool{}
	for _, o := range objects {
		id := objectID(o)
		if id.Namespace == unknownNamespace {
			continue
		}
		dependsOnMap[fmt.Sprintf("%v/namespaces/%v/%v/%v", id.Group, id.Namespace, id.Kind, id.Name)] = true
	}

	origins := map[string]bool{}
	for _, o := range objects {
		if hasUpstreamOrigin(o) {
			origin := originID(o)
			if !isNamespaceScoped(o) {
				continue
			}
			if origin.Namespace == unknownNamespace {
				return framework.Results{result(fmt.Sprintf("%v is namespace-scoped, but has cluster-scoped or unknown scoepd origin %v",
					shortString(o), origin.String()), framework.Error)}
			}
			origins[origin.Namespace] = true
		} else {
			results = append(results, result(fmt.Sprintf("%v does not have upstream origin.", shortString(o)), framework.Warning))
		}
	}

	if c.matcher != "" {
		return append(results, replaceNamespace(objects, c.newNamespace, dependsOnMap, c.matcher)...)
	}
	if len(origins) > 1 {
		return framework.Results{result(fmt.Sprintf(
			"unable to use origin `namespace` to match. expect a single upstream namespace, found %v. please switch to use `namespaceMatcher`"+
				"to specify the namespace value you want to change", sortedSet(origins)), framework.Error)}
	}
	return append(results, replaceNamespace(objects, c.newNamespace, dependsOnMap)...)
}

func replaceNamespace(objects []*yaml.RNode, newNs string, dependsOnMap map[string]bool, matchers ...string) framework.Results {
	var results framework.Results
	count := 0
	oldNss := map[string]bool{}
	visitAllNamespaces(objects, func(origin string, current *string, idStr ...string) {
		if origin == unknownNamespace {
			return
		}
		if *current == "" {
			*current = defaultNamespace
		}
		if *current == newNs {
			return
		}
		change := len(matchers) == 0
		for _, m := range matchers {
			if m == origin {
				results = append(results, result(fmt.Sprintf("%s has matching origin %s", idStr, origin), framework.Info))
			}
			if m == *current || m == origin {
				change = true
			}
		}
		if change {
			oldNss[*current] = true
			*current = newNs
			count++
		}
	})
	if count == 0 {
		results = append(results, result(fmt.Sprintf("all matching namespaces are already %q. no value changed", newNs), framework.Info))
	} else {
		results = append(results, result(fmt.Sprintf("namespace %v updated to %q, %d value(s) changed",
			sortedSet(oldNss), newNs, count), framework.Info))
	}

	annoCount, oldAnnoNss := updateDependsOn(objects, dependsOnMap, newNs, matchers...)
	if annoCount == 0 {
		results = append(results, result("all `depends-on` annotations are up-to-date. no `namespace` changed", framework.Info))
	} else {
		results = append(results, result(fmt.Sprintf("`depends-on` annotation namespace %v updated to %q, %d value(s) changed",
			oldAnnoNss, newNs, annoCount), framework.Info))
	}
	return results
}

func visitAllNamespaces(objects []*yaml.RNode, visit nsVisitor) {
	// cluster-scoped resources with namespace fields
	for _, o := range objects {
		if isNamespaceScoped(o) {
			continue
		}
		switch {
		case isGVK(o, "", "v1", "Namespace"):
			name := getString(o, yaml.MetadataField, yaml.NameField)
			visit(originID(o).Name, &name, shortString(o))
			_ = setNestedString(o.YNode(), name, yaml.MetadataField, yaml.NameField)
		case isGVK(o, "apiextensions.k8s.io", "v1", "CustomResourceDefinition"):
			path := []string{"spec", "conversion", "webhook", "clientConfig", "service", "namespace"}
			ns := getString(o, path...)
			visit("", &ns)
			_ = setNestedString(o.YNode(), ns, path...)
		case isGVK(o, "apiregistration.k8s.io", "v1", "APIService"):
			path := []string{"spec", "service", "namespace"}
			ns := getString(o, path...)
			visit("", &ns)
			_ = setNestedString(o.YNode(), ns, path...)
		case getString(o, yaml.KindField) == "ClusterRoleBinding" || getString(o, yaml.KindField) == "RoleBinding":
			for _, s := range nestedSlice(o.YNode(), "subjects") {
				srn := yaml.NewRNode(s)
				ns, found, err := nestedString(srn, "namespace")
				if found && err == nil {
					visit("", &ns)
					_ = setNestedString(s, ns, "namespace")
				}
			}
		}
	}
	// namespace-scoped resources
	for _, o := range objects {
		if !isNamespaceScoped(o) {
			continue
		}
		ns := getString(o, yaml.MetadataField, yaml.NamespaceField)
		visit(originID(o).Namespace, &ns, shortString(o))
		_ = setNestedString(o.YNode(), ns, yaml.MetadataField, yaml.NamespaceField)
	}
}

func updateDependsOn(objects []*yaml.RNode, dependsOnMap map[string]bool, newNs string, matchers ...string) (int, []string) {
	count := 0
	oldNss := map[string]bool{}
	for _, o := range objects {
		anno := annotations(o)[dependsOnAnnotation]
		if anno == "" || !namespacedDependsOnPattern.MatchString(anno) {
			continue
		}
		if !dependsOnMap[anno] {
			continue
		}
		segments := strings.Split(anno, "/")
		if segments[2] == newNs {
			continue
		}
		change := len(matchers) == 0
		for _, m := range matchers {
			if m == segments[2] {
				change = true
			}
		}
		if change {
			oldNss[segments[2]] = true
			segments[2] = newNs
			count++
			_ = setNestedString(o.YNode(), strings.Join(segments, "/"), yaml.MetadataField, yaml.AnnotationsField, dependsOnAnnotation)
		}
	}
	return count, sortedSet(oldNss)
}
