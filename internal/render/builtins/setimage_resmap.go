package builtins

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/api/filters/imagetag"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filtersutil"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// set-image v0.1.0: kustomize's image tag filter, run on every item through
// JSON (filtersutil.ApplyToJSON), on the container lists kustomize's images
// transformer knows (spec and spec.template.spec containers and
// initContainers, whatever the kind) plus additionalImageFields. Every item
// comes back as jsonRoundTrip gives it, changed or not. Each change is an
// info result "set image from OLD to NEW" naming the resource, file and
// field; none is "no images changed". A config without a name, or without a
// newName, newTag or digest, or with both newTag and digest, is an error
// result on the config.
func setImageThroughJSON(rl *framework.ResourceList) error {
	fc := rl.FunctionConfig
	var img types.Image
	var extra types.FsSlice
	switch {
	case fc != nil && getString(fc, yaml.APIVersionField) == "v1" && getString(fc, yaml.KindField) == "ConfigMap":
		if m := nestedMap(fc.YNode(), "data"); m != nil {
			_ = m.Decode(&img)
		}
	case fc != nil && getString(fc, yaml.APIVersionField) == fnConfigGroup+"/"+fnConfigVersion && getString(fc, yaml.KindField) == "SetImage":
		if m := nestedMap(fc.YNode(), "image"); m != nil {
			_ = m.Decode(&img)
		}
		if s := nestedNodeOrNil(fc.YNode(), "additionalImageFields"); s != nil {
			_ = s.Decode(&extra)
		}
	default:
		err := fmt.Errorf("`functionConfig` must be a `ConfigMap` or `SetImage`")
		rl.Results = append(rl.Results, result(err.Error(), framework.Error))
		return err
	}
	switch {
	case img.Name == "":
		rl.Results = append(rl.Results, objectResult("missing image name", framework.Error, fc))
		return nil
	case img.NewName == "" && img.NewTag == "" && img.Digest == "":
		rl.Results = append(rl.Results, objectResult("missing image newName, newTag, or digest", framework.Error, fc))
		return nil
	case img.NewTag != "" && img.Digest != "":
		rl.Results = append(rl.Results, objectResult("image newTag and digest both set", framework.Error, fc))
		return nil
	}
	fields := append(extra, imageFieldSpecs()...)
	var changes framework.Results
	for i, o := range rl.Items {
		if o.YNode().Kind != yaml.MappingNode {
			continue
		}
		f := imagetag.Filter{ImageTag: img, FsSlice: fields}
		f.WithMutationTracker(func(_, value, _ string, node *yaml.RNode) {
			r := objectResult(fmt.Sprintf("set image from %s to %s", node.YNode().Value, value), framework.Info, o)
			r.Field = &framework.Field{Path: strings.Join(node.FieldPath(), "."), CurrentValue: node.YNode().Value, ProposedValue: value}
			changes = append(changes, r)
		})
		if err := filtersutil.ApplyToJSON(f, o); err != nil {
			return err
		}
		rt, err := jsonRoundTrip(o)
		if err != nil {
			return err
		}
		rl.Items[i] = rt
	}
	if len(changes) == 0 {
		changes = append(changes, result("no images changed", framework.Info))
	}
	sort.SliceStable(changes, func(i, j int) bool {
		a, b := changes[i], changes[j]
		if a.File != nil && b.File != nil && a.File.Path != b.File.Path {
			return a.File.Path < b.File.Path
		}
		if a.File != nil && b.File != nil && a.File.Index != b.File.Index {
			return a.File.Index < b.File.Index
		}
		return false
	})
	rl.Results = append(rl.Results, changes...)
	return nil
}

// imageFieldSpecs are the container image fields kustomize's images
// transformer updates on any kind.
func imageFieldSpecs() types.FsSlice {
	var out types.FsSlice
	for _, p := range []string{"spec/containers[]/image", "spec/initContainers[]/image",
		"spec/template/spec/containers[]/image", "spec/template/spec/initContainers[]/image"} {
		out = append(out, types.FieldSpec{Path: p, CreateIfNotPresent: true})
	}
	return out
}

func nestedNodeOrNil(n *yaml.Node, path ...string) *yaml.Node {
	v, found, err := nestedNode(n, path...)
	if !found || err != nil {
		return nil
	}
	return v
}
