package builtins

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// set-labels v0.1.x: kustomize's commonLabels transformer over a resource map
// holding every item (local-config ones and kustomization.yaml included). Each
// label, in key order, is set at every label path kustomize knows for the
// item's kind (labelPaths): the labels map is created where the path says
// so, and once the map is there the label is added or replaced. Every item
// then comes back through JSON (jsonRoundTrip). No results on success; a bad
// config or a failure is one error result and a non-zero exit. Before v0.1.5
// (kustomize api v0.7) the map held unstructured objects (kunstructItems).
type setLabelsResmap struct {
	unstructured bool // v0.1.3–v0.1.4: kunstructItems
}

// A labelPath is where kustomize's commonLabels puts labels on a kind:
// the slash-separated path to a labels map (a list on the way is walked
// element by element; a list marked "[]" is never created), for kinds matching group and kind ("" matches any),
// created when missing only if create is set.
type labelPath struct {
	group, kind string
	path        string
	create      bool
}

const (
	podTemplateLabels = "spec/template/metadata/labels"
	podAffinity       = "spec/template/spec/affinity/"
	selectorLabels    = "spec/selector/matchLabels"
)

// labelPathsFor returns the paths for one workload kind with a pod
// template: its selector, its template, and, for the apps kinds kustomize
// lists them for, the pod (anti-)affinity and spread-constraint selectors.
func labelPathsFor(group, kind string, createSelector, podSelectors bool) []labelPath {
	out := []labelPath{
		{group, kind, selectorLabels, createSelector},
		{group, kind, podTemplateLabels, true},
	}
	if podSelectors {
		for _, aff := range []string{"podAffinity", "podAntiAffinity"} {
			out = append(out,
				labelPath{group, kind, podAffinity + aff + "/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels", false},
				labelPath{group, kind, podAffinity + aff + "/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels", false})
		}
		out = append(out, labelPath{group, kind, "spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels", false})
	}
	return out
}

func labelPaths() []labelPath {
	out := []labelPath{
		{"", "", "metadata/labels", true},
		{"", "Service", "spec/selector", true},
		{"", "ReplicationController", "spec/selector", true},
		{"", "ReplicationController", podTemplateLabels, true},
	}
	out = append(out, labelPathsFor("", "Deployment", true, false)...)
	out = append(out, labelPathsFor("apps", "Deployment", true, true)[2:]...)
	out = append(out, labelPathsFor("", "ReplicaSet", true, false)...)
	out = append(out, labelPathsFor("", "DaemonSet", true, false)...)
	out = append(out, labelPathsFor("apps", "StatefulSet", true, true)...)
	out = append(out,
		labelPath{"apps", "StatefulSet", "spec/volumeClaimTemplates[]/metadata/labels", true},
		labelPath{"batch", "Job", selectorLabels, false},
		labelPath{"batch", "Job", podTemplateLabels, true},
		labelPath{"batch", "CronJob", "spec/jobTemplate/spec/selector/matchLabels", false},
		labelPath{"batch", "CronJob", "spec/jobTemplate/metadata/labels", true},
		labelPath{"batch", "CronJob", "spec/jobTemplate/spec/template/metadata/labels", true},
		labelPath{"policy", "PodDisruptionBudget", selectorLabels, false},
		labelPath{"networking.k8s.io", "NetworkPolicy", "spec/podSelector/matchLabels", false},
		labelPath{"networking.k8s.io", "NetworkPolicy", "spec/ingress/from/podSelector/matchLabels", false},
		labelPath{"networking.k8s.io", "NetworkPolicy", "spec/egress/to/podSelector/matchLabels", false},
	)
	return out
}

func (v setLabelsResmap) process(rl *framework.ResourceList) error {
	var labels map[string]string
	configure := func(fc *yaml.RNode) (err error) {
		labels, err = setLabelsResmapConfig(fc)
		if v.unstructured && errors.Is(err, errSetLabelsConfigKind) {
			return errors.New("function config must be a ConfigMap or SetLabelConfig") // v0.1.3–v0.1.4's words
		}
		return err
	}
	return runResmap(rl, v.unstructured, configure, func(items []*yaml.RNode) {
		setEntriesAt(items, labelPaths(), labels)
	})
}

// setEntriesAt sets each entry, in key order, in the map at every path
// that applies to each item's kind, as kustomize's commonLabels and
// commonAnnotations transformers do.
func setEntriesAt(items []*yaml.RNode, paths []labelPath, entries map[string]string) {
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, it := range items {
		if it.YNode().Kind != yaml.MappingNode {
			continue
		}
		gvk := resid.GvkFromNode(it)
		for _, k := range keys {
			for _, p := range paths {
				if (p.group == "" || p.group == gvk.Group) && (p.kind == "" || p.kind == gvk.Kind) {
					setLabelAt(it.YNode(), strings.Split(p.path, "/"), p.create, k, entries[k])
				}
			}
		}
	}
}

// setLabelAt sets key to value in the labels map at path below n, walking
// every element of a list met on the way, and creating missing maps only if
// create is set.
func setLabelAt(n *yaml.Node, path []string, create bool, key, value string) {
	switch {
	case n == nil:
		return
	case n.Kind == yaml.SequenceNode:
		for _, e := range n.Content {
			setLabelAt(e, path, create, key, value)
		}
		return
	case n.Kind != yaml.MappingNode:
		return
	case len(path) == 0:
		setMapValue(n, key, stringNode(value))
		return
	}
	name := strings.TrimSuffix(path[0], "[]")
	next, ok := mapValue(n, name)
	if !ok || next.Tag == yaml.NodeTagNull {
		if !create || name != path[0] {
			return
		}
		next = &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
		setMapValue(n, name, next)
	}
	setLabelAt(next, path[1:], create, key, value)
}

// errSetLabelsConfigKind is a function config of neither kind set-labels
// reads.
var errSetLabelsConfigKind = errors.New("`functionConfig` must be either a `ConfigMap` or `SetLabels`")

func setLabelsResmapConfig(fc *yaml.RNode) (map[string]string, error) {
	var labels map[string]string
	switch {
	case fc == nil:
		return nil, errSetLabelsConfigKind
	case getString(fc, yaml.APIVersionField) == "v1" && getString(fc, yaml.KindField) == "ConfigMap":
		labels = dataMap(fc)
	case getString(fc, yaml.APIVersionField) == fnConfigGroup+"/"+fnConfigVersion &&
		(getString(fc, yaml.KindField) == setLabelsKind || getString(fc, yaml.KindField) == "SetLabelConfig"):
		labels = stringMapAt(fc, "labels")
	default:
		return nil, errSetLabelsConfigKind
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("input label list cannot be empty")
	}
	return labels, nil
}
