package builtins

import (
	"fmt"
	"sort"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// set-labels (catalog v0.2): adds the labels to metadata.labels of every
// non-local-config resource, and to the selectors and templates of the
// workload kinds: Service/ReplicationController spec.selector; Deployment,
// ReplicaSet, DaemonSet, StatefulSet spec.selector.matchLabels (created) and
// Job, PodDisruptionBudget ones (only if present); pod templates (metadata,
// topologySpreadConstraints and pod (anti-)affinity label selectors); CronJob
// job templates; StatefulSet volumeClaimTemplates; NetworkPolicy pod selectors.
// Labels are applied in key order. The result counts every label at every
// path visited ("set N labels in total"), whether or not it changed.

const setLabelsKind = "SetLabels"

func setLabels(rl *framework.ResourceList) error {
	fc := rl.FunctionConfig
	var labels map[string]string
	if isEmptyConfig(fc) || isEmptyFunctionInput(fc) {
		rl.Results = append(rl.Results, result("`FunctionConfig` is not given", framework.Info))
	} else {
		g := objectGVK(fc)
		switch {
		case g.Group == "" && g.Kind == "ConfigMap":
			labels = dataMap(fc)
		case g.Group == fnConfigGroup && g.Kind == setLabelsKind:
			labels = stringMapAt(fc, "labels")
		default:
			gk := g.Kind
			if g.Group != "" {
				gk = g.Kind + "." + g.Group
			}
			rl.Results = append(rl.Results, result(fmt.Sprintf("unknown FunctionConfig `%v`, expect `%v.%v` or `ConfigMap.v1`",
				gk, setLabelsKind, fnConfigGroup), framework.Error))
			return errFunctionFailure
		}
	}

	var objects []*yaml.RNode
	for _, o := range rl.Items {
		if o.YNode().Kind == yaml.MappingNode && !isLocalConfig(o) {
			objects = append(objects, o)
		}
	}
	if len(objects) == 0 {
		rl.Results = append(rl.Results, result("no input resources", framework.Info))
		return nil
	}
	if isEmptyFnConfigForLabels(fc) {
		return errFunctionFailure
	}
	if len(labels) == 0 {
		rl.Results = append(rl.Results, result("no `labels` arguments are given in FunctionConfig", framework.Warning))
		return nil
	}
	s := &labelSetter{labels: labels}
	failed := false
	for _, o := range objects {
		if err := s.setObject(o); err != nil {
			rl.Results = append(rl.Results, errorResult(err))
			failed = true
		}
	}
	rl.Results = append(rl.Results, result(fmt.Sprintf("set %v labels in total", s.count), framework.Info))
	if failed {
		return errFunctionFailure
	}
	return nil
}

// isEmptyFunctionInput is the SDK's check for kpt's placeholder config.
func isEmptyFunctionInput(fc *yaml.RNode) bool {
	data := nestedMap(fc.YNode(), "data")
	if data == nil {
		return false
	}
	return getString(fc, yaml.KindField) == "ConfigMap" && getString(fc, yaml.MetadataField, yaml.NameField) == "function-input" &&
		len(data.Content) == 0
}

// isEmptyFnConfigForLabels is set-labels' own placeholder check.
func isEmptyFnConfigForLabels(fc *yaml.RNode) bool {
	if fc == nil || fc.YNode() == nil {
		return true
	}
	kind := getString(fc, yaml.KindField)
	name := getString(fc, yaml.MetadataField, yaml.NameField)
	if kind == "ConfigMap" && name == "function-input" {
		return len(dataMap(fc)) == 0
	}
	return kind == "" && name == ""
}

func stringMapAt(rn *yaml.RNode, path ...string) map[string]string {
	out := map[string]string{}
	m := nestedMap(rn.YNode(), path...)
	if m == nil {
		return out
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i+1].Kind == yaml.ScalarNode {
			out[m.Content[i].Value] = m.Content[i+1].Value
		}
	}
	return out
}

type labelSetter struct {
	labels map[string]string
	count  int
}

func (s *labelSetter) setObject(o *yaml.RNode) error {
	root := o.YNode()
	if err := s.update(root, []string{"metadata", "labels"}, true); err != nil {
		return err
	}
	// selectors
	if isGVK(o, "", "v1", "Service") || isGVK(o, "", "v1", "ReplicationController") {
		if err := s.update(root, []string{"spec", "selector"}, true); err != nil {
			return err
		}
	}
	if isGVK(o, "", "", "Deployment") || isGVK(o, "", "", "ReplicaSet") || isGVK(o, "", "", "DaemonSet") || isGVK(o, "apps", "", "StatefulSet") {
		if err := s.update(root, []string{"spec", "selector", "matchLabels"}, true); err != nil {
			return err
		}
	} else if isGVK(o, "batch", "", "Job") || isGVK(o, "policy", "", "PodDisruptionBudget") {
		if err := s.update(root, []string{"spec", "selector", "matchLabels"}, false); err != nil {
			return err
		}
	}
	networkPolicy := isGVK(o, "networking.k8s.io", "", "NetworkPolicy")
	if networkPolicy {
		if err := s.update(root, []string{"spec", "podSelector", "matchLabels"}, false); err != nil {
			return err
		}
	}

	spec := nestedMap(root, "spec")
	if spec == nil {
		return nil
	}
	if isGVK(o, "", "v1", "ReplicationController") || isGVK(o, "", "", "Deployment") || isGVK(o, "", "", "ReplicaSet") ||
		isGVK(o, "", "", "DaemonSet") || isGVK(o, "apps", "", "StatefulSet") || isGVK(o, "batch", "", "Job") {
		// errors in pod templates are ignored, as the catalog function does
		if err := s.setPod(nestedMap(spec, "template")); err != nil {
			return nil
		}
	}
	if isGVK(o, "batch", "", "CronJob") {
		if job := nestedMap(spec, "jobTemplate"); job != nil {
			if err := s.update(job, []string{"metadata", "labels"}, true); err != nil {
				return err
			}
			jobSpec := nestedMap(job, "spec")
			if err := s.update(jobSpec, []string{"selector", "matchLabels"}, false); err != nil {
				return err
			}
			if err := s.setPod(nestedMap(jobSpec, "template")); err != nil {
				return err
			}
		}
	}
	if isGVK(o, "apps", "", "StatefulSet") {
		if v, found, err := nestedNode(spec, "volumeClaimTemplates"); err != nil || (found && v.Kind != yaml.SequenceNode) {
			return fmt.Errorf("unable to read spec.volumeClaimTemplates: %w", errWrongType)
		}
		for _, vol := range nestedSlice(spec, "volumeClaimTemplates") {
			if err := s.update(vol, []string{"metadata", "labels"}, true); err != nil {
				return err
			}
			if err := s.update(vol, []string{"selector", "matchLabels"}, false); err != nil {
				return err
			}
		}
	}
	if networkPolicy {
		for _, rule := range nestedSlice(spec, "ingress") {
			for _, peer := range nestedSlice(rule, "from") {
				if err := s.update(peer, []string{"podSelector", "matchLabels"}, false); err != nil {
					return err
				}
			}
		}
		for _, rule := range nestedSlice(spec, "egress") {
			for _, peer := range nestedSlice(rule, "to") {
				if err := s.update(peer, []string{"podSelector", "matchLabels"}, false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (s *labelSetter) setPod(pod *yaml.Node) error {
	if pod == nil {
		return nil
	}
	if err := s.update(pod, []string{"metadata", "labels"}, true); err != nil {
		return err
	}
	podSpec := nestedMap(pod, "spec")
	if podSpec == nil {
		return nil
	}
	for _, c := range nestedSlice(podSpec, "topologySpreadConstraints") {
		if err := s.update(c, []string{"labelSelector", "matchLabels"}, false); err != nil {
			return err
		}
	}
	if affinity := nestedMap(podSpec, "affinity"); affinity != nil {
		for _, aff := range []string{"podAffinity", "podAntiAffinity"} {
			if nestedMap(affinity, aff) == nil {
				continue
			}
			// The catalog function looks for the terms directly under
			// `affinity` (not under podAffinity/podAntiAffinity).
			for _, t := range nestedSlice(affinity, "preferredDuringSchedulingIgnoredDuringExecution") {
				if term := nestedMap(t, "podAffinityTerm"); term != nil {
					if err := s.update(term, []string{"labelSelector", "matchLabels"}, false); err != nil {
						return err
					}
				}
			}
			for _, t := range nestedSlice(affinity, "requiredDuringSchedulingIgnoredDuringExecution") {
				if err := s.update(t, []string{"labelSelector", "matchLabels"}, false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// update sets every label at path below n: an existing different value is
// replaced, a missing one is created only if create is set. Every label
// counts, changed or not.
func (s *labelSetter) update(n *yaml.Node, path []string, create bool) error {
	if n == nil {
		return nil
	}
	keys := make([]string, 0, len(s.labels))
	for k := range s.labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := s.labels[k]
		full := append(append([]string{}, path...), k)
		old, found, err := nestedString(yaml.NewRNode(n), full...)
		if err != nil {
			return fmt.Errorf("unable to read %v: %w", full, err)
		}
		if (found && old != v) || (!found && create) {
			if err := setNestedString(n, v, full...); err != nil {
				return err
			}
		}
		s.count++
	}
	return nil
}
