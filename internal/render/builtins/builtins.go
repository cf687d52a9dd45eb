// Package builtins holds porchbot's in-process implementations of the common
// kpt catalog functions (set-namespace, set-labels, set-annotations,
// apply-setters, apply-replacements, search-replace, set-image,
// ensure-name-substring, starlark).
//
// Each built-in reproduces what the catalog function of the same name does
// when kpt runs it in a pipeline (kptdev/krm-functions-catalog, the sources of
// June 2025): the same resources touched, the same field order, comments and
// quoting once kpt writes the package back, and the same results (messages and
// severities).
//
// Besides the function itself, every built-in also performs the bookkeeping
// kpt's function runner does around a container or exec function: it tags the
// input items with the `internal.config.kubernetes.io/id` annotation, and after
// the function ran it copies comments and syncs field order from each input
// item to the matching output item (kyaml's comments.CopyComments and
// order.SyncOrder). That is what makes, say, a re-ordered starlark output come
// back in the original order with its comments. A caller that does that
// bookkeeping itself, as porchbot's render engine does for every function,
// runs the function alone with Bare.ProcessBare.
//
// Error contract: Process returns a non-nil error exactly when the catalog
// function would exit non-zero (kpt then fails the pipeline). Results are
// appended to rl.Results in both cases, as the catalog function reports them.
// Some catalog functions report an error-severity result and still exit 0
// (e.g. set-namespace on a bad functionConfig); those return nil here too.
package builtins

import (
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// A Function is one built-in: it transforms or validates a ResourceList in-process.
type Function interface {
	framework.ResourceListProcessor
}

// Spec describes a built-in for help texts and the "supported functions" error message.
type Spec struct {
	// Name is the catalog function name, e.g. "set-namespace".
	Name string
	// Kind is "mutator", "validator" or "both".
	Kind string
	// Summary is a one-line description.
	Summary string
	// New returns a fresh instance of the function.
	New func() Function
}

// All returns the built-ins, sorted by name.
func All() []Spec {
	specs := []Spec{
		{
			Name:    "apply-replacements",
			Kind:    "mutator",
			Summary: "copy field values between resources (kustomize replacements, ApplyReplacements config)",
			New:     func() Function { return wrap(applyReplacements) },
		},
		{
			Name:    "apply-setters",
			Kind:    "mutator",
			Summary: "set field values tagged with `# kpt-set: ${name}` comments (scalars, arrays, partial patterns)",
			New:     func() Function { return wrap(applySetters) },
		},
		{
			Name:    "ensure-name-substring",
			Kind:    "mutator",
			Summary: "prepend or append a substring to resource names and fix name references",
			New:     func() Function { return wrap(ensureNameSubstring) },
		},
		{
			Name:    "search-replace",
			Kind:    "both",
			Summary: "search fields by path, value, regex or file, and put values or comments",
			New:     func() Function { return wrap(searchReplace) },
		},
		{
			Name:    "set-annotations",
			Kind:    "mutator",
			Summary: "add annotations to resources and pod templates",
			New:     func() Function { return wrap(setAnnotations) },
		},
		{
			Name:    "set-image",
			Kind:    "mutator",
			Summary: "update container image names, tags and digests",
			New:     func() Function { return wrap(setImage) },
		},
		{
			Name:    "set-labels",
			Kind:    "mutator",
			Summary: "add labels to resources, selectors and templates",
			New:     func() Function { return wrap(setLabels) },
		},
		{
			Name:    "set-namespace",
			Kind:    "mutator",
			Summary: "set the namespace of namespace-scoped resources and update depends-on annotations",
			New:     func() Function { return wrap(setNamespace) },
		},
		{
			Name:    "starlark",
			Kind:    "both",
			Summary: "run a Starlark program (StarlarkRun) over the resources",
			New:     func() Function { return wrap(starlarkRun) },
		},
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs
}

// Lookup finds the built-in for a function image, matching by image name
// whatever the registry prefix, tag or digest: "gcr.io/kpt-fn/set-namespace:v0.4.1",
// "ghcr.io/kptdev/krm-functions-catalog/set-namespace:latest", "set-namespace"
// and "docker.io/foo/set-namespace@sha256:..." all find set-namespace.
func Lookup(image string) (Spec, bool) {
	name := ImageName(image)
	for _, s := range All() {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// ImageName returns the last path component of an image reference without
// its tag or digest, lower-cased: the name Lookup matches on.
func ImageName(image string) string {
	s := strings.TrimSpace(image)
	if i := strings.Index(s, "@"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.Index(s, ":"); i >= 0 {
		s = s[:i]
	}
	return strings.ToLower(s)
}

// Names returns the names of all built-ins, sorted.
func Names() []string {
	var names []string
	for _, s := range All() {
		names = append(names, s.Name)
	}
	return names
}
