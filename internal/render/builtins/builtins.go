// Package builtins holds porchbot's in-process implementations of the common
// kpt catalog functions (set-namespace, set-labels, set-annotations,
// apply-setters, apply-replacements, search-replace, set-image,
// ensure-name-substring, starlark, upsert-resource, export-terraform,
// remove-local-config-resources, set-name-prefix, create-setters,
// list-setters, format, render-helm-chart, fix) and validators (gatekeeper, kubeconform, kubeval).
//
// Each built-in reproduces what the catalog function of the same name does
// when kpt runs it in a pipeline, release by release: Resolve ties an image's
// tag to a catalog release (releases.go lists them, and which ones porchbot
// reproduces), and a tag porchbot cannot tie to a release it reproduces is
// refused rather than run with another release's behaviour. For a release it
// reproduces, a built-in gives the same resources touched, the same field order, comments and
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
	// New returns a fresh instance reproducing the newest release porchbot
	// runs (the one `porchbot fn <name>` runs).
	New func() Function
	// releases are the catalog's releases of the function, oldest first,
	// with the behaviour reproducing each (see Resolve).
	releases []release
}

// All returns the built-ins, sorted by name.
func All() []Spec {
	specs := []Spec{
		{
			Name:     "apply-replacements",
			Kind:     "mutator",
			Summary:  "copy field values between resources (kustomize replacements, ApplyReplacements config)",
			releases: applyReplacementsReleases(),
		},
		{
			Name:     "apply-setters",
			Kind:     "mutator",
			Summary:  "set field values tagged with `# kpt-set: ${name}` comments (scalars, arrays, partial patterns)",
			releases: applySettersReleases(),
		},
		{
			Name:     "create-setters",
			Kind:     "mutator",
			Summary:  "add `# kpt-set: ${name}` comments to the fields holding the setters' values",
			releases: createSettersReleases(),
		},
		{
			Name:     "enable-gcp-services",
			Kind:     "mutator",
			Summary:  "generate the serviceusage Service resources of the package's ProjectServiceSets",
			releases: releases(enableGCPServices, "v0.1.0"),
		},
		{
			Name:     "ensure-name-substring",
			Kind:     "mutator",
			Summary:  "prepend or append a substring to resource names and fix name references",
			releases: ensureNameSubstringReleases(),
		},
		{
			Name:     "export-terraform",
			Kind:     "mutator",
			Summary:  "write the package's Config Connector resources as Terraform (the ConfigMap terraform, terraform.yaml)",
			releases: exportTerraformReleases(),
		},
		{
			Name:     "fix",
			Kind:     "mutator",
			Summary:  "migrate kpt v0.x packages: Kptfile to v1, openAPI setters to apply-setters and `# kpt-set:` comments, function configs to the pipeline",
			releases: fixReleases(),
		},
		{
			Name:     "format",
			Kind:     "mutator",
			Summary:  "format resources with kyaml's format filter and the Kubernetes schema",
			releases: formatReleases(),
		},
		{
			Name:     "gatekeeper",
			Kind:     "validator",
			Summary:  "validate resources against the package's Gatekeeper ConstraintTemplates and constraints (Rego, by OPA)",
			releases: gatekeeperReleases(),
		},
		{
			Name:     "kubeconform",
			Kind:     "validator",
			Summary:  "validate resources against the JSON schemas of their kinds (kubeconform's wording)",
			releases: kubeconformReleases(),
		},
		{
			Name:     "kubeval",
			Kind:     "validator",
			Summary:  "validate resources against the JSON schemas of their kinds (kubeval's wording)",
			releases: kubevalCatalogReleases(),
		},
		{
			Name:     "list-setters",
			Kind:     "both",
			Summary:  "report the setters of the Kptfile's apply-setters and of `# kpt-set:` comments",
			releases: listSettersReleases(),
		},
		{
			Name:     "remove-local-config-resources",
			Kind:     "mutator",
			Summary:  "drop the resources annotated config.kubernetes.io/local-config: \"true\"",
			releases: removeLocalConfigResourcesReleases(),
		},
		{
			Name:     "render-helm-chart",
			Kind:     "mutator",
			Summary:  "render Helm charts, from the package or an allowed chart repository, into resources (helm template)",
			releases: renderHelmChartReleases(),
		},
		{
			Name:     "search-replace",
			Kind:     "both",
			Summary:  "search fields by path, value, regex or file, and put values or comments",
			releases: searchReplaceReleases(),
		},
		{
			Name:     "set-annotations",
			Kind:     "mutator",
			Summary:  "add annotations to resources and pod templates",
			releases: setAnnotationsReleases(),
		},
		{
			Name:     "set-enforcement-action",
			Kind:     "mutator",
			Summary:  "set spec.enforcementAction (deny, warn, dryrun) of the package's Gatekeeper constraints",
			releases: releases(setEnforcementAction, "v0.1.0"),
		},
		{
			Name:     "set-image",
			Kind:     "mutator",
			Summary:  "update container image names, tags and digests",
			releases: setImageReleases(),
		},
		{
			Name:     "set-labels",
			Kind:     "mutator",
			Summary:  "add labels to resources, selectors and templates",
			releases: setLabelsReleases(),
		},
		{
			Name:     "set-name-prefix",
			Kind:     "mutator",
			Summary:  "rename packagename-* resources after the package, and the references to them",
			releases: setNamePrefixReleases(),
		},
		{
			Name:     "set-namespace",
			Kind:     "mutator",
			Summary:  "set the namespace of namespace-scoped resources and update depends-on annotations",
			releases: setNamespaceReleases(),
		},
		{
			Name:    "set-project-id",
			Kind:    "mutator",
			Summary: "set the project-id setter of the Kptfiles' apply-setters and Config Connector resources' project annotation",
			releases: onOldFramework(append(releases(setProjectID{setters: "gcr.io/kpt-fn/apply-setters:v0.1"}.process, "v0.1.0"),
				releases(setProjectID{setters: "gcr.io/kpt-fn/apply-setters:v0.2"}.process, "v0.2.0")...)),
		},
		{
			Name:     "starlark",
			Kind:     "both",
			Summary:  "run a Starlark program (StarlarkRun) over the resources",
			releases: starlarkReleases(),
		},
		{
			Name:     "upsert-resource",
			Kind:     "mutator",
			Summary:  "replace the resources of the functionConfig's kind and name with it, or add it",
			releases: upsertResourceReleases(),
		},
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	for i := range specs {
		for _, r := range specs[i].releases {
			if r.new != nil {
				specs[i].New = r.new
			}
		}
	}
	return specs
}

// Lookup finds which built-in an image would be, by image name alone
// whatever the registry prefix, tag or digest: "gcr.io/kpt-fn/set-namespace:v0.4.1",
// "set-namespace" and "docker.io/foo/set-namespace@sha256:..." all find
// set-namespace. It does not decide whether the image runs, nor as which
// release: Resolve does, and a render resolves every image first.
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
