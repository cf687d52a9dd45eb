package builtins

import (
	"fmt"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/comments"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/order"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// processFunc is the body of a built-in: what the catalog function itself does.
type processFunc func(rl *framework.ResourceList) error

// kptFunction runs a processFunc the way kpt's function runner runs a
// container or exec function (kyaml runtimeutil.FunctionFilter):
//
//   - each input item gets the id annotations (internal.config.kubernetes.io/id
//     and config.k8s.io/id), numbered from 1 in input order;
//   - the items and the functionConfig are handed over serialized, i.e. the
//     function sees freshly parsed nodes (resolved tags, no shared pointers);
//   - afterwards, comments are copied and field order is synced from each input
//     item to the output item with the same id, and the id annotations are
//     removed again (or restored to the values they had before, when porchbot
//     itself runs under kpt as an exec function).
type kptFunction struct {
	fn processFunc
}

func wrap(fn processFunc) Function { return &kptFunction{fn: fn} }

type idRecord struct {
	input          *yaml.RNode
	id, legacyID   *string // values before we set ours, nil if absent
	hadAnnotations bool
	hadMetadata    bool
}

func (k *kptFunction) Process(rl *framework.ResourceList) error {
	// Hand the function freshly parsed copies, as if it read them from stdin;
	// the caller's nodes are never modified.
	items := make([]*yaml.RNode, 0, len(rl.Items))
	for _, item := range rl.Items {
		items = append(items, reparse(item))
	}
	rl.Items = items
	if rl.FunctionConfig != nil {
		rl.FunctionConfig = reparse(rl.FunctionConfig)
	}

	records := map[string]*idRecord{}
	n := 0
	for _, item := range rl.Items {
		if item == nil || item.YNode() == nil || item.YNode().Kind != yaml.MappingNode {
			continue
		}
		n++
		idStr := strconv.Itoa(n)
		rec := &idRecord{
			id:             annotationValue(item, kioutil.IdAnnotation),
			legacyID:       annotationValue(item, kioutil.LegacyIdAnnotation),
			hadAnnotations: hasPath(item, yaml.MetadataField, yaml.AnnotationsField),
			hadMetadata:    hasPath(item, yaml.MetadataField),
		}
		if err := item.PipeE(yaml.SetAnnotation(kioutil.IdAnnotation, idStr)); err != nil {
			return fmt.Errorf("failed to set %s: %w", kioutil.IdAnnotation, err)
		}
		if err := item.PipeE(yaml.SetAnnotation(kioutil.LegacyIdAnnotation, idStr)); err != nil {
			return fmt.Errorf("failed to set %s: %w", kioutil.LegacyIdAnnotation, err)
		}
		rec.input = item.Copy()
		records[idStr] = rec
	}

	fnErr := k.fn(rl)

	for _, out := range rl.Items {
		if out == nil || out.YNode() == nil || out.YNode().Kind != yaml.MappingNode {
			continue
		}
		idStr := ""
		if v := annotationValue(out, kioutil.IdAnnotation); v != nil {
			idStr = *v
		} else if v := annotationValue(out, kioutil.LegacyIdAnnotation); v != nil {
			idStr = *v
		}
		rec, ok := records[idStr]
		if idStr == "" || !ok {
			continue
		}
		if err := comments.CopyComments(rec.input, out); err != nil && fnErr == nil {
			fnErr = err
		}
		if err := order.SyncOrder(rec.input, out); err != nil && fnErr == nil {
			fnErr = err
		}
		restoreAnnotation(out, kioutil.IdAnnotation, rec.id)
		restoreAnnotation(out, kioutil.LegacyIdAnnotation, rec.legacyID)
		if !rec.hadAnnotations {
			_, _ = out.Pipe(yaml.Lookup(yaml.MetadataField), yaml.FieldClearer{Name: yaml.AnnotationsField, IfEmpty: true})
			if !rec.hadMetadata {
				_, _ = out.Pipe(yaml.FieldClearer{Name: yaml.MetadataField, IfEmpty: true})
			}
		}
	}
	return fnErr
}

func reparse(rn *yaml.RNode) *yaml.RNode {
	if rn == nil || rn.YNode() == nil {
		return rn
	}
	s, err := rn.String()
	if err != nil {
		return rn.Copy()
	}
	out, err := yaml.Parse(s)
	if err != nil {
		return rn.Copy()
	}
	return out
}

func annotationValue(rn *yaml.RNode, key string) *string {
	v, err := rn.Pipe(yaml.Lookup(yaml.MetadataField, yaml.AnnotationsField, key))
	if err != nil || v == nil || v.YNode().Kind != yaml.ScalarNode {
		return nil
	}
	s := v.YNode().Value
	return &s
}

func hasPath(rn *yaml.RNode, path ...string) bool {
	v, err := rn.Pipe(yaml.Lookup(path...))
	return err == nil && v != nil
}

func restoreAnnotation(rn *yaml.RNode, key string, value *string) {
	if value == nil {
		_, _ = rn.Pipe(yaml.ClearAnnotation(key))
		return
	}
	_ = rn.PipeE(yaml.SetAnnotation(key, *value))
}
