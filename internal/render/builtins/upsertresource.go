package builtins

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// upsert-resource (catalog v0.1–v0.2, kyaml v0.10's function framework): the
// functionConfig is a resource to put in the package. Every item with its
// group, kind, name and namespace becomes a copy of it, with its annotations
// and the legacy path and index annotations of the item it replaces; with no
// such item, the copy is appended, without path and index annotations, so
// that kpt writes it to a file of its own.
//
// v0.2.0 reads a `List` config as the resources to upsert, one after the
// other, and a resource's `config.kubernetes.io/target-path` annotation
// narrows the items it replaces to those of that file and names the file a new
// one goes to. v0.1.0 upserts a List as it is and, as its comparison reads the
// config's group twice, replaces items of any group.

const (
	upsertTargetPath = "config.kubernetes.io/target-path"
	// kyaml's runtimeutil.FunctionAnnotationKey and its older spelling: the
	// items that are function configs of kpt 0.x, which are never replaced
	fnAnnotation       = "config.kubernetes.io/function"
	legacyFnAnnotation = "config.k8s.io/function"
)

type upsertResource struct {
	// v01: no List, no target-path, the group is not compared
	v01 bool
}

func (u upsertResource) process(rl *framework.ResourceList) error {
	if rl.FunctionConfig == nil || rl.FunctionConfig.YNode() == nil {
		// the release appends a nil resource and panics writing it out
		return Failure{"panic: runtime error: invalid memory address or nil pointer dereference"}
	}
	err := u.upsertAll(rl)
	if err != nil {
		// the release's framework prints the error, then its main prints it
		// again with a newline
		msg := "failed to upsert resource: " + err.Error()
		return Failure{msg + msg + "\n"}
	}
	return nil
}

func (u upsertResource) upsertAll(rl *framework.ResourceList) error {
	inputs := []*yaml.RNode{rl.FunctionConfig}
	if !u.v01 {
		var err error
		if inputs, err = upsertInputs(rl.FunctionConfig); err != nil {
			return err
		}
	}
	for _, in := range inputs {
		replaced, err := u.replace(rl.Items, in)
		if err != nil {
			return err
		}
		if replaced {
			continue
		}
		if rl.Items, err = u.add(rl.Items, in); err != nil {
			return err
		}
	}
	return nil
}

// upsertInputs are the resources a config upserts: a List's items, or the
// config itself.
func upsertInputs(fc *yaml.RNode) ([]*yaml.RNode, error) {
	meta, err := fc.GetMeta()
	if err != nil {
		return nil, err
	}
	if meta.Kind != "List" {
		return []*yaml.RNode{fc}, nil
	}
	items := fc.Field("items")
	if items == nil {
		return nil, nil
	}
	var out []*yaml.RNode
	for _, n := range items.Value.Content() {
		out = append(out, yaml.NewRNode(n))
	}
	return out, nil
}

// replace puts a copy of in in place of every item it matches.
func (u upsertResource) replace(items []*yaml.RNode, in *yaml.RNode) (bool, error) {
	inMeta, err := in.GetMeta()
	if err != nil {
		return false, err
	}
	found := false
	for i := range items {
		meta, err := items[i].GetMeta()
		if err != nil {
			return false, err
		}
		if meta.Annotations[fnAnnotation] != "" || meta.Annotations[legacyFnAnnotation] != "" {
			continue
		}
		if !u.sameResource(inMeta, meta) {
			continue
		}
		items[i] = in.Copy()
		if err := setUpsertAnnotations(items[i], replacedAnnotations(inMeta.Annotations, meta.Annotations)); err != nil {
			return false, err
		}
		found = true
	}
	return found, nil
}

func (u upsertResource) sameResource(in, item yaml.ResourceMeta) bool {
	if !u.v01 {
		if upsertGroup(in.APIVersion) != upsertGroup(item.APIVersion) {
			return false
		}
		if p := in.Annotations[upsertTargetPath]; p != "" && p != item.Annotations[kioutil.LegacyPathAnnotation] { //nolint:staticcheck
			return false
		}
	}
	return in.Kind == item.Kind && in.Name == item.Name && in.Namespace == item.Namespace
}

// upsertGroup is the part of an apiVersion before its first slash ("" for
// none).
func upsertGroup(apiVersion string) string {
	if i := strings.Index(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// replacedAnnotations are the config's annotations with the replaced item's
// legacy path and index (empty when it had none), less the function and
// target-path annotations.
func replacedAnnotations(in, item map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range in {
		out[k] = v
	}
	out[kioutil.LegacyPathAnnotation] = item[kioutil.LegacyPathAnnotation]   //nolint:staticcheck
	out[kioutil.LegacyIndexAnnotation] = item[kioutil.LegacyIndexAnnotation] //nolint:staticcheck
	delete(out, fnAnnotation)
	delete(out, legacyFnAnnotation)
	delete(out, upsertTargetPath)
	return out
}

// add appends a copy of in without the legacy path and index annotations
// (v0.2.0: with its target-path as the path).
func (u upsertResource) add(items []*yaml.RNode, in *yaml.RNode) ([]*yaml.RNode, error) {
	n := in.Copy()
	meta, err := n.GetMeta()
	if err != nil {
		return items, err
	}
	a := meta.Annotations
	if a == nil {
		a = map[string]string{}
	}
	for _, k := range []string{fnAnnotation, legacyFnAnnotation, kioutil.LegacyPathAnnotation, kioutil.LegacyIndexAnnotation} { //nolint:staticcheck
		delete(a, k)
	}
	if !u.v01 {
		if p := in.GetAnnotations()[upsertTargetPath]; p != "" {
			a[kioutil.LegacyPathAnnotation] = p //nolint:staticcheck
		}
		delete(a, upsertTargetPath)
	}
	if err := setUpsertAnnotations(n, a); err != nil {
		return items, err
	}
	return append(items, n), nil
}

// setUpsertAnnotations sets rn's annotations as kyaml does (the field
// written anew at the end of metadata, keys sorted), in the styles of the
// release's encoder.
func setUpsertAnnotations(rn *yaml.RNode, a map[string]string) error {
	// kyaml's error as it is: the release prints it as it is
	if err := rn.SetAnnotations(a); err != nil {
		return err
	}
	if m := nestedMap(rn.YNode(), yaml.MetadataField, yaml.AnnotationsField); m != nil {
		for i := 1; i < len(m.Content); i += 2 {
			oldAnnotationStyle(m.Content[i])
		}
	}
	return nil
}
