package builtins

import (
	"path"
	"strings"
)

// constraintMatches decides, as Gatekeeper's Kubernetes target does,
// whether a constraint's spec.match selects the reviewed object: its
// kinds, namespaces and excludedNamespaces, namespaceSelector (the
// namespace as the inventory holds it), scope and labelSelector, all of
// them. Gatekeeper v3.7's target (v37) also reads name, and takes a
// trailing * in name, namespaces and excludedNamespaces for a prefix;
// v3.4's compares namespaces whole and selects every name.
func constraintMatches(constraint, review, inv map[string]any, v37 bool) bool {
	spec := mapOf(constraint["spec"])
	match := mapOf(spec["match"])
	return kindsMatch(match, review) && namespacesMatch(match, review, v37) && notExcluded(match, review, v37) &&
		namespaceSelectorMatches(match, review, inv) && scopeMatches(match, review) && (!v37 || nameMatches(match, review)) &&
		labelSelectorMatches(mapOf(match["labelSelector"]), labelsOf(review["object"]))
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	return m
}

func stringsOf(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// has is whether a match field is given (null counts as given: the
// target tests for the field, not its value).
func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func kindsMatch(match, review map[string]any) bool {
	kind := mapOf(review["kind"])
	selectors, ok := match["kinds"].([]any)
	if !ok || match["kinds"] == nil {
		return true // every kind
	}
	for _, s := range selectors {
		ks := mapOf(s)
		if anyOf(stringsOf(ks["apiGroups"]), kind["group"]) && anyOf(stringsOf(ks["kinds"]), kind["kind"]) {
			return true
		}
	}
	return false
}

// anyOf is whether l holds "*" or v.
func anyOf(l []string, v any) bool {
	for _, x := range l {
		if x == "*" || x == v {
			return true
		}
	}
	return false
}

// isNamespace is whether the reviewed object is a Namespace.
func isNamespace(review map[string]any) bool {
	k := mapOf(review["kind"])
	return k["group"] == "" && k["kind"] == "Namespace"
}

// clusterScoped: the namespace fields of a match do not apply (a
// cluster-scoped object that is not a Namespace).
func clusterScoped(review map[string]any) bool {
	ns, _ := review["namespace"].(string)
	return !isNamespace(review) && ns == ""
}

// namespaceName is the namespace the namespace fields test: a
// Namespace's own name, another object's namespace.
func namespaceName(review map[string]any) (string, bool) {
	if isNamespace(review) {
		n, ok := mapOf(mapOf(review["object"])["metadata"])["name"].(string)
		return n, ok
	}
	n, ok := review["namespace"].(string)
	return n, ok
}

func namespacesMatch(match, review map[string]any, prefixes bool) bool {
	if !has(match, "namespaces") || clusterScoped(review) {
		return true
	}
	ns, ok := namespaceName(review)
	return ok && namesOrPrefixes(stringsOf(match["namespaces"]), ns, prefixes)
}

func notExcluded(match, review map[string]any, prefixes bool) bool {
	if !has(match, "excludedNamespaces") || clusterScoped(review) {
		return true
	}
	ns, ok := namespaceName(review)
	return ok && !namesOrPrefixes(stringsOf(match["excludedNamespaces"]), ns, prefixes)
}

// namesOrPrefixes is whether s is one of l, or, with prefixes, matches an
// entry of l that ends in * (a glob).
func namesOrPrefixes(l []string, s string, prefixes bool) bool {
	for _, x := range l {
		if x == s {
			return true
		}
		if prefixes && strings.HasSuffix(x, "*") && globMatch(x, s) {
			return true
		}
	}
	return false
}

func namespaceSelectorMatches(match, review, inv map[string]any) bool {
	if !has(match, "namespaceSelector") || clusterScoped(review) {
		return true
	}
	sel := mapOf(match["namespaceSelector"])
	if isNamespace(review) {
		return labelSelectorMatches(sel, labelsOf(review["object"]))
	}
	ns, _ := review["namespace"].(string)
	obj, ok := mapOf(mapOf(mapOf(inv["cluster"])["v1"])["Namespace"])[ns]
	return ok && labelSelectorMatches(sel, labelsOf(obj))
}

func scopeMatches(match, review map[string]any) bool {
	if !has(match, "scope") {
		return true
	}
	ns, _ := review["namespace"].(string)
	switch match["scope"] {
	case "*":
		return true
	case "Namespaced":
		return ns != ""
	case "Cluster":
		return ns == ""
	}
	return false
}

func nameMatches(match, review map[string]any) bool {
	if !has(match, "name") {
		return true
	}
	want, _ := match["name"].(string)
	for _, n := range []any{review["name"], mapOf(mapOf(review["object"])["metadata"])["name"]} {
		s, ok := n.(string)
		if !ok {
			continue
		}
		if s == want {
			return true
		}
		if strings.HasSuffix(want, "*") && globMatch(want, s) {
			return true
		}
	}
	return false
}

// globMatch is Rego's glob.match(pattern, [], s): its default delimiter
// is ".", which a * does not cross.
func globMatch(pattern, s string) bool {
	ok, _ := path.Match(strings.ReplaceAll(pattern, ".", "/"), strings.ReplaceAll(s, ".", "/"))
	return ok
}

func labelsOf(obj any) map[string]any { return mapOf(mapOf(mapOf(obj)["metadata"])["labels"]) }

// labelSelectorMatches is a Kubernetes label selector as the target
// evaluates it: every matchLabels entry, and no matchExpressions entry
// violated (In: the key present with one of the values; NotIn: not the
// key with one of the values; Exists; DoesNotExist).
func labelSelectorMatches(sel, labels map[string]any) bool {
	for k, v := range mapOf(sel["matchLabels"]) {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	exprs, _ := sel["matchExpressions"].([]any)
	for _, e := range exprs {
		em := mapOf(e)
		key, _ := em["key"].(string)
		values := stringsOf(em["values"])
		lv, present := labels[key]
		in := false
		for _, v := range values {
			if lv == v {
				in = true
			}
		}
		switch em["operator"] {
		case "In":
			if !present || len(values) > 0 && !in {
				return false
			}
		case "NotIn":
			if present && len(values) > 0 && in {
				return false
			}
		case "Exists":
			if !present {
				return false
			}
		case "DoesNotExist":
			if present {
				return false
			}
		}
	}
	return true
}
