package render

import (
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// resourceIDAnnotation identifies resources across a selective function run
// (kpt's name, so functions see what they would see under kpt).
const resourceIDAnnotation = "internal.config.k8s.io/kpt-resource-id"

// selectInput returns the resources a function with these selectors and
// exclusions sees, exactly as kpt chooses them: with selectors, each resource
// is taken once per selector it matches (in input order); then any resource
// matching a non-empty exclusion is dropped.
func selectInput(input []*yaml.RNode, selectors, exclusions []Selector) []*yaml.RNode {
	var selected []*yaml.RNode
	if len(selectors) == 0 {
		selected = input
	} else {
		for _, n := range input {
			for _, s := range selectors {
				if matches(n, s) {
					selected = append(selected, n)
				}
			}
		}
	}
	if len(exclusions) == 0 {
		return selected
	}
	var out []*yaml.RNode
	for _, n := range selected {
		excluded := false
		for _, e := range exclusions {
			if !e.IsEmpty() && matches(n, e) {
				excluded = true
				break
			}
		}
		if !excluded {
			out = append(out, n)
		}
	}
	return out
}

func matches(n *yaml.RNode, s Selector) bool {
	if s.Name != "" && s.Name != n.GetName() {
		return false
	}
	if s.Namespace != "" && s.Namespace != n.GetNamespace() {
		return false
	}
	if s.Kind != "" && s.Kind != n.GetKind() {
		return false
	}
	if s.APIVersion != "" && s.APIVersion != n.GetApiVersion() {
		return false
	}
	if len(s.Labels) > 0 {
		labels := n.GetLabels()
		for k, v := range s.Labels {
			if nv, ok := labels[k]; !ok || nv != v {
				return false
			}
		}
	}
	if len(s.Annotations) > 0 {
		annos := n.GetAnnotations()
		for k, v := range s.Annotations {
			if nv, ok := annos[k]; !ok || nv != v {
				return false
			}
		}
	}
	return true
}

func setResourceIDs(input []*yaml.RNode) error {
	for i, n := range input {
		if err := n.PipeE(yaml.SetAnnotation(resourceIDAnnotation, strconv.Itoa(i))); err != nil {
			return err
		}
	}
	return nil
}

func deleteResourceIDs(input []*yaml.RNode) error {
	for _, n := range input {
		if err := n.PipeE(yaml.ClearAnnotation(resourceIDAnnotation)); err != nil {
			return err
		}
	}
	return nil
}

// mergeWithInput puts a selective function's output back among the resources
// it did not see, as kpt does: unselected resources keep their place, a
// selected resource is replaced by its output (or dropped if the function
// deleted it), and resources the function created go last.
func mergeWithInput(output, selected, input []*yaml.RNode) []*yaml.RNode {
	idOf := func(n *yaml.RNode) string { return n.GetAnnotations()[resourceIDAnnotation] }
	selIDs := make(map[string]bool, len(selected))
	for _, n := range selected {
		selIDs[idOf(n)] = true
	}
	outByID := make(map[string]*yaml.RNode, len(output))
	for _, n := range output {
		id := idOf(n)
		if _, dup := outByID[id]; !dup {
			outByID[id] = n
		}
	}
	var result []*yaml.RNode
	for _, n := range input {
		id := idOf(n)
		if !selIDs[id] {
			result = append(result, n)
			continue
		}
		if o, ok := outByID[id]; ok {
			result = append(result, o)
		}
	}
	for _, n := range output {
		if idOf(n) == "" {
			result = append(result, n)
		}
	}
	return result
}
