package builtins

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	annofilter "sigs.k8s.io/kustomize/api/filters/annotations"
	"sigs.k8s.io/kustomize/api/hasher"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// set-annotations (catalog v0.1): kustomize's annotations transformer over all
// resources, local-config ones (the Kptfile) included, at metadata.annotations
// and at the pod templates of the workload kinds (kustomize's
// commonAnnotations field specs) plus any `additionalAnnotationFields`. One
// result per resource and annotations field: `set annotations: {json}` with
// the field path and the resource's file.

const (
	setAnnotationsKind       = "SetAnnotations"
	setAnnotationsLegacyKind = "SetAnnotationConfig"
)

// commonAnnotationFieldSpecs are kustomize's default commonAnnotations field specs.
var commonAnnotationFieldSpecs = types.FsSlice{
	{Path: "metadata/annotations", CreateIfNotPresent: true},
	{Path: "spec/template/metadata/annotations", CreateIfNotPresent: true, Gvk: resid.Gvk{Version: "v1", Kind: "ReplicationController"}},
	{Path: "spec/template/metadata/annotations", CreateIfNotPresent: true, Gvk: resid.Gvk{Kind: "Deployment"}},
	{Path: "spec/template/metadata/annotations", CreateIfNotPresent: true, Gvk: resid.Gvk{Kind: "ReplicaSet"}},
	{Path: "spec/template/metadata/annotations", CreateIfNotPresent: true, Gvk: resid.Gvk{Kind: "DaemonSet"}},
	{Path: "spec/template/metadata/annotations", CreateIfNotPresent: true, Gvk: resid.Gvk{Kind: "StatefulSet"}},
	{Path: "spec/template/metadata/annotations", CreateIfNotPresent: true, Gvk: resid.Gvk{Group: "batch", Kind: "Job"}},
	{Path: "spec/jobTemplate/metadata/annotations", CreateIfNotPresent: true, Gvk: resid.Gvk{Group: "batch", Kind: "CronJob"}},
	{Path: "spec/jobTemplate/spec/template/metadata/annotations", CreateIfNotPresent: true, Gvk: resid.Gvk{Group: "batch", Kind: "CronJob"}},
}

type setAnnotationsConfig struct {
	Annotations                map[string]string `yaml:"annotations,omitempty"`
	FieldSpecs                 []types.FieldSpec `yaml:"fieldSpecs,omitempty"`
	AdditionalAnnotationFields []types.FieldSpec `yaml:"additionalAnnotationFields,omitempty"`

	commonOnly bool // no field spec of the user's: the direct path may run
}

func setAnnotations(rl *framework.ResourceList) error {
	results, err := runSetAnnotations(rl)
	if err != nil {
		r := framework.Results{result(err.Error(), framework.Error)}
		rl.Results = append(rl.Results, r...)
		return r
	}
	rl.Results = append(rl.Results, results...)
	return nil
}

func runSetAnnotations(rl *framework.ResourceList) (framework.Results, error) {
	var cfg setAnnotationsConfig
	if err := cfg.load(rl.FunctionConfig); err != nil {
		return nil, fmt.Errorf("failed to configure function: %w", err)
	}
	items, byField, err := cfg.run(rl.Items)
	if err != nil {
		return nil, fmt.Errorf("failed to run function: %w", err)
	}
	rl.Items = items
	return byField.results()
}

func (c *setAnnotationsConfig) load(fc *yaml.RNode) error {
	meta := yaml.ResourceMeta{}
	if fc != nil {
		if m, err := fc.GetMeta(); err == nil {
			meta = m
		}
	}
	switch {
	case meta.APIVersion == "v1" && meta.Kind == "ConfigMap":
		c.Annotations = dataMap(fc)
	case meta.APIVersion == fnConfigAPIVersion && (meta.Kind == setAnnotationsKind || meta.Kind == setAnnotationsLegacyKind):
		s, err := fc.String()
		if err != nil {
			return fmt.Errorf("cannot get YAML from RNode: %w", err)
		}
		if err := yaml.Unmarshal([]byte(s), c); err != nil {
			return fmt.Errorf("failed to unmarshal config %#v: %w", s, err)
		}
		if c.AdditionalAnnotationFields != nil && c.FieldSpecs != nil {
			return fmt.Errorf("`fieldSpecs` has been deprecated, please rename it to `additionalAnnotationFields`")
		}
		if c.AdditionalAnnotationFields == nil && c.FieldSpecs != nil {
			c.AdditionalAnnotationFields = c.FieldSpecs
		}
	default:
		return fmt.Errorf("`functionConfig` must be a `ConfigMap` or `%s`", setAnnotationsKind)
	}
	if len(c.Annotations) == 0 {
		return fmt.Errorf("input annotation list cannot be empty")
	}
	c.commonOnly = len(c.AdditionalAnnotationFields) == 0
	c.AdditionalAnnotationFields = append(c.AdditionalAnnotationFields, commonAnnotationFieldSpecs...)
	return nil
}

type annotationResultKey struct {
	filePath, fileIndex, fieldPath string
}

type annotationResults struct {
	order  []annotationResultKey
	values map[annotationResultKey]map[string]string
}

func (c *setAnnotationsConfig) run(items []*yaml.RNode) ([]*yaml.RNode, *annotationResults, error) {
	res := &annotationResults{values: map[annotationResultKey]map[string]string{}}
	rs, err := newResources(items)
	if err != nil {
		return nil, nil, err
	}
	var sets []annotationSet
	track := func(filePath, fileIndex string) func(key, value, fieldPath string, annotations *yaml.Node) {
		return func(key, value, fieldPath string, annotations *yaml.Node) {
			k := annotationResultKey{filePath: filePath, fileIndex: fileIndex, fieldPath: fieldPath}
			if _, ok := res.values[k]; !ok {
				res.values[k] = map[string]string{}
				res.order = append(res.order, k)
			}
			res.values[k][key] = value
			sets = append(sets, annotationSet{annotations: annotations, key: key})
		}
	}
	var direct *directAnnotator
	if c.commonOnly {
		direct = newDirectAnnotator(c.Annotations)
	}
	out := make([]*yaml.RNode, 0, len(rs))
	for _, r := range rs {
		filePath, fileIndex := fileAnnotations(&r.RNode)
		sets = sets[:0]
		if direct != nil && directlyAnnotatable(&r.RNode) {
			direct.annotate(&r.RNode, track(filePath, fileIndex))
		} else {
			f := annofilter.Filter{Annotations: c.Annotations, FsSlice: c.AdditionalAnnotationFields}
			set := track(filePath, fileIndex)
			f.WithMutationTracker(func(key, value, _ string, node *yaml.RNode) {
				set(key, value, strings.Join(node.FieldPath(), "."), node.YNode())
			})
			if err := r.ApplyFilter(f); err != nil {
				return nil, nil, fmt.Errorf("failed to run transformer: %w", err)
			}
		}
		unshareValues(sets)
		out = append(out, &r.RNode)
	}
	return out, res, nil
}

// annotationSet is an annotation the filter set: its key, in its
// annotations mapping.
type annotationSet struct {
	annotations *yaml.Node
	key         string
}

// unshareValues gives every annotation value the filter set its own node.
// The filter puts one value node at each of a resource's annotations fields
// that lacked the key, where the catalog function's output (copied out of a
// kustomize ResMap, ResMap.ToRNodeSlice) has independent nodes; the copy
// changes nothing else.
func unshareValues(sets []annotationSet) {
	var seen []*yaml.Node
	for _, s := range sets {
		m := s.annotations
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value != s.key {
				continue
			}
			v := m.Content[i+1]
			if slices.Contains(seen, v) {
				c := *v
				m.Content[i+1] = &c
			} else {
				seen = append(seen, v)
			}
			break
		}
	}
}

func (a *annotationResults) results() (framework.Results, error) {
	var results framework.Results
	if len(a.order) == 0 {
		return framework.Results{{Message: "no annotations applied"}}, nil
	}
	for _, k := range a.order {
		idx, _ := strconv.Atoi(k.fileIndex)
		b, err := json.Marshal(a.values[k])
		if err != nil {
			return nil, err
		}
		results = append(results, &framework.Result{
			Message: fmt.Sprintf("set annotations: %s", b),
			Field:   &framework.Field{Path: k.fieldPath},
			File:    &framework.File{Path: k.filePath, Index: idx},
		})
	}
	results.Sort()
	return results, nil
}

// newResources converts the items to kustomize Resources, local-config
// resources included, and fails on two resources with the same id exactly
// as NewResMapFromRNodeSlice does (see newResMap), in linear time where the
// ResMap takes quadratic time. Each Resource holds its item's node.
func newResources(items []*yaml.RNode) ([]*resource.Resource, error) {
	// resource.Factory.ResourcesFromRNodes with IncludeLocalConfigs, which
	// wraps each node after checking its metadata (here the costly check
	// only runs when the quick one fails, to report its error)
	rs := make([]*resource.Resource, 0, len(items))
	for _, n := range items {
		if n.IsNilOrEmpty() {
			continue
		}
		if !hasKindAndName(n) {
			if _, err := n.GetValidatedMetadata(); err != nil {
				return nil, err
			}
		}
		rs = append(rs, &resource.Resource{RNode: *n})
	}
	// resid.ResId.Equals: same group, version, kind and name, same
	// effective namespace
	type key struct{ group, version, kind, name, namespace string }
	seen := make(map[key]bool, len(rs))
	for _, r := range rs {
		id := r.CurId()
		k := key{id.Group, id.Version, id.Kind, id.Name, id.EffectiveNamespace()}
		if seen[k] {
			return nil, fmt.Errorf("may not add resource with an already registered id: %s", id)
		}
		seen[k] = true
	}
	return rs, nil
}

// hasKindAndName reports whether rn.GetValidatedMetadata() passes: a kind,
// and a name unless the kind is a list.
func hasKindAndName(rn *yaml.RNode) bool {
	k := rn.Field(yaml.KindField)
	if k.IsNilOrEmpty() {
		return false
	}
	kind := yaml.GetValue(k.Value)
	if kind == "" {
		return false
	}
	if strings.HasSuffix(kind, "List") {
		return true
	}
	md := rn.Field(yaml.MetadataField)
	if md.IsNilOrEmpty() {
		return false
	}
	name := md.Value.Field(yaml.NameField)
	return !name.IsNilOrEmpty() && name.Value.YNode().Value != ""
}

// newResMap builds a kustomize ResMap from the items, local-config resources
// included, as the kustomize-based catalog functions do.
func newResMap(items []*yaml.RNode) (resmap.ResMap, error) {
	rf := resource.NewFactory(&hasher.Hasher{})
	rf.IncludeLocalConfigs = true
	return resmap.NewFactory(rf).NewResMapFromRNodeSlice(items)
}
