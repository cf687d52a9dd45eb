package builtins

import (
	"fmt"
	"io"
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
	// unreconciled: see Unreconciled
	unreconciled bool
}

func wrap(fn processFunc) Function { return &kptFunction{fn: fn} }

// Bare is implemented by every built-in Function. ProcessBare runs the
// catalog function alone, as the catalog function's own program runs it on
// the ResourceList it read from stdin, without the runner bookkeeping Process
// adds. It is for callers that do kpt's bookkeeping themselves (porchbot's
// render engine), which must guarantee, as kpt's function runner does:
//
//   - rl.Items are nodes the function may modify and return (fresh copies of
//     the caller's resources, one top-level mapping node each, nothing shared
//     with the caller's nodes or between items), tagged as the YAML decoder
//     tags what it reads (a node made in process without a tag gets the tag
//     it would have once written and read back);
//   - each item carries the id annotations (internal.config.kubernetes.io/id
//     and config.k8s.io/id) when the caller needs to match outputs to inputs;
//   - afterwards the caller copies comments and syncs field order from each
//     input resource to the output with the same id, and removes the ids.
//
// The functionConfig is not modified (the function works on a copy of it).
// Results and the error are as for Process.
type Bare interface {
	ProcessBare(rl *framework.ResourceList) error
}

// Unreconciled is implemented by every built-in Function. It reports
// whether the release ran on kyaml v0.10–v0.11's function framework, which wrote
// the items back with their annotations as the function left them: a caller
// that runs ProcessBare in kyaml's later framework.Execute (which, when the
// function changed a legacy path or index annotation and not the internal
// one, or the other way round, updates the other) runs it without that
// reconciliation for these releases, as kpt ran them. kpt's own checks of
// the paths after the function, and its pipeline's reconciliation, stay.
type Unreconciled interface {
	Unreconciled() bool
}

// StderrUser is a built-in whose release writes to stderr while it passes
// (export-terraform's diagnostics), which kpt records in the function's
// results: the caller says where to write it (by default, nowhere).
type StderrUser interface {
	UseStderr(w io.Writer)
}

// Unreconciled implements Unreconciled.
func (k *kptFunction) Unreconciled() bool { return k.unreconciled }

// ProcessBare implements Bare.
func (k *kptFunction) ProcessBare(rl *framework.ResourceList) error {
	if rl.FunctionConfig != nil {
		// as read from stdin; small, and never written back
		rl.FunctionConfig = reparse(rl.FunctionConfig)
	}
	return k.fn(rl)
}

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

// reparse returns a copy of rn as a function reading it from a ResourceList
// sees it: encoded and decoded again (tags resolved, styles as written,
// nothing shared with rn).
//
// The comments on the resource's top node stay on that node. In a
// ResourceList they precede or follow the item (`# c` above `- apiVersion:`)
// and decode onto the item's node, which is where kpt puts a file's header
// comment after a function ran. A standalone document would give a head
// comment to its first key instead; kpt's comment copy would then restore it
// on the node as well, and the header would come out twice.
func reparse(rn *yaml.RNode) *yaml.RNode {
	if rn == nil || rn.YNode() == nil {
		return rn
	}
	top := rn.YNode()
	bare := *top
	bare.HeadComment, bare.LineComment, bare.FootComment = "", "", ""
	doc := &bare
	if d := rn.Document(); d != top && d != nil && len(d.Content) > 0 {
		dc := *d
		dc.Content = append([]*yaml.Node{&bare}, d.Content[1:]...)
		doc = &dc
	}
	s, err := yaml.String(doc)
	if err != nil {
		return rn.Copy()
	}
	out, err := yaml.Parse(s)
	if err != nil || out.YNode() == nil {
		return rn.Copy()
	}
	n := out.YNode()
	n.HeadComment, n.LineComment, n.FootComment = top.HeadComment, top.LineComment, top.FootComment
	if rn.Document() == top {
		// a ResourceList item: no document around it either
		return yaml.NewRNode(n)
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
