package builtins

import "slices"

// catalogFunctions are the kpt catalog's functions (krm-functions-catalog's
// functions/go and functions/ts), built in or not: an image of one porchbot
// does not build in is refused with what to do instead.
var catalogFunctions = []string{
	"apply-replacements", "apply-setters", "bind", "create-setters", "enable-gcp-services", "ensure-name-substring",
	"export-terraform", "fix", "format", "gatekeeper", "generate-kpt-pkg-docs", "kubeconform", "kubeval", "list-setters",
	"remove-local-config-resources", "render-helm-chart", "search-replace", "set-annotations", "set-enforcement-action",
	"set-gcp-resource-ids", "set-image", "set-labels", "set-name-prefix", "set-namespace", "set-project-id",
	"source-gcloud-config", "starlark", "upsert-resource",
}

// outsideWorld are the catalog functions that read what a server
// rendering packages does not have, which porchbot will not guess at.
var outsideWorld = map[string]string{
	"source-gcloud-config": "it runs `gcloud config list` and `gcloud projects get-ancestors` on the machine that renders, " +
		"reading that machine's gcloud account and project, which a server rendering packages does not have; " +
		"write the values into the package (a ConfigMap, apply-setters) instead",
}

// unreleased are the catalog functions with no release: only unstable
// images, which no Kptfile can pin to one behaviour.
var unreleased = map[string]bool{"bind": true, "generate-kpt-pkg-docs": true, "set-gcp-resource-ids": true}

// notBuiltInWhy says why a catalog function is not built in, and what
// to do instead ("" for a name that is no catalog function, or a built-in).
func notBuiltInWhy(name string) string {
	if why, ok := outsideWorld[name]; ok {
		return "porchbot does not run " + name + ": " + why
	}
	if _, built := Lookup(name); built || !slices.Contains(catalogFunctions, name) {
		return ""
	}
	if unreleased[name] {
		return "the kpt catalog has published no release of " + name + ", only unstable images, so porchbot has no " +
			"behaviour to reproduce: the server's operator can let its image run as a function image (docs/functions.md, " +
			"\"Function images\"), or a repository can run it as an exec function"
	}
	return name + " is a kpt catalog function porchbot does not build in yet: the server's operator can let its image run " +
		"as a function image (docs/functions.md, \"Function images\"), or a repository can run it as an exec function"
}

// isCatalogImage reports whether repo (an image without its tag) is the
// catalog's image of name, or name alone.
func isCatalogImage(repo, name string) bool {
	if repo == name {
		return true
	}
	for _, reg := range catalogRegistries {
		if repo == reg+name {
			return true
		}
	}
	return false
}
