package kptfile

import (
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// RemoveFunctionsNamed removes the pipeline functions whose name starts
// with prefix (a PackageVariant's, to prepend them again: the pipeline of a
// variant applied twice has its functions once), and the pipeline if
// nothing is left in it. No function matching: nothing is edited.
func (f *File) RemoveFunctionsNamed(prefix string) error {
	match := func(fn Function) bool { return strings.HasPrefix(fn.Name, prefix) }
	p := f.k.Pipeline
	if p == nil || !slices.ContainsFunc(p.Mutators, match) && !slices.ContainsFunc(p.Validators, match) {
		return nil
	}
	return f.Edit(func(doc *yaml.RNode) error {
		pl := lookup(root(doc), "pipeline")
		if pl == nil || pl.Kind != yaml.MappingNode {
			return nil
		}
		for _, key := range pipelineFields {
			seq := lookup(pl, key)
			if seq == nil || seq.Kind != yaml.SequenceNode {
				continue
			}
			seq.Content = slices.DeleteFunc(seq.Content, func(n *yaml.Node) bool {
				name := lookup(n, "name")
				return name != nil && strings.HasPrefix(name.Value, prefix)
			})
			if len(seq.Content) == 0 {
				removeField(pl, key)
			}
		}
		removeIfEmpty(root(doc), "pipeline")
		return nil
	})
}
