package builtins

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// set-annotations v0.1.3: kustomize's commonAnnotations transformer over the
// unstructured resource map of kustomize api v0.7 (kunstructItems: local-config
// items dropped, YAML 1.1, back through JSON). Each annotation, in key order,
// goes on metadata.annotations of every item and on the pod and job templates
// of the workload kinds (annotationPaths), created where missing.
func setAnnotationsUnstructured(rl *framework.ResourceList) error {
	var annotations map[string]string
	configure := func(fc *yaml.RNode) error {
		switch {
		case fc != nil && getString(fc, yaml.APIVersionField) == "v1" && getString(fc, yaml.KindField) == "ConfigMap":
			annotations = dataMap(fc)
		case fc != nil && getString(fc, yaml.APIVersionField) == fnConfigGroup+"/"+fnConfigVersion &&
			getString(fc, yaml.KindField) == "SetAnnotationConfig":
			annotations = stringMapAt(fc, "annotations")
		default:
			return fmt.Errorf("function config must be a ConfigMap or SetAnnotationConfig")
		}
		if len(annotations) == 0 {
			return fmt.Errorf("input annotation list cannot be empty")
		}
		return nil
	}
	return runResmap(rl, true, configure, func(items []*yaml.RNode) {
		setEntriesAt(items, annotationPaths(), annotations)
	})
}

// annotationPaths are where kustomize's commonAnnotations puts annotations.
func annotationPaths() []labelPath {
	const tmpl = "spec/template/metadata/annotations"
	return []labelPath{
		{"", "", "metadata/annotations", true},
		{"", "ReplicationController", tmpl, true},
		{"", "Deployment", tmpl, true},
		{"", "ReplicaSet", tmpl, true},
		{"", "DaemonSet", tmpl, true},
		{"", "StatefulSet", tmpl, true},
		{"batch", "Job", tmpl, true},
		{"batch", "CronJob", "spec/jobTemplate/metadata/annotations", true},
		{"batch", "CronJob", "spec/jobTemplate/spec/template/metadata/annotations", true},
	}
}
