package kptfile

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/merge3"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"
)

// Marshal writes k as kpt writes a Kptfile it changed: the fields in kpt's
// order, maps sorted, sequences indented wide. (The comments and layout of
// the original are not kept: kpt does not keep them either.)
func Marshal(k *Kptfile) ([]byte, error) {
	b, err := yaml.MarshalWithOptions(k, &yaml.EncoderOptions{SeqIndent: yaml.WideSequenceStyle})
	if err != nil {
		return nil, fmt.Errorf("kptfile: marshal: %w", err)
	}
	return b, nil
}

// VisitorFactory makes the walk.Visitor of a Kptfile merge from the updated
// and origin documents the walk reads (so that a visitor which records
// conflicts can name their field paths). Nil means kyaml's merge3.Visitor.
type VisitorFactory func(updated, origin *yaml.RNode) walk.Visitor

// fnKeyPrefix names the functions of a pipeline for the merge when none of
// them has a name (kpt's synthetic merge key).
const fnKeyPrefix = "_kpt-merge_"

// Merge3 is the 3-way merge of `kpt pkg update` applied to a Kptfile: local
// changed from origin to updated. As kpt, it merges the annotations, labels,
// info, pipeline, inventory and status (functions of a pipeline matched by
// name, or by image without tag / exec when no function has a name), keeps
// local's name, namespace, upstream and upstreamLock, and returns the
// result; none of the inputs is changed. A nil input is an empty Kptfile.
func Merge3(local, updated, origin *Kptfile, vf VisitorFactory) (*Kptfile, error) {
	l, u, o := cloneKptfile(local), cloneKptfile(updated), cloneKptfile(origin)
	synthetic := pipelinesUnnamed(l, u, o)
	if synthetic {
		for _, k := range []*Kptfile{l, u, o} {
			nameFunctions(k)
		}
	}
	docs := make([]*yaml.RNode, 3)
	for i, k := range []*Kptfile{l, o, u} {
		b, err := yaml.Marshal(k)
		if err != nil {
			return nil, fmt.Errorf("kptfile: merge: %w", err)
		}
		if docs[i], err = yaml.Parse(string(b)); err != nil {
			return nil, fmt.Errorf("kptfile: merge: %w", err)
		}
	}
	var v walk.Visitor = merge3.Visitor{}
	if vf != nil {
		v = vf(docs[2], docs[1])
	}
	merged, err := walk.Walker{
		InferAssociativeLists: true,
		VisitKeysAsScalars:    true,
		Visitor:               v,
		Sources:               docs,
	}.Walk()
	if err != nil {
		return nil, fmt.Errorf("kptfile: merge: %w", err)
	}
	s, err := merged.String()
	if err != nil {
		return nil, fmt.Errorf("kptfile: merge: %w", err)
	}
	var m Kptfile
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("kptfile: merge: %w", err)
	}
	if synthetic {
		unnameFunctions(&m)
	}
	out := cloneKptfile(local)
	out.Metadata.Annotations = m.Metadata.Annotations
	out.Metadata.Labels = m.Metadata.Labels
	out.Info = m.Info
	out.Pipeline = m.Pipeline
	out.Inventory = m.Inventory
	out.Status = m.Status
	return out, nil
}

// cloneKptfile deep-copies k through YAML (nil → empty Kptfile).
func cloneKptfile(k *Kptfile) *Kptfile {
	c := &Kptfile{}
	if k == nil {
		return c
	}
	b, err := yaml.Marshal(k)
	if err == nil && yaml.Unmarshal(b, c) == nil {
		c.Status = cloneStatus(k.Status, c.Status)
		return c
	}
	*c = *k
	return c
}

func cloneStatus(orig, copied *Status) *Status {
	if orig != nil && copied != nil {
		copied.HasRenderStatus = orig.HasRenderStatus
	}
	return copied
}

// pipelinesUnnamed reports whether no function of any of the Kptfiles has a
// name and no list names the same function key twice: then functions are
// merged by their key (image without tag, or exec).
func pipelinesUnnamed(ks ...*Kptfile) bool {
	for _, k := range ks {
		if k.Pipeline == nil {
			continue
		}
		for _, fns := range [][]Function{k.Pipeline.Mutators, k.Pipeline.Validators} {
			seen := map[string]bool{}
			for _, fn := range fns {
				if fn.Name != "" {
					return false
				}
				key := functionKey(fn)
				if seen[key] {
					return false
				}
				seen[key] = true
			}
		}
	}
	return true
}

func functionKey(fn Function) string {
	if fn.Exec != "" {
		return fn.Exec
	}
	image, _, _ := strings.Cut(fn.Image, ":")
	return image
}

func nameFunctions(k *Kptfile) {
	if k.Pipeline == nil {
		return
	}
	for _, fns := range [][]Function{k.Pipeline.Mutators, k.Pipeline.Validators} {
		for i := range fns {
			if fns[i].Name == "" {
				fns[i].Name = fnKeyPrefix + functionKey(fns[i])
			}
		}
	}
}

func unnameFunctions(k *Kptfile) {
	if k.Pipeline == nil {
		return
	}
	for _, fns := range [][]Function{k.Pipeline.Mutators, k.Pipeline.Validators} {
		for i := range fns {
			if strings.HasPrefix(fns[i].Name, fnKeyPrefix) {
				fns[i].Name = ""
			}
		}
	}
}

// SyntheticFunctionName reports whether name is the merge key Merge3 gives
// an unnamed function, and the function key it stands for.
func SyntheticFunctionName(name string) (string, bool) {
	return strings.CutPrefix(name, fnKeyPrefix)
}
