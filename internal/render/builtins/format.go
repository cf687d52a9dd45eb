package builtins

import (
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
)

// format (catalog v0.1.0, kyaml v0.10's function framework): kyaml's format
// filter with the Kubernetes schema. Each resource's fields are sorted
// (kyaml's field order, then by name), scalars are quoted or unquoted by
// their schema type (`replicas: "3"` becomes 3, a string field's `yes`
// becomes "yes"), and the lists kyaml knows (containers by name, ports,
// ...) are sorted; a resource annotated `config.kubernetes.io/formatting:
// none` is left alone, any other value of it fails the function. kpt then
// puts the fields back in the input's order, and the comments where they
// were, by position. The filter is kyaml's own, unchanged since the
// release; the schema is kyaml's of Kubernetes 1.21 where the release had
// 1.20's.
func formatV010(rl *framework.ResourceList) error {
	if _, err := (filters.FormatFilter{UseSchema: true}).Filter(rl.Items); err != nil {
		// the release prints it on stderr (and on stdout)
		return Failure{"failed to format resources: " + err.Error()}
	}
	return nil
}
