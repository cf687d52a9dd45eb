package builtins

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/resid"
	kyamlutils "sigs.k8s.io/kustomize/kyaml/utils"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// apply-replacements v0.1.0 (and the v0.1.1 image, see releases.go): the
// replacements of kustomize/api v0.10, which the release was built with.
// It differs from today's in three ways (testdata/builtin-versions/
// apply-replacements):
//   - a target takes the whole source node, not only its value: its quoting
//     style, tag and comments come along (kpt then gives back a comment the
//     target had and the source has not);
//   - a target field that is missing (and not to be created) is skipped
//     silently, where today it is an error;
//   - field paths are looked up as kyaml's Lookup does (`[name=x]`, list
//     indexes), with no wildcards.

func applyReplacementsV010(rl *framework.ResourceList) error {
	fc := rl.FunctionConfig
	fail := func(err error) error {
		rl.Results = append(rl.Results, errorResult(err))
		return ErrResultsOnly
	}
	if isEmptyConfig(fc) {
		// the release dereferences the missing config; its SDK turns the
		// panic into this result
		return fail(fmt.Errorf("runtime error: invalid memory address or nil pointer dereference"))
	}
	replacements, err := replacementsOf(fc)
	if err != nil {
		return fail(err)
	}
	for _, r := range replacements {
		if err := replaceV010(rl.Items, r); err != nil {
			return fail(err)
		}
	}
	return nil
}

// replaceV010 applies one replacement.
func replaceV010(nodes []*yaml.RNode, r types.Replacement) error {
	if r.Source == nil || r.Targets == nil {
		return fmt.Errorf("replacements must specify a source and at least one target")
	}
	value, err := sourceValueV010(nodes, r.Source)
	if err != nil {
		return err
	}
	for _, t := range r.Targets {
		if t.Select == nil {
			return fmt.Errorf("target must specify resources to select")
		}
		paths := t.FieldPaths
		if len(paths) == 0 {
			paths = []string{types.DefaultReplacementFieldPath}
		}
		for _, n := range nodes {
			ok, err := selectedByMetaV010(n, t)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			for _, id := range resIdsV010(n) {
				if id.IsSelectedBy(t.Select.ResId) && !rejectedIDV010(t.Reject, id) {
					if err := applyToNodeV010(n, value, paths, t.Options); err != nil {
						return err
					}
					break
				}
			}
		}
	}
	return nil
}

// resIdsV010 is the resource's id and its previous ids (kustomize's
// build annotations, which a kpt package normally has none of).
func resIdsV010(n *yaml.RNode) []resid.ResId {
	r := resource.Resource{RNode: *n}
	return append([]resid.ResId{r.CurId()}, r.PrevIds()...)
}

// selectedByMetaV010 applies the target's label and annotation selectors
// and those of its rejects.
func selectedByMetaV010(n *yaml.RNode, t *types.TargetSelector) (bool, error) {
	if ok, err := matchesMetaV010(n, t.Select); !ok || err != nil {
		return false, err
	}
	for _, reject := range t.Reject {
		if reject.AnnotationSelector == "" && reject.LabelSelector == "" {
			continue
		}
		if ok, err := matchesMetaV010(n, reject); ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

func matchesMetaV010(n *yaml.RNode, s *types.Selector) (bool, error) {
	r := resource.Resource{RNode: *n}
	annos, err := r.MatchesAnnotationSelector(s.AnnotationSelector)
	if err != nil {
		return false, err
	}
	labels, err := r.MatchesLabelSelector(s.LabelSelector)
	if err != nil {
		return false, err
	}
	return annos && labels, nil
}

func rejectedIDV010(rejects []*types.Selector, id resid.ResId) bool {
	for _, r := range rejects {
		if !r.ResId.IsEmpty() && id.IsSelectedBy(r.ResId) {
			return true
		}
	}
	return false
}

// applyToNodeV010 sets every field path of n that exists (or, with create,
// is created) to a copy of the source node.
func applyToNodeV010(n, value *yaml.RNode, paths []string, options *types.FieldOptions) error {
	for _, fp := range paths {
		path := kyamlutils.SmarterPathSplitter(fp, ".")
		var t *yaml.RNode
		var err error
		if options != nil && options.Create {
			t, err = n.Pipe(yaml.LookupCreate(value.YNode().Kind, path...))
		} else {
			t, err = n.Pipe(yaml.Lookup(path...))
		}
		if err != nil {
			return err
		}
		if t == nil {
			continue
		}
		v := value.Copy()
		if options != nil && options.Delimiter != "" {
			if t.YNode().Kind != yaml.ScalarNode {
				return fmt.Errorf("delimiter option can only be used with scalar nodes")
			}
			parts := strings.Split(t.YNode().Value, options.Delimiter)
			s := yaml.GetValue(v)
			switch {
			case options.Index < 0:
				parts = append([]string{s}, parts...)
			case options.Index >= len(parts):
				parts = append(parts, s)
			default:
				parts[options.Index] = s
			}
			v.YNode().Value = strings.Join(parts, options.Delimiter)
		}
		t.SetYNode(v.YNode())
	}
	return nil
}

// sourceValueV010 is the source's node at its field path, cut by the
// source's delimiter options.
func sourceValueV010(nodes []*yaml.RNode, s *types.SourceSelector) (*yaml.RNode, error) {
	var source *yaml.RNode
	for _, n := range nodes {
		for _, id := range resIdsV010(n) {
			if id.IsSelectedBy(s.ResId) {
				if source != nil {
					return nil, fmt.Errorf("multiple matches for selector %s", s)
				}
				source = n
				break
			}
		}
	}
	if source == nil {
		return nil, fmt.Errorf("nothing selected by %s", s)
	}
	fieldPath := s.FieldPath
	if fieldPath == "" {
		fieldPath = types.DefaultReplacementFieldPath
	}
	rn, err := source.Pipe(yaml.Lookup(kyamlutils.SmarterPathSplitter(fieldPath, ".")...))
	if err != nil {
		return nil, err
	}
	if rn.IsNilOrEmpty() {
		return nil, fmt.Errorf("fieldPath `%s` is missing for replacement source %s", fieldPath, s)
	}
	if s.Options == nil || s.Options.Delimiter == "" {
		return rn, nil
	}
	if rn.YNode().Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("delimiter option can only be used with scalar nodes")
	}
	parts := strings.Split(yaml.GetValue(rn), s.Options.Delimiter)
	if s.Options.Index >= len(parts) || s.Options.Index < 0 {
		return nil, fmt.Errorf("options.index %d is out of bounds for value %s", s.Options.Index, yaml.GetValue(rn))
	}
	c := rn.Copy()
	c.YNode().Value = parts[s.Options.Index]
	return c, nil
}
