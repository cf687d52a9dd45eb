package builtins

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// remove-local-config-resources (catalog v0.1.0, kyaml v0.11's function
// framework): drops every item whose `config.kubernetes.io/local-config`
// annotation is "true" in any case ("TRUE" too; "yes" is no), the Kptfile
// and function configs included, so that kpt deletes their files. It takes
// no config. Its results: an info result counting the items dropped, then
// one naming each with its file; or, with none dropped, a warning. Empty
// items are dropped without a word.
func removeLocalConfigResources(rl *framework.ResourceList) error {
	var kept []*yaml.RNode
	var named framework.Results
	for _, n := range rl.Items {
		if n.IsNilOrEmpty() {
			continue
		}
		a := n.GetAnnotations()
		if strings.ToLower(a[localConfigAnnotation]) != "true" {
			kept = append(kept, n)
			continue
		}
		path := a[kioutil.PathAnnotation]
		if path == "" {
			path = a[kioutil.LegacyPathAnnotation] //nolint:staticcheck
		}
		named = append(named, &framework.Result{
			Message:  fmt.Sprintf("Resource name: [%s]", n.GetName()),
			Severity: framework.Info,
			File:     &framework.File{Path: path},
		})
	}
	rl.Items = kept
	if len(named) == 0 {
		rl.Results = append(rl.Results, result("Found no resources to prune with the local config annotation", framework.Warning))
		return nil
	}
	rl.Results = append(rl.Results, result(fmt.Sprintf("Number of resources pruned: %d", len(named)), framework.Info))
	rl.Results = append(rl.Results, named...)
	return nil
}
